package agent_test

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/autopilot"
	"github.com/coplayhq/coplay/notes"
)

// A notebook written by the release before the compact format (testdata/notebooks/v1.db:
// 4 autopilot steps, 132 records) opens, shows its log, resumes (the universe from its
// saved state, the conversation rebuilt from its journal) and exports, with its old
// records read as they are and the new ones appended in the new format.
func TestNotebookOfTheLastReleaseOpensResumesAndExports(t *testing.T) {
	t.Parallel()
	_, sess := agent.OpenFixture(t, "v1.db")
	info, err := sess.Info()
	if err != nil || info.Records != 132 || info.Steps != 4 {
		t.Fatalf("Info() = %+v, %v; want 132 records over 4 steps", info, err)
	}
	var before []notes.Record
	if err := sess.Records(1, func(r notes.Record) error { before = append(before, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if rec, err := sess.Recover(); err != nil || len(rec.Pending)+len(rec.Unknown)+len(rec.NotStarted) != 0 {
		t.Fatalf("Recover() = %+v, %v; the run ended cleanly", rec, err)
	}
	evs, err := agent.RecentEvents(sess, 200)
	if err != nil || len(evs) < 100 {
		t.Fatalf("RecentEvents = %d events, %v", len(evs), err)
	}
	results := 0
	for _, ev := range evs {
		if ev.Type == agent.EventResult {
			results++
			if ev.Call == nil || ev.Call.Tool == "" || ev.Result == nil {
				t.Fatalf("a result without its call: %+v", ev)
			}
		}
		if ev.Type == agent.EventObservation && (ev.Observation == nil || ev.Observation.Summary == "") {
			t.Fatalf("an observation without its summary: %+v", ev)
		}
	}
	if results == 0 {
		t.Fatal("no results in the log")
	}

	// Resume: the universe from the saved state, two more autopilot steps.
	state, err := sess.State()
	if err != nil || len(state) == 0 {
		t.Fatalf("State() = %d bytes, %v", len(state), err)
	}
	off := startUniverse(t, state)
	b := &recordingBrain{Brain: autopilot.New(off.Game)}
	r, err := agent.New(agent.Config{Game: off.Game, Brain: b, Session: sess,
		ApproveAll: true, MaxSteps: 2, MaxIterations: 100, SaveState: off.Save})
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(t, context.Background(), r, func(ev agent.Event) {
		if ev.Type == agent.EventError {
			t.Errorf("step %d: %s", ev.Step, ev.Text)
		}
	})
	// The first request carries the conversation rebuilt from the old journal.
	if len(b.reqs) == 0 {
		t.Fatal("the brain was never asked")
	}
	rebuilt := 0
	for _, m := range b.reqs[0].Messages {
		if m.Role == agent.RoleTool {
			rebuilt++
		}
	}
	if rebuilt == 0 {
		t.Fatal("the resumed prompt has no tool results from the old journal")
	}

	var after []notes.Record
	if err := sess.Records(1, func(r notes.Record) error { after = append(after, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(after) <= len(before) {
		t.Fatalf("the resumed run journaled nothing: %d records", len(after))
	}
	for i := range before {
		if !reflect.DeepEqual(before[i], after[i]) {
			t.Fatalf("old record %d changed on resume:\n%+v\n%+v", before[i].Seq, before[i], after[i])
		}
	}
	var out bytes.Buffer
	if err := sess.Export(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### Step 4 ·", "### Step 6 ·", "navigate_ship", "policy ×"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the export lacks %q", want)
		}
	}
}

// recordingBrain remembers the requests it was given.
type recordingBrain struct {
	agent.Brain
	reqs []agent.Request
}

func (b *recordingBrain) Next(ctx context.Context, req agent.Request) (agent.Reply, error) {
	b.reqs = append(b.reqs, req)
	return b.Brain.Next(ctx, req)
}
