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

// runWalk plays steps steps of the grid game with everything approved and returns the
// prompt size of every step, and how long the run took.
func runWalk(tb testing.TB, steps int) (map[int]int, time.Duration, *walker) {
	sizes, d, w, _ := runWalkCommits(tb, steps)
	return sizes, d, w
}

// runWalkCommits is runWalk that also returns the durable commits of the run.
func runWalkCommits(tb testing.TB, steps int) (map[int]int, time.Duration, *walker, uint64) {
	tb.Helper()
	w := &walker{}
	sizes, d, commits := runStepsCommits(tb, &gridGame{now: time.Now}, w, steps)
	return sizes, d, w, commits
}

// runSteps plays steps steps of g with brain b, everything approved, on a real bbolt
// session, and returns the prompt size of every step and how long the run took.
func runSteps(tb testing.TB, g game.Game, b agent.Brain, steps int) (map[int]int, time.Duration) {
	sizes, d, _ := runStepsCommits(tb, g, b, steps)
	return sizes, d
}

// runStepsCommits is runSteps that also returns the notebook's durable commits.
func runStepsCommits(tb testing.TB, g game.Game, b agent.Brain, steps int) (map[int]int, time.Duration, uint64) {
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
	sizes, _, _ := runWalk(t, 120)
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
	var sizes map[int]int
	var total, brain time.Duration
	var commits uint64
	for b.Loop() {
		s, d, w, c := runWalkCommits(b, steps)
		sizes, total, brain, commits = s, total+d, brain+w.busy, commits+c
	}
	reportSteps(b, steps, total, brain, sizes)
	b.ReportMetric(float64(commits)/float64(b.N*steps), "commits/step")
}

// reportSteps reports a steps benchmark's figures.
func reportSteps(b *testing.B, steps int, total, brain time.Duration, sizes map[int]int) {
	n := float64(b.N * steps)
	b.ReportMetric(float64(total.Nanoseconds())/n, "ns/step")
	b.ReportMetric(n/total.Seconds(), "steps/s")
	b.ReportMetric(float64((total-brain).Nanoseconds())/n, "harness-ns/step")
	b.ReportMetric(float64(sizes[10]), "prompt-chars@10")
	b.ReportMetric(float64(sizes[100]), "prompt-chars@100")
	b.ReportMetric(float64(sizes[1000]), "prompt-chars@1000")
}

var _ game.Game = (*gridGame)(nil)
