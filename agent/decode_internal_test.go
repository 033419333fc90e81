package agent

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/notes"
	"github.com/coplayhq/coplay/notes/record"
)

// journalWith is a session whose journal holds recs.
func journalWith(t *testing.T, recs ...notes.Record) *notes.Session {
	t.Helper()
	book, err := notes.Open(filepath.Join(t.TempDir(), "coplay.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { book.Close() })
	s, err := book.Create("s", "grid", "script")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(notes.Batch{Records: recs}); err != nil {
		t.Fatal(err)
	}
	return s
}

// A step whose result cannot be read (its result is not a game result), after a step
// whose observation is written as changes to one the journal does not hold.
func damagedSteps() []notes.Record {
	data := func(s string) json.RawMessage { return json.RawMessage(s) }
	return []notes.Record{
		{Type: record.TypeStep, Step: 1},
		{Type: record.TypeObservation, Step: 1, Data: data(`{"observation":{"same":["summary","metrics","timers","map"]}}`)},
		{Type: record.TypeText, Step: 1, Data: data(`{"text":"going north"}`)},
		{Type: record.TypeStep, Step: 2},
		{Type: record.TypeProposed, Step: 2, CallID: "c1", Data: data(`{"call":{"tool":"move","args":{"dir":"north"}}}`)},
		{Type: record.TypeDecision, Step: 2, CallID: "c1", Data: data(`{"decision":"approve","by":"person"}`)},
		{Type: record.TypeToolStart, Step: 2, CallID: "c1"},
		{Type: record.TypeResult, Step: 2, CallID: "c1", Data: data(`{"result":{"output":"moved","error":"not a game error"}}`)},
	}
}

// ReadReplay reads a whole journal: a record it cannot read is an error naming it, not
// a step silently missing its call's result.
func TestReplayNamesTheRecordItCannotRead(t *testing.T) {
	t.Parallel()
	s := journalWith(t, damagedSteps()...)
	_, err := ReadReplay(s)
	if err == nil || !strings.Contains(err.Error(), "journal record 2 (observation)") || !errors.Is(err, record.ErrNoBase) {
		t.Errorf("ReadReplay of an observation without its base: %v", err)
	}
	s = journalWith(t, damagedSteps()[3:]...)
	if _, err := ReadReplay(s); err == nil || !strings.Contains(err.Error(), "journal record 5 (tool_result): result:") {
		t.Errorf("ReadReplay of an unreadable result: %v", err)
	}
}

// The log of a resumed screen and the model's history read the journal's tail: an
// observation written against one before the tail is skipped silently (that is what a
// tail is), an unreadable record is left out and the person told which.
func TestTailReadersTellWhatTheyLeaveOut(t *testing.T) {
	t.Parallel()
	s := journalWith(t, damagedSteps()...)
	evs, err := RecentEvents(s, 100)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, ev := range evs {
		types = append(types, string(ev.Type))
	}
	if got := strings.Join(types, ","); got != "step,text,step,tool_proposed,decision,tool_started,error" {
		t.Errorf("the log holds %s", got)
	}
	last := evs[len(evs)-1]
	if !strings.Contains(last.Text, "1 journal record cannot be read (journal record 8 (tool_result)") || !strings.HasSuffix(last.Text, "; left out of the log") {
		t.Errorf("the log says %q", last.Text)
	}

	steps, _, told := rebuildHistory(s, 8)
	if len(told) != 1 || !strings.Contains(told[0].Text, "journal record 8 (tool_result)") || !strings.HasSuffix(told[0].Text, "; left out of the model's history") {
		t.Errorf("resuming told %+v", told)
	}
	if len(steps) != 1 || steps[0].n != 1 || steps[0].text != "going north" {
		t.Errorf("the history rebuilt = %+v; want step 1's words (step 2's call has no readable ending)", steps)
	}
}
