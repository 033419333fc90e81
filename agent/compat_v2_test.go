package agent_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/autopilot"
	"github.com/coplayhq/coplay/notes"
)

var updateV2 = flag.Bool("update-v2", false, "rewrite testdata/v2-replay.json from testdata/notebooks/v2.db")

// A notebook written by the runner before it was split into parts (testdata/notebooks/
// v2.db: 4 steps in the compact format, a session rule, advice, a trigger, notes, and
// three calls left waiting for a decision when stdin closed) replays exactly as it did
// then (agent/testdata/v2-replay.json, written by that runner), resumes (the waiting
// calls asked again with their original seq, the rule in force) and forks.
func TestNotebookBeforeThePartsReplaysResumesAndForks(t *testing.T) {
	t.Parallel()
	book, sess := agent.OpenFixture(t, "v2.db")
	info, err := sess.Info()
	if err != nil || info.Steps != 4 {
		t.Fatalf("Info() = %+v, %v; want 4 steps", info, err)
	}

	// Replay: decoded as the runner that wrote it decoded it.
	rp, err := agent.ReadReplay(sess)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(rp, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "v2-replay.json")
	if *updateV2 {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("the replay of v2.db differs from %s (run with -update-v2 only on the runner that wrote the fixture)", golden)
	}

	// Resume: the three waiting calls are put again with their seq; approved, they run.
	rec, err := sess.Recover()
	if err != nil || len(rec.Pending) != 3 {
		t.Fatalf("Recover() = %d pending, %v; want the 3 calls left waiting", len(rec.Pending), err)
	}
	state, err := sess.State()
	if err != nil || len(state) == 0 {
		t.Fatalf("State() = %d bytes, %v", len(state), err)
	}
	off := startUniverse(t, state)
	r, err := agent.New(agent.Config{Game: off.Game, Brain: autopilot.New(off.Game), Session: sess,
		MaxSteps: 1, MaxIterations: 100, SaveState: off.Save})
	if err != nil {
		t.Fatal(err)
	}
	asked, ran, sawRule := map[string]uint64{}, map[string]bool{}, false
	runToEnd(t, context.Background(), r, func(ev agent.Event) {
		switch {
		case ev.Type == agent.EventError:
			t.Errorf("step %d: %s", ev.Step, ev.Text)
		case ev.Type == agent.EventRules:
			sawRule = len(ev.Rules) == 1 && ev.Rules[0] == "allow orbit_ship"
		case ev.Type == agent.EventProposed && ev.Call.NeedsOK:
			asked[ev.Call.ID] = ev.Seq
			if err := r.Send(agent.Command{Cmd: agent.CmdDecide, CallID: ev.Call.ID, Decision: agent.Approve}); err != nil {
				t.Errorf("approve %s: %v", ev.Call.ID, err)
			}
		case ev.Type == agent.EventResult:
			ran[ev.Call.ID] = true
		}
	})
	if !sawRule {
		t.Error("the session's rule was not reported on resume")
	}
	for _, p := range rec.Pending {
		if seq, ok := asked[p.CallID]; !ok || seq != p.Seq {
			t.Errorf("pending call %s: asked again with seq %d (asked: %v), want its own seq %d", p.CallID, seq, ok, p.Seq)
		}
		if !ran[p.CallID] {
			t.Errorf("pending call %s did not run once approved", p.CallID)
		}
	}

	forkAndPlay(t, book, sess, info.Name)
}

// forkAndPlay forks session name from step 2 (the world then) and plays one step on
// the fork.
func forkAndPlay(t *testing.T, book *notes.Book, sess *notes.Session, name string) {
	t.Helper()
	child, _, err := book.Fork(notes.ForkPoint{Session: name, Step: 2}, "", "autopilot")
	if err != nil {
		t.Fatal(err)
	}
	seq, _, err := sess.StepSeq(2)
	if err != nil {
		t.Fatal(err)
	}
	then, err := sess.StateAt(seq)
	if err != nil {
		t.Fatal(err)
	}
	off2 := startUniverse(t, then)
	r2, err := agent.New(agent.Config{Game: off2.Game, Brain: autopilot.New(off2.Game), Session: child,
		ApproveAll: true, MaxSteps: 1, MaxIterations: 100, SaveState: off2.Save})
	if err != nil {
		t.Fatal(err)
	}
	steps := 0
	runToEnd(t, context.Background(), r2, func(ev agent.Event) {
		if ev.Type == agent.EventError {
			t.Errorf("fork, step %d: %s", ev.Step, ev.Text)
		}
		if ev.Type == agent.EventStep {
			steps++
			if ev.Step != 2 {
				t.Errorf("the fork's first step is %d, want 2", ev.Step)
			}
		}
	})
	if steps != 1 {
		t.Errorf("the fork played %d steps, want 1", steps)
	}
}
