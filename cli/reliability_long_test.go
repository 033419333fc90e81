package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/llmtest"
	"github.com/coplayhq/coplay/game/spacetraders"
	"github.com/coplayhq/coplay/game/universe"
)

// cassetteBrain plays a cassette's steps in a loop with no wire and no latency. The
// long-session test uses it instead of an llmtest server because the server keeps every
// request it received, which would dominate the memory being measured.
type cassetteBrain struct {
	c llmtest.Cassette
	n int
}

func (b *cassetteBrain) Name() string { return "scripted" }

func (b *cassetteBrain) Next(_ context.Context, req agent.Request) (agent.Reply, error) {
	st := b.c.Steps[b.n%len(b.c.Steps)]
	b.n++
	r := agent.Reply{Text: st.Text}
	for i, c := range st.Calls {
		r.Calls = append(r.Calls, agent.ToolCall{ID: fmt.Sprintf("call_%d_%d", b.n, i), Tool: c.Tool, Args: json.RawMessage(c.Arguments())})
	}
	chars := 0
	for _, m := range req.Messages {
		chars += len(m.Content)
	}
	r.Usage = agent.Usage{PromptTokens: chars / 4, CompletionTokens: len(st.Text) / 4}
	return r, nil
}

// longCassette is a session's worth of ordinary play: moves, notes, plan, reads.
func longCassette() llmtest.Cassette {
	ship := `{"shipSymbol":"` + relShip + `"}`
	return llmtest.Cassette{Name: "long", Repeat: true, Steps: []llmtest.Step{
		{Text: "Into orbit, and I note where we are.", Calls: []llmtest.Call{scall("orbit_ship", ship),
			scall("update_notes", `{"section":"Situation","text":"COPLAY-1 in orbit at headquarters; contract on offer."}`)}},
		{Text: "Back to the dock.", Calls: []llmtest.Call{scall("dock_ship", ship)}},
		{Calls: []llmtest.Call{scall("set_plan", `{"steps":["orbit","dock","check the market","repeat"]}`)}},
		{Calls: []llmtest.Call{scall("update_step", `{"id":1,"status":"done"}`), scall("observe_game", `{}`)}},
		{Text: "Cruise is the economical mode.", Calls: []llmtest.Call{
			scall("set_flight_mode", `{"shipSymbol":"`+relShip+`","flightMode":"CRUISE"}`),
			scall("observe_detail", `{"view":"ship","shipSymbol":"`+relShip+`"}`)}},
	}}
}

// longPoint is what the long session measured at one step.
type longPoint struct {
	step        int
	promptChars int
	heapMB      float64 // live heap after a GC
	records     uint64
	fileKB      int64
	elapsed     time.Duration
}

// runLongSession plays steps headless steps with the scripted model on the offline
// universe (--approve all), and measures at each checkpoint.
func runLongSession(t *testing.T, steps int, checkpoints []int) []longPoint {
	t.Helper()
	path, sess := newSession(t, "long", "universe", "scripted")
	off, err := spacetraders.StartOffline(universe.Config{Seed: 5}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	defer off.Close()
	r, err := agent.New(agent.Config{Game: off.Game, Brain: &cassetteBrain{c: longCassette()}, Session: sess,
		MaxIterations: 1 << 30, MaxSteps: steps, ApproveAll: true, SaveState: off.Save})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]bool{}
	for _, c := range checkpoints {
		want[c] = true
	}
	var points []longPoint
	prompt := map[int]int{}
	invalid := 0
	start := time.Now()
	measure := func(step int, seq uint64) {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		points = append(points, longPoint{step: step, promptChars: prompt[step], heapMB: float64(ms.HeapAlloc) / (1 << 20),
			records: seq, fileKB: st.Size() >> 10, elapsed: time.Since(start)})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	lastStep := 0
	_, err = drive(ctx, r, false, func(r *agent.Runner, ev agent.Event) {
		switch ev.Type {
		case agent.EventUsage:
			prompt[ev.Step] = ev.Usage.PromptChars
		case agent.EventStep:
			// Step n+1 starting means step n is complete and journaled.
			if want[lastStep] {
				measure(lastStep, ev.Seq-1)
			}
			lastStep = ev.Step
		case agent.EventState:
			switch ev.State {
			case agent.Stopped:
				if want[lastStep] {
					measure(lastStep, ev.Seq)
				}
			case agent.Idle:
				r.Send(agent.Command{Cmd: agent.CmdResume})
			}
		case agent.EventProposed:
			if len(ev.Call.Problems) > 0 {
				invalid++
			}
		}
	})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if lastStep != steps {
		t.Fatalf("the session stopped at step %d, want %d", lastStep, steps)
	}
	if invalid > 0 {
		t.Errorf("%d scripted calls failed validation: the script is wrong", invalid)
	}
	recs := sessionRecords(t, sess)
	f := checkJournal(t, recs, true, nil)
	if len(f.unclosed) > 0 {
		t.Errorf("calls left open: %v", f.unclosed)
	}
	for _, p := range points {
		t.Logf("step %5d: prompt %6d chars, heap %6.1f MB, journal %7d records, notebook file %7d KB, %v elapsed",
			p.step, p.promptChars, p.heapMB, p.records, p.fileKB, p.elapsed.Round(time.Millisecond))
	}
	return points
}

// TestReliabilityLongSession plays 300 steps headless and checks that the prompt stays
// bounded (the history is folded, the notes carry the state), that memory does not grow
// with the session and that the journal grows by a steady amount per step.
//
// COPLAY_LONG=1 plays 5,000 steps and reports the figures at 100, 1,000 and 5,000
// steps (docs/RELIABILITY.md).
func TestReliabilityLongSession(t *testing.T) {
	t.Parallel()
	steps, checkpoints := 300, []int{20, 100, 300}
	if os.Getenv("COPLAY_LONG") != "" {
		steps, checkpoints = 5000, []int{20, 100, 1000, 5000}
	} else if testing.Short() {
		steps, checkpoints = 120, []int{20, 60, 120}
	}
	points := runLongSession(t, steps, checkpoints)
	if len(points) != len(checkpoints) {
		t.Fatalf("measured %d checkpoints, want %d", len(points), len(checkpoints))
	}
	// From the second checkpoint on, the verbatim history window is full: the prompt
	// must stay flat from there (the folded summary has a fixed number of lines).
	second, last := points[1], points[len(points)-1]
	if float64(last.promptChars) > 1.15*float64(second.promptChars) {
		t.Errorf("prompt grew from %d chars at step %d to %d at step %d: the prompt is not bounded",
			second.promptChars, second.step, last.promptChars, last.step)
	}
	if last.heapMB > second.heapMB+64 {
		t.Errorf("live heap grew from %.1f MB at step %d to %.1f MB at step %d", second.heapMB, second.step, last.heapMB, last.step)
	}
	perStep := func(a, b longPoint) float64 { return float64(b.records-a.records) / float64(b.step-a.step) }
	early, late := perStep(points[0], second), perStep(second, last)
	if late > 1.5*early || late < early/1.5 {
		t.Errorf("journal records per step went from %.1f to %.1f: the journal does not grow steadily", early, late)
	}
}
