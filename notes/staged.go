package notes

import (
	"sync"

	bolt "go.etcd.io/bbolt"
)

// staging holds notebook edits made while a session defers them (DeferEdits): they are
// checked and applied in memory at once, read back by Notes and Plan, and written with
// the next Commit, in its transaction. A runner's note tools then cost no commit of
// their own: the fsync that makes the step's journal durable makes them durable too.
type staging struct {
	mu    sync.Mutex
	on    bool
	notes []Notes      // versions to write, in order
	plans []planStaged // plan versions to write, in order
}

type planStaged struct {
	steps []PlanStep
	step  int
}

// DeferEdits makes the session's note and plan edits (SetNotes, UpdateSection, SetPlan,
// UpdateStep) wait for the next Commit: each is checked and returned at once, Notes and
// Plan read it back, and Commit writes every edit made since the last one, each as its
// own version, in the same transaction as its records. An edit is therefore durable
// exactly when the journal records about it are. Only the session's single writer (the
// runner) should use it.
func (s *Session) DeferEdits() {
	s.staged.mu.Lock()
	s.staged.on = true
	s.staged.mu.Unlock()
}

// deferring reports whether edits wait for Commit; the caller holds s.staged.mu.
func (s *Session) deferring() bool { return s.staged.on }

// stagedNotes returns the latest staged notes version, if any; the caller holds the lock.
func (s *Session) stagedNotes() (Notes, bool) {
	if n := len(s.staged.notes); n > 0 {
		return s.staged.notes[n-1], true
	}
	return Notes{}, false
}

// stagedPlan returns the latest staged plan, if any; the caller holds the lock.
func (s *Session) stagedPlan() ([]PlanStep, bool) {
	if n := len(s.staged.plans); n > 0 {
		return append([]PlanStep(nil), s.staged.plans[n-1].steps...), true
	}
	return nil, false
}

// writeStaged writes the staged edits inside Commit's transaction.
func (s *Session) writeStaged(sb *bolt.Bucket) error {
	for _, n := range s.staged.notes {
		if err := s.putNotes(sb, n); err != nil {
			return err
		}
	}
	for _, p := range s.staged.plans {
		if err := s.putPlan(sb, p.steps, p.step); err != nil {
			return err
		}
	}
	return nil
}

// clearStaged forgets the staged edits once Commit has written them.
func (s *Session) clearStaged() {
	s.staged.notes, s.staged.plans = nil, nil
}
