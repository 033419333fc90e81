package notes

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/coplayhq/coplay/notes/record"
)

func newSession(t testing.TB) *Session {
	t.Helper()
	b := openBook(t, tempPath(t))
	s, err := b.Create("s", "g", "m")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustAppend(t testing.TB, s *Session, r Record) Record {
	t.Helper()
	got, err := s.Append(r)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestAppendAssignsSeqAndTime(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	for i := 1; i <= 3; i++ {
		r := mustAppend(t, s, Record{Type: "text", Data: json.RawMessage(`{"text":"hi"}`)})
		if r.Seq != uint64(i) || r.Time.IsZero() {
			t.Errorf("append %d: Seq=%d Time=%v", i, r.Seq, r.Time)
		}
	}
	if _, err := s.Append(Record{}); err == nil {
		t.Error("Append without a type succeeded")
	}
	if _, err := s.Append(Record{Type: "text", Data: json.RawMessage(`{not json`)}); err == nil {
		t.Error("Append with invalid JSON data succeeded")
	}
	// A rejected record must not use up a seq.
	if r := mustAppend(t, s, Record{Type: "text"}); r.Seq != 4 {
		t.Errorf("next Seq = %d, want 4", r.Seq)
	}
}

func TestRecordsAndTail(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	fill(t, s, 1200) // more than one Records batch
	var seqs []uint64
	if err := s.Records(700, func(r Record) error { seqs = append(seqs, r.Seq); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(seqs) != 501 || seqs[0] != 700 || seqs[500] != 1200 {
		t.Fatalf("Records(700) gave %d records, %v..%v", len(seqs), seqs[0], seqs[len(seqs)-1])
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i] != seqs[i-1]+1 {
			t.Fatalf("gap between %d and %d", seqs[i-1], seqs[i])
		}
	}
	stop := errors.New("stop")
	n := 0
	if err := s.Records(0, func(Record) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("Records did not stop at fn's error: err=%v n=%d", err, n)
	}
	tail, err := s.Tail(3)
	if err != nil || len(tail) != 3 || tail[0].Seq != 1198 || tail[2].Seq != 1200 {
		t.Errorf("Tail(3) = %+v, %v", tail, err)
	}
	if all, _ := s.Tail(5000); len(all) != 1200 || all[0].Seq != 1 {
		t.Errorf("Tail(5000) gave %d records", len(all))
	}
	r, err := s.Record(42)
	if err != nil || r.Seq != 42 {
		t.Errorf("Record(42) = %+v, %v", r, err)
	}
	if _, err := s.Record(5000); !errors.Is(err, ErrNotFound) {
		t.Errorf("Record(5000): err = %v, want ErrNotFound", err)
	}
}

// TestRecoverClassifiesOpenCalls walks every state a call can be left in.
func TestRecoverClassifiesOpenCalls(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	decide := func(id, d string) Record {
		return Record{Type: record.TypeDecision, CallID: id, Data: json.RawMessage(fmt.Sprintf(`{"decision":%q,"reason":"r"}`, d))}
	}
	for _, r := range []Record{
		{Type: record.TypeProposed, CallID: "pending"},
		{Type: record.TypeProposed, CallID: "done"}, decide("done", "approve"), {Type: record.TypeResult, CallID: "done"},
		{Type: record.TypeProposed, CallID: "vetoed"}, decide("vetoed", "veto"),
		{Type: record.TypeProposed, CallID: "approved"}, decide("approved", "approve"), {Type: record.TypeToolStart, CallID: "approved"},
		{Type: record.TypeProposed, CallID: "edited"}, decide("edited", "edit"), {Type: record.TypeToolStart, CallID: "edited"},
		decide("auto", "auto"), {Type: record.TypeToolStart, CallID: "auto"}, // read tools may be decided without a proposal
		{Type: record.TypeProposed, CallID: "garbled"}, {Type: record.TypeDecision, CallID: "garbled", Data: json.RawMessage(`[1]`)},
		{Type: record.TypeToolStart, CallID: "garbled"},
		// Decided to run, but the process stopped before it started: not executed.
		{Type: record.TypeProposed, CallID: "unstarted"}, decide("unstarted", "approve"),
		{Type: record.TypeProposed, CallID: "closed"}, decide("closed", "approve"), {Type: record.TypeOutcomeUnknown, CallID: "closed"},
		{Type: record.TypeProposed, CallID: "pending2"},
	} {
		mustAppend(t, s, r)
	}
	rec, err := s.Recover()
	if err != nil {
		t.Fatal(err)
	}
	ids := func(rs []Record, typ record.Type) []string {
		var out []string
		for _, r := range rs {
			if r.Type != typ {
				t.Errorf("record %+v has type %s, want %s", r, r.Type, typ)
			}
			out = append(out, r.CallID)
		}
		return out
	}
	if got := fmt.Sprint(ids(rec.Pending, record.TypeProposed)); got != "[pending pending2]" {
		t.Errorf("Pending = %s", got)
	}
	// An unreadable decision counts as "may have run": never replay it.
	if got := fmt.Sprint(ids(rec.Unknown, record.TypeDecision)); got != "[approved edited auto garbled]" {
		t.Errorf("Unknown = %s", got)
	}
	if got := fmt.Sprint(ids(rec.NotStarted, record.TypeDecision)); got != "[unstarted]" {
		t.Errorf("NotStarted = %s", got)
	}
	calls, err := s.CallRecords("done")
	if err != nil || len(calls) != 3 || calls[0].Type != record.TypeProposed || calls[2].Type != record.TypeResult {
		t.Errorf("CallRecords(done) = %+v, %v", calls, err)
	}
	if calls, err := s.CallRecords("nope"); err != nil || len(calls) != 0 {
		t.Errorf("CallRecords(nope) = %+v, %v", calls, err)
	}
	// Deciding the pending call and finishing the unknown ones empties the recovery.
	mustAppend(t, s, decide("pending", "veto"))
	mustAppend(t, s, decide("pending2", "approve"))
	for _, id := range []string{"approved", "edited", "auto", "garbled", "unstarted"} {
		mustAppend(t, s, Record{Type: record.TypeOutcomeUnknown, CallID: id})
	}
	mustAppend(t, s, Record{Type: record.TypeResult, CallID: "pending2"})
	if rec, _ := s.Recover(); len(rec.Pending)+len(rec.Unknown)+len(rec.NotStarted) != 0 {
		t.Errorf("after closing every call, Recover() = %+v", rec)
	}
	if info, _ := s.Info(); info.Calls != 2 {
		t.Errorf("Calls = %d, want 2 (one per tool_result)", info.Calls)
	}
}
