package ui

import "github.com/coplayhq/coplay/agent"

// The replay of a league (coplay sessions replay LEAGUE): its steps are every seat's, on
// one timeline; these say which seat a step is, move between seats, and draw the seat bar
// as it stood at the selected step.

// seat is the seat of the selected step: "" unless this is a league's replay.
func (r *ReplayModel) seat() string {
	if r.idx < 0 {
		return ""
	}
	return stepSeat(&r.rp.Steps[r.idx])
}

// stepSeat is the seat a step belongs to, which its events carry ("" for a session
// that is no league's).
func stepSeat(s *agent.ReplayStep) string {
	if len(s.Events) == 0 {
		return ""
	}
	return s.Events[0].Seat
}

// stepIndex is the index of step n, or of the last step before it: of the selected
// seat's steps in a league's replay (where each seat counts its own steps).
func (r *ReplayModel) stepIndex(n int) int {
	seat := r.seat()
	if seat == "" {
		return r.rp.StepIndex(n)
	}
	at := -1
	for i := range r.rp.Steps {
		if s := &r.rp.Steps[i]; stepSeat(s) == seat && (at < 0 || s.Step <= n) {
			at = i // the seat's first step, then each of its steps up to n
		}
	}
	return at
}

// nextSeat selects the next seat's step at this point of the timeline.
func (r *ReplayModel) nextSeat() {
	s := &r.m.seats
	next := s.list[(max(s.index(r.seat()), 0)+1)%len(s.list)].Name
	at := r.seatStepAt(next)
	if at < 0 {
		r.hint = next + " played no step"
		return
	}
	r.idx = at
	r.rebuild()
}

// seatStepAt is the index of seat's step at this point of the timeline: its last step
// up to the one selected, else its first; -1 when it has none.
func (r *ReplayModel) seatStepAt(seat string) int {
	at := -1
	for i := range r.rp.Steps {
		if stepSeat(&r.rp.Steps[i]) == seat && (at < 0 || i <= r.idx) {
			at = i
		}
	}
	return at
}

// forkStep is the step a fork at the selected step starts from: that step, or in a
// league the first seat's step at this point (--fork LEAGUE@STEP counts the first
// seat's steps).
func (r *ReplayModel) forkStep() int {
	if !r.m.seats.on() {
		return r.Selected()
	}
	if at := r.seatStepAt(r.m.seats.list[0].Name); at >= 0 {
		return r.rp.Steps[at].Step
	}
	return 1
}

// seatBar is the league's seat bar as it stood at the selected step, the fullest that
// fits, without the live screen's keys (here the step moves, and the seat with it).
func (r *ReplayModel) seatBar(w int) string {
	s := &r.m.seats
	level := barLevels - 1
	for l := range barLevels {
		if s.barWidth(r.m, l) <= w {
			level = l
			break
		}
	}
	return padLine(s.barAt(r.m, level), w)
}
