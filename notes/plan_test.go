package notes

import (
	"strings"
	"testing"
)

func TestPlan(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	if p, err := s.Plan(); err != nil || len(p) != 0 {
		t.Fatalf("fresh Plan() = %+v, %v", p, err)
	}
	if _, err := s.UpdateStep(1, StatusDone, "", 1); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("UpdateStep on an empty plan: err = %v", err)
	}
	p, err := s.SetPlan([]PlanStep{{ID: 9, Text: " buy fuel "}, {Text: "sell ore", Status: StatusDoing}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if p[0].ID != 1 || p[1].ID != 2 || p[0].Status != StatusTodo || p[0].Text != "buy fuel" {
		t.Errorf("SetPlan() = %+v", p)
	}
	if _, err := s.SetPlan([]PlanStep{{Text: "x", Status: "maybe"}}, 1); err == nil || !strings.Contains(err.Error(), "todo, doing, done, dropped") {
		t.Errorf("bad status: err = %v", err)
	}
	if _, err := s.SetPlan([]PlanStep{{Text: "  "}}, 1); err == nil {
		t.Error("empty step text accepted")
	}
	p, err = s.UpdateStep(2, StatusDone, "", 2)
	if err != nil || p[1].Status != StatusDone || p[1].Text != "sell ore" {
		t.Errorf("UpdateStep(2, done) = %+v, %v", p, err)
	}
	p, err = s.UpdateStep(1, StatusDropped, "buy cheaper fuel", 2)
	if err != nil || p[0].Text != "buy cheaper fuel" || p[0].Status != StatusDropped {
		t.Errorf("UpdateStep(1, dropped, text) = %+v, %v", p, err)
	}
	if _, err := s.UpdateStep(3, StatusDone, "", 2); err == nil || !strings.Contains(err.Error(), "valid ids are 1 to 2") {
		t.Errorf("unknown id: err = %v", err)
	}
	if _, err := s.UpdateStep(1, "finished", "", 2); err == nil {
		t.Error("bad status accepted")
	}
	got, _ := s.Plan()
	if len(got) != 2 || got[0].Status != StatusDropped || got[1].Status != StatusDone {
		t.Errorf("Plan() after updates = %+v", got)
	}
}
