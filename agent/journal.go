package agent

import "github.com/coplayhq/coplay/notes"

// Committer is where the journal's phases go, one transaction each: the records in
// order, with the session's bookkeeping that goes with them (step, game state, spend,
// loaded tools). It returns the records as written, with their seq. *notes.Session
// satisfies it; tests use a fake.
type Committer interface {
	Commit(notes.Batch) ([]notes.Record, error)
}

var _ Committer = (*notes.Session)(nil)

// journal is the phase being built: its events, encoded to records when the phase is
// committed, and the session's bookkeeping that goes with them. It never sends an
// event: commit hands the committed events back, with their seq, and the Runner sends
// them (emit.go). Owned by the Run goroutine.
type journal struct {
	to      Committer
	pend    []Event
	out     notes.Batch
	enc     recorder // what the encoder remembers (record.go)
	lastSeq uint64   // the seq of the last record committed
}

func newJournal(to Committer, lastSeq uint64) *journal {
	return &journal{to: to, lastSeq: lastSeq}
}

// add puts ev in the phase.
func (j *journal) add(ev Event) { j.pend = append(j.pend, ev) }

// empty reports whether the phase has nothing to commit.
func (j *journal) empty() bool {
	o := &j.out
	return len(j.pend) == 0 && o.Step == 0 && o.State == nil && o.PromptTokens == 0 &&
		o.CompletionTokens == 0 && o.Cost == 0 && o.LoadedTools == nil
}

// pending reports whether the phase holds events not yet committed.
func (j *journal) pending() bool { return len(j.pend) > 0 }

// commit encodes the phase's events and commits them with its bookkeeping in one
// transaction, and returns the events with their records' seq. On an error nothing of
// the phase is kept: its events are not in the journal, so nobody may see them.
func (j *journal) commit() ([]Event, error) {
	b := j.out
	b.Records = b.Records[:0]
	for i := range j.pend {
		rec, err := j.enc.encode(&j.pend[i])
		if err != nil {
			j.drop()
			return nil, err
		}
		b.Records = append(b.Records, rec)
	}
	got, err := j.to.Commit(b)
	if err != nil {
		j.drop()
		return nil, err
	}
	j.out = notes.Batch{Records: b.Records[:0]}
	evs := make([]Event, len(j.pend))
	for i, ev := range j.pend {
		ev.Seq = got[i].Seq
		j.lastSeq = ev.Seq
		evs[i] = ev
	}
	clear(j.pend)
	j.pend = j.pend[:0]
	return evs, nil
}

// drop forgets the phase.
func (j *journal) drop() {
	j.pend = j.pend[:0]
	j.out = notes.Batch{}
}

// personDecisionPending reports whether a person's decision on a call is in the phase
// not yet committed. A rule's or the policy's is not a person's: lost in a crash with
// the proposal it decided (they share the phase), it is made again when the model is
// asked again.
func (j *journal) personDecisionPending(callID string) bool {
	for i := range j.pend {
		if ev := &j.pend[i]; ev.Type == EventDecision && ev.Decision != nil && ev.Decision.CallID == callID {
			return ev.Decision.By == ByPerson
		}
	}
	return false
}

// spend adds a model call's usage to the session's totals, committed with the phase.
func (j *journal) spend(u Usage) {
	j.out.PromptTokens += int64(u.PromptTokens)
	j.out.CompletionTokens += int64(u.CompletionTokens)
	j.out.CachedTokens += int64(u.CachedTokens)
	j.out.Cost += u.Cost
}

// step, state and loaded set the session's step number, the game's state and the tools
// loaded for the model, committed with the phase they belong to.
func (j *journal) step(n int)            { j.out.Step = n }
func (j *journal) state(data []byte)     { j.out.State = data }
func (j *journal) loaded(tools []string) { j.out.LoadedTools = tools }
