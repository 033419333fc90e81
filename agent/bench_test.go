package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/spacetraders"
	"github.com/coplayhq/coplay/game/universe"
)

// walker is a zero-latency brain that moves round a square forever, digging and
// writing a line of notes now and then, like a steady model would.
type walker struct {
	mu   sync.Mutex
	n    int
	busy time.Duration // time spent inside Next
}

func (w *walker) Name() string { return "walker" }

func (w *walker) Next(_ context.Context, req agent.Request) (agent.Reply, error) {
	t0 := time.Now()
	defer func() { w.mu.Lock(); w.busy += time.Since(t0); w.mu.Unlock() }()
	w.mu.Lock()
	w.n++
	n := w.n
	w.mu.Unlock()
	dir := []string{"N", "E", "S", "W"}[n%4]
	calls := []agent.ToolCall{{Tool: "move", Args: json.RawMessage(fmt.Sprintf(`{"direction":%q}`, dir))}}
	if n%3 == 0 {
		calls = append(calls, agent.ToolCall{Tool: "dig", Args: json.RawMessage(`{}`)})
	}
	if n%10 == 0 {
		calls = append(calls, agent.ToolCall{Tool: "update_notes", Args: json.RawMessage(
			fmt.Sprintf(`{"section":"Situation","text":"Step %d: walking the square, digging every third step."}`, n))})
	}
	return agent.Reply{Text: fmt.Sprintf("Step %d: going %s.", n, dir), Calls: calls}, nil
}

// docker is a zero-latency brain for the offline universe: each step it looks at the
// game and docks or orbits the command ship in turn, and writes notes now and then.
type docker struct {
	mu   sync.Mutex
	n    int
	busy time.Duration
}

func (d *docker) Name() string { return "docker" }

func (d *docker) Next(_ context.Context, _ agent.Request) (agent.Reply, error) {
	t0 := time.Now()
	d.mu.Lock()
	defer func() { d.busy += time.Since(t0); d.mu.Unlock() }()
	d.n++
	act := []string{"orbit_ship", "dock_ship"}[d.n%2]
	calls := []agent.ToolCall{
		{Tool: "observe_game", Args: json.RawMessage(`{}`)},
		{Tool: act, Args: json.RawMessage(`{"shipSymbol":"COPLAY-1"}`)},
	}
	if d.n%10 == 0 {
		calls = append(calls, agent.ToolCall{Tool: "update_notes", Args: json.RawMessage(
			fmt.Sprintf(`{"section":"Situation","text":"Step %d: exercising the harness."}`, d.n))})
	}
	return agent.Reply{Text: fmt.Sprintf("Step %d: %s.", d.n, act), Calls: calls}, nil
}

// runWalk plays steps steps of the grid game with the walker, everything approved, and
// returns what runSteps does and the walker.
func runWalk(tb testing.TB, steps int) (map[int]int, time.Duration, *walker, uint64) {
	tb.Helper()
	w := &walker{}
	sizes, d, commits := runSteps(tb, &gridGame{now: time.Now}, w, steps)
	return sizes, d, w, commits
}

// runSteps plays steps steps of g with brain b, everything approved, on a real bbolt
// session, and returns the prompt size of every step, how long the run took and the
// notebook's durable commits.
func runSteps(tb testing.TB, g game.Game, b agent.Brain, steps int) (map[int]int, time.Duration, uint64) {
	tb.Helper()
	sess := newSession(tb)
	before := sess.Book().Commits()
	r, err := agent.New(agent.Config{Game: g, Brain: b, Session: sess,
		ApproveAll: true, MaxSteps: steps, MaxIterations: steps + 1})
	if err != nil {
		tb.Fatal(err)
	}
	sizes := map[int]int{}
	t0 := time.Now()
	runToEnd(tb, context.Background(), r, func(ev agent.Event) {
		switch ev.Type {
		case agent.EventUsage:
			sizes[ev.Step] = ev.Usage.PromptChars
		case agent.EventError:
			tb.Fatalf("step %d: %s", ev.Step, ev.Text)
		}
	})
	return sizes, time.Since(t0), sess.Book().Commits() - before
}

// TestPromptStaysFlat plays through the whole runner, journal included; the 500-step
// check of the same bound without I/O is TestPromptBoundedOver500Steps.
func TestPromptStaysFlat(t *testing.T) {
	t.Parallel()
	sizes, _, _, _ := runWalk(t, 120)
	if len(sizes) != 120 {
		t.Fatalf("%d usage events for 120 steps", len(sizes))
	}
	at40, at120 := sizes[40], sizes[120]
	t.Logf("prompt chars: step 10 %d, 40 %d, 120 %d", sizes[10], at40, at120)
	if at40 == 0 || float64(at120) > 1.1*float64(at40) {
		t.Fatalf("prompt grew from %d chars at step 40 to %d at step 120", at40, at120)
	}
}

// BenchmarkSteps plays 1,000 steps per iteration with a zero-latency brain and the
// in-process grid game (1.43 calls a step: a move, a dig every third step, a note every
// tenth), the journal on a real bbolt file committed once per phase (fsync on).
func BenchmarkSteps(b *testing.B) {
	const steps = 1000
	var st stepTotals
	for b.Loop() {
		sizes, took, w, commits := runWalk(b, steps)
		st.add(sizes, took, w.busy, commits)
	}
	st.report(b, steps)
}

// BenchmarkStepsUniverse plays 1,000 steps per iteration with a zero-latency brain
// against the in-process offline universe over loopback HTTP (rate limit off), every
// call approved, the journal on a real bbolt file.
func BenchmarkStepsUniverse(b *testing.B) {
	const steps = 1000
	var st stepTotals
	for b.Loop() {
		off, err := spacetraders.StartOffline(universe.Config{Seed: 1}, nil, "")
		if err != nil {
			b.Fatal(err)
		}
		d := &docker{}
		sizes, took, commits := runSteps(b, off.Game, d, steps)
		st.add(sizes, took, d.busy, commits)
		off.Close()
	}
	st.report(b, steps)
}

// stepTotals adds up the iterations of a steps benchmark.
type stepTotals struct {
	sizes        map[int]int // the last iteration's prompt size of every step
	total, brain time.Duration
	commits      uint64
}

// add counts one iteration: its prompt sizes, how long it took, the brain's share of
// that, and its commits.
func (st *stepTotals) add(sizes map[int]int, took, brain time.Duration, commits uint64) {
	st.sizes = sizes
	st.total += took
	st.brain += brain
	st.commits += commits
}

// report reports the benchmark's figures, per step of b.N iterations of steps steps.
func (st *stepTotals) report(b *testing.B, steps int) {
	n := float64(b.N * steps)
	b.ReportMetric(float64(st.total.Nanoseconds())/n, "ns/step")
	b.ReportMetric(n/st.total.Seconds(), "steps/s")
	b.ReportMetric(float64((st.total-st.brain).Nanoseconds())/n, "harness-ns/step")
	b.ReportMetric(float64(st.sizes[10]), "prompt-chars@10")
	b.ReportMetric(float64(st.sizes[100]), "prompt-chars@100")
	b.ReportMetric(float64(st.sizes[1000]), "prompt-chars@1000")
	b.ReportMetric(float64(st.commits)/n, "commits/step")
}

var _ game.Game = (*gridGame)(nil)
