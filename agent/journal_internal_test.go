package agent

import (
	"errors"
	"testing"

	"github.com/coplayhq/coplay/notes"
)

// fakeCommitter is a Committer in memory: it numbers records from 1, or fails with err.
type fakeCommitter struct {
	batches []notes.Batch
	err     error
}

func (f *fakeCommitter) Commit(b notes.Batch) ([]notes.Record, error) {
	if f.err != nil {
		return nil, f.err
	}
	f.batches = append(f.batches, b)
	n := uint64(0)
	for _, c := range f.batches[:len(f.batches)-1] {
		n += uint64(len(c.Records))
	}
	out := make([]notes.Record, len(b.Records))
	for i, r := range b.Records {
		r.Seq = n + uint64(i) + 1
		out[i] = r
	}
	return out, nil
}

// A phase's events come back from commit with their records' seq, in order, with the
// session's bookkeeping in the same transaction; a failed commit gives back nothing and
// keeps nothing of the phase.
func TestJournalCommitsAPhaseWhole(t *testing.T) {
	t.Parallel()
	f := &fakeCommitter{}
	j := newJournal(f, 0)
	if !j.empty() {
		t.Fatal("a new journal has a phase to commit")
	}
	j.add(Event{Type: EventStep, Step: 1, Text: "step 1"})
	j.add(Event{Type: EventDecision, Step: 1, Decision: &Decision{CallID: "c1", Decision: Approve, By: "person"}})
	j.add(Event{Type: EventDecision, Step: 1, Decision: &Decision{CallID: "c3", Decision: Approve, By: "policy"}})
	j.step(1)
	j.spend(Usage{PromptTokens: 10, CompletionTokens: 2})
	if !j.personDecisionPending("c1") || j.personDecisionPending("c2") || j.personDecisionPending("c3") {
		t.Fatal("personDecisionPending does not see the person's decision on c1 alone (c3 is the policy's)")
	}
	evs, err := j.commit()
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3 || evs[0].Seq != 1 || evs[1].Seq != 2 || j.lastSeq != 3 {
		t.Fatalf("committed %+v, lastSeq %d", evs, j.lastSeq)
	}
	if b := f.batches[0]; b.Step != 1 || b.PromptTokens != 10 || len(b.Records) != 3 || b.Records[1].CallID != "c1" {
		t.Fatalf("batch %+v", b)
	}
	if !j.empty() || j.personDecisionPending("c1") {
		t.Fatal("the phase is not empty after its commit")
	}

	f.err = errors.New("no space left on device")
	j.add(Event{Type: EventText, Step: 1, Text: "lost"})
	if evs, err := j.commit(); err == nil || evs != nil {
		t.Fatalf("a failed commit gave %v, %v", evs, err)
	}
	if !j.empty() || j.lastSeq != 3 {
		t.Fatal("a failed commit kept its phase")
	}
}
