package cli

import (
	"fmt"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/league"
	"github.com/coplayhq/coplay/notes"
	"github.com/coplayhq/coplay/ui"
)

// The replay of a league (coplay sessions replay LEAGUE): every seat's session read
// back step by step (agent.ReadReplay) and put on one timeline, ordered by the time each
// step began. Each step's events carry their seat (Event.Seat) and the ids the person
// answers are SEAT/ID, as in the league's live event stream, so that two seats' call_1
// stay apart; each step's Spend is its own seat's, from that seat's start.

// seatStep is one line of `sessions replay --json`: a step and the seat it belongs to
// (omitted for a session that is no league's seat, so its lines are as they were).
type seatStep struct {
	Seat string `json:"seat,omitempty"`
	*agent.ReplayStep
}

// readLeagueReplay reads every seat of the league named name and merges their steps
// into one Replay, whose Info is the league's totals (leagueTotals).
func readLeagueReplay(book *notes.Book, name string) (*replayed, error) {
	sessions, err := book.League(name)
	if err != nil {
		return nil, err
	}
	var (
		each  []*agent.Replay
		infos []notes.SessionInfo
	)
	for _, s := range sessions {
		one, err := agent.ReadReplay(s)
		if err != nil {
			return nil, fmt.Errorf("reading session %s: %w", s.Name(), err)
		}
		seatReplay(one)
		each, infos = append(each, one), append(infos, one.Info)
	}
	rp := &replayed{Replay: &agent.Replay{Info: leagueTotals(name, infos)}}
	for _, info := range infos {
		rp.seats = append(rp.seats, ui.SeatInfo{Name: info.Seat, Model: info.Model})
	}
	for _, one := range each {
		rp.Before = append(rp.Before, one.Before...)
	}
	// A merge of the seats' timelines, each already in order: the earliest next step
	// first, the first seat's on a tie, so each seat's steps keep their order whatever
	// the clocks say.
	next := make([]int, len(each))
	for {
		pick := -1
		for i, one := range each {
			if next[i] < len(one.Steps) && (pick < 0 || one.Steps[next[i]].Time.Before(each[pick].Steps[next[pick]].Time)) {
				pick = i
			}
		}
		if pick < 0 {
			return rp, nil
		}
		rp.Steps = append(rp.Steps, each[pick].Steps[next[pick]])
		rp.stepSeats = append(rp.stepSeats, each[pick].Info.Seat)
		next[pick]++
	}
}

// seatReplay makes a seat's replay as the league's: every event stamped with the seat,
// and every id the person answers, in the events and the steps' calls, SEAT/ID.
func seatReplay(rp *agent.Replay) {
	seat := rp.Info.Seat
	for i := range rp.Before {
		rp.Before[i] = league.Stamp(seat, rp.Before[i])
	}
	for i := range rp.Steps {
		st := &rp.Steps[i]
		for j := range st.Events {
			st.Events[j] = league.Stamp(seat, st.Events[j])
		}
		for j := range st.Calls {
			c := &st.Calls[j]
			c.ID = seatID(seat, c.ID)
			if c.Decision != nil {
				d := *c.Decision
				d.CallID = seatID(seat, d.CallID)
				c.Decision = &d
			}
		}
	}
}

// seatID is id as the league names it (league.Stamp), SEAT/ID ("" stays "": no call).
func seatID(seat, id string) string {
	if id == "" {
		return ""
	}
	return seat + "/" + id
}
