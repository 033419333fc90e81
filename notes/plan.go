package notes

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Status is the state of one plan step.
type Status string

// The statuses a plan step can have.
const (
	StatusTodo    Status = "todo"
	StatusDoing   Status = "doing"
	StatusDone    Status = "done"
	StatusDropped Status = "dropped"
)

// Statuses lists the valid statuses in their natural order.
var Statuses = []Status{StatusTodo, StatusDoing, StatusDone, StatusDropped}

// Valid reports whether s is one of the four statuses.
func (s Status) Valid() bool {
	for _, v := range Statuses {
		if s == v {
			return true
		}
	}
	return false
}

// PlanStep is one step of the plan.
type PlanStep struct {
	ID     int    `json:"id"`
	Text   string `json:"text"`
	Status Status `json:"status"`
}

// planVersion is one stored version of the plan.
type planVersion struct {
	Steps []PlanStep `json:"steps"`
	Step  int        `json:"step"` // the agent step that wrote it
	Time  time.Time  `json:"time"`
}

func badStatus(s Status) error {
	return fmt.Errorf("notes: plan status %q is not one of todo, doing, done, dropped", s)
}

// Plan returns the current plan (empty when none was set).
func (s *Session) Plan() ([]PlanStep, error) {
	s.staged.mu.Lock()
	defer s.staged.mu.Unlock()
	if steps, ok := s.stagedPlan(); ok {
		return steps, nil
	}
	return s.storedPlan()
}

// storedPlan reads the latest plan written to the file.
func (s *Session) storedPlan() ([]PlanStep, error) {
	var steps []PlanStep
	err := s.view(func(sb *bolt.Bucket) error {
		v, err := latestPlan(sb)
		steps = v.Steps
		return err
	})
	return steps, err
}

func latestPlan(sb *bolt.Bucket) (planVersion, error) {
	var pv planVersion
	v, _, ok, err := latestVersion(sb.Bucket(bucketPlan), legacyPlan)
	if err != nil || !ok {
		return pv, planErr(err)
	}
	pv.Step, pv.Time = v.Step, v.Time
	if err := json.Unmarshal(v.Text, &pv.Steps); err != nil {
		return pv, planErr(fmt.Errorf("%w: %w", ErrCorrupt, err))
	}
	return pv, nil
}

func planErr(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("notes: plan %w", err)
}

// legacyPlan reads a plan version stored whole as JSON (format 1).
var legacyPlan = jsonVersion(func(p planVersion) ([]byte, int, time.Time) {
	text, _ := json.Marshal(p.Steps)
	return text, p.Step, p.Time
})

// SetPlan replaces the plan with steps, numbering them 1..n. An empty
// status means todo; an empty text or unknown status is an error.
func (s *Session) SetPlan(steps []PlanStep, step int) ([]PlanStep, error) {
	out := make([]PlanStep, len(steps))
	for i, st := range steps {
		if i >= MaxPlanSteps {
			return nil, fmt.Errorf("notes: the plan has %d steps; at most %d are kept", len(steps), MaxPlanSteps)
		}
		if len(st.Text) > MaxPlanStepText {
			return nil, fmt.Errorf("notes: plan step %d is %d bytes; at most %d are kept", i+1, len(st.Text), MaxPlanStepText)
		}
		st.ID = i + 1
		st.Text = strings.TrimSpace(st.Text)
		if st.Text == "" {
			return nil, fmt.Errorf("notes: plan step %d has no text", st.ID)
		}
		if st.Status == "" {
			st.Status = StatusTodo
		}
		if !st.Status.Valid() {
			return nil, fmt.Errorf("plan step %d: %w", st.ID, badStatus(st.Status))
		}
		st.Text = s.book.scrubString(st.Text)
		out[i] = st
	}
	s.staged.mu.Lock()
	defer s.staged.mu.Unlock()
	if s.deferring() {
		s.staged.plans = append(s.staged.plans, planStaged{steps: out, step: step})
		return out, nil
	}
	return out, s.update(func(sb *bolt.Bucket) error { return s.putPlan(sb, out, step) })
}

// UpdateStep changes the status of plan step id, and its text unless text
// is "". An unknown id is an error naming the valid ones.
func (s *Session) UpdateStep(id int, status Status, text string, step int) ([]PlanStep, error) {
	if !status.Valid() {
		return nil, badStatus(status)
	}
	s.staged.mu.Lock()
	defer s.staged.mu.Unlock()
	if s.deferring() {
		cur, ok := s.stagedPlan()
		if !ok {
			var err error
			if cur, err = s.storedPlan(); err != nil {
				return nil, err
			}
		}
		out, err := s.editStep(cur, id, status, text)
		if err != nil {
			return nil, err
		}
		s.staged.plans = append(s.staged.plans, planStaged{steps: out, step: step})
		return out, nil
	}
	var out []PlanStep
	err := s.update(func(sb *bolt.Bucket) error {
		cur, err := latestPlan(sb)
		if err != nil {
			return err
		}
		if out, err = s.editStep(cur.Steps, id, status, text); err != nil {
			return err
		}
		return s.putPlan(sb, out, step)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// editStep returns plan with step id set to status (and reworded, unless text is "").
func (s *Session) editStep(plan []PlanStep, id int, status Status, text string) ([]PlanStep, error) {
	if len(plan) == 0 {
		return nil, errors.New("notes: the plan is empty; set a plan first")
	}
	if id < 1 || id > len(plan) {
		return nil, fmt.Errorf("notes: the plan has no step %d; valid ids are 1 to %d", id, len(plan))
	}
	if len(text) > MaxPlanStepText {
		return nil, fmt.Errorf("notes: plan step text is %d bytes; at most %d are kept", len(text), MaxPlanStepText)
	}
	out := append([]PlanStep(nil), plan...)
	out[id-1].Status = status
	if t := strings.TrimSpace(text); t != "" {
		out[id-1].Text = s.book.scrubString(t)
	}
	return out, nil
}

func (s *Session) putPlan(sb *bolt.Bucket, steps []PlanStep, step int) error {
	pb := sb.Bucket(bucketPlan)
	cur, _, ok, err := latestVersion(pb, legacyPlan)
	if err != nil {
		return planErr(err)
	}
	var prev []byte
	if ok {
		prev = cur.Text
	}
	seq, err := pb.NextSequence()
	if err != nil {
		return err
	}
	text, err := json.Marshal(steps)
	if err != nil {
		return err
	}
	if err := putVersion(pb, seq, textVersion{Text: text, Step: step, Time: s.book.now()}, prev); err != nil {
		return err
	}
	return s.editInfo(sb, nil)
}
