package game

import (
	"testing"
	"time"
)

func TestShiftTimes(t *testing.T) {
	type leg struct {
		Arrival time.Time
		Never   time.Time
		hidden  time.Time
	}
	type world struct {
		Legs  []*leg
		ByID  map[string]leg
		Times [2]time.Time
		Any   any
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	shared := &leg{Arrival: t0, hidden: t0}
	w := &world{Legs: []*leg{shared, shared}, ByID: map[string]leg{"a": {Arrival: t0}}, Times: [2]time.Time{t0, {}}, Any: &leg{Arrival: t0}}
	ShiftTimes(w, time.Hour)
	want := t0.Add(time.Hour)
	switch {
	case !shared.Arrival.Equal(want):
		t.Errorf("a pointer's time: %v (a pointer reached twice is shifted once)", shared.Arrival)
	case !shared.Never.IsZero():
		t.Error("a zero time moved")
	case !shared.hidden.Equal(t0):
		t.Error("an unexported field moved")
	case !w.ByID["a"].Arrival.Equal(want):
		t.Errorf("a map value's time: %v", w.ByID["a"].Arrival)
	case !w.Times[0].Equal(want) || !w.Times[1].IsZero():
		t.Errorf("an array's times: %v", w.Times)
	case !w.Any.(*leg).Arrival.Equal(want):
		t.Errorf("an interface's time: %v", w.Any.(*leg).Arrival)
	}
}
