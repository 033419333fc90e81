package autopilot

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game/spacetraders"
	"github.com/coplayhq/coplay/game/universe"
	"github.com/coplayhq/coplay/notes"
)

// playResult is what one end-to-end play measured.
type playResult struct {
	steps, calls int
	elapsed      time.Duration
	before       int64
	after        int64
	fulfilled    bool
	invalid      []string // proposed calls that failed schema validation
	log          []string
}

// offlineSession starts a fresh offline universe (seed, speed 400) and a new notebook
// with one session, name, for the autopilot to play it in; both close when the test
// ends.
func offlineSession(tb testing.TB, seed int64, name string) (*spacetraders.Offline, *notes.Session) {
	tb.Helper()
	off, err := spacetraders.StartOffline(universe.Config{Seed: seed, Speed: 400}, nil, "")
	if err != nil {
		tb.Fatalf("StartOffline: %v", err)
	}
	tb.Cleanup(func() { off.Close() })
	book, err := notes.Open(filepath.Join(tb.TempDir(), "coplay.db"), nil)
	if err != nil {
		tb.Fatalf("notes.Open: %v", err)
	}
	tb.Cleanup(func() { book.Close() })
	sess, err := book.Create(name, "universe", "autopilot")
	if err != nil {
		tb.Fatalf("Book.Create: %v", err)
	}
	return off, sess
}

// playContract runs the autopilot headless with every call approved against a fresh
// offline universe, until the starting contract is fulfilled, the step cap, or the wall
// time limit.
func playContract(tb testing.TB, seed int64, maxSteps int, limit time.Duration) playResult {
	tb.Helper()
	off, sess := offlineSession(tb, seed, "autopilot-test")
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	client := off.Game.Client()
	a, err := client.Agent(ctx)
	if err != nil {
		tb.Fatalf("reading the agent: %v", err)
	}
	res := playResult{before: a.Credits}

	r, err := agent.New(agent.Config{Game: off.Game, Brain: New(off.Game), Session: sess,
		ApproveAll: true, MaxSteps: maxSteps, MaxIterations: maxSteps})
	if err != nil {
		tb.Fatalf("agent.New: %v", err)
	}
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	for ev := range r.Events() {
		switch ev.Type {
		case agent.EventStep:
			res.steps = ev.Step
		case agent.EventProposed:
			if len(ev.Call.Problems) > 0 {
				res.invalid = append(res.invalid, fmt.Sprintf("%s %s: %v", ev.Call.Tool, ev.Call.Args, ev.Call.Problems))
			}
		case agent.EventText:
			res.log = append(res.log, ev.Text)
		case agent.EventError:
			res.log = append(res.log, "ERROR "+ev.Text)
		case agent.EventResult:
			res.calls++
			if ev.Call.Tool == spacetraders.ToolFulfillContract && ev.Result.OK() {
				res.fulfilled = true
				r.Send(agent.Command{Cmd: agent.CmdStop})
			}
		case agent.EventState:
			if ev.State == agent.Idle {
				res.log = append(res.log, "IDLE "+ev.Text)
				cancel() // the autopilot must never leave the runner waiting for a person here
			}
		}
	}
	<-done
	res.elapsed = time.Since(start)
	a, err = client.Agent(context.Background())
	if err != nil {
		tb.Fatalf("reading the agent after play: %v", err)
	}
	res.after = a.Credits
	ks, err := client.Contracts(context.Background())
	if err != nil {
		tb.Fatalf("reading contracts after play: %v", err)
	}
	res.fulfilled = len(ks) > 0 && ks[0].Fulfilled
	return res
}

func TestAutopilotFulfilsStartingContract(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays a whole contract against the offline universe")
	}
	for _, seed := range []int64{1, 7} {
		res := playContract(t, seed, 300, 40*time.Second)
		if !res.fulfilled {
			t.Fatalf("seed %d: starting contract not fulfilled after %d steps, %s; log tail:\n%s",
				seed, res.steps, res.elapsed.Round(time.Millisecond), tail(res.log, 15))
		}
		if len(res.invalid) > 0 {
			t.Errorf("seed %d: calls that do not match the tools' schemas:\n%s", seed, strings.Join(res.invalid, "\n"))
		}
		if res.after <= res.before {
			t.Errorf("seed %d: credits went from %d to %d, want higher", seed, res.before, res.after)
		}
		t.Logf("seed %d: contract fulfilled in %d steps (%d calls), %s; credits %d → %d",
			seed, res.steps, res.calls, res.elapsed.Round(time.Millisecond), res.before, res.after)
	}
}

// Advice sent to a running autopilot reaches it in the runner's own step input (not a
// hand-written message): the notes' Advice section holds it and the preference is read.
func TestAdviceThroughTheRunner(t *testing.T) {
	t.Parallel()
	off, sess := offlineSession(t, 3, "advice")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b := New(off.Game)
	r, err := agent.New(agent.Config{Game: off.Game, Brain: b, Session: sess, ApproveAll: true, MaxSteps: 6, MaxIterations: 100})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Send(agent.Command{Cmd: agent.CmdAdvise, Text: "don't buy the ore, mine it"}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	var advice string
	for ev := range r.Events() {
		if ev.Type == agent.EventNotes && ev.Notes != nil && strings.Contains(ev.Notes.Text, "don't buy the ore, mine it") {
			advice = ev.Notes.Text
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if advice == "" {
		t.Fatal("the advice never reached the notes: the autopilot did not read the runner's step input")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.mem.preferMine {
		t.Error("the advice was not read as a preference for mining")
	}
}

func tail(lines []string, n int) string {
	return strings.Join(lines[max(0, len(lines)-n):], "\n---\n")
}
