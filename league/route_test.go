package league

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
)

func twoSeats() *League {
	return &League{name: "l", seats: []Seat{{Name: "Heron"}, {Name: "Finch"}}}
}

func TestRouteByCallID(t *testing.T) {
	l := twoSeats()
	got, err := l.Route(agent.Command{Cmd: agent.CmdDecide, CallID: "Finch/call_7", Decision: agent.Approve})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Name != "Finch" || got[0].Command.CallID != "call_7" || got[0].Command.Seat != "Finch" {
		t.Fatalf("routed to %+v, want Finch with call_7", got)
	}
	// An answer names its question by id, with the seat before it.
	got, err = l.Route(agent.Command{Cmd: agent.CmdAnswer, ID: "Heron/q1", Action: "accept"})
	if err != nil || got[0].Name != "Heron" || got[0].Command.ID != "q1" {
		t.Fatalf("answer routed to %+v (%v), want Heron's q1", got, err)
	}
}

func TestRouteRefusals(t *testing.T) {
	l := twoSeats()
	for _, tc := range []struct {
		c    agent.Command
		want string
	}{
		{agent.Command{Cmd: agent.CmdDecide, CallID: "call_7", Decision: agent.Approve}, `names no seat`},
		{agent.Command{Cmd: agent.CmdDecide, CallID: "Finch/call_7", Seat: "Heron", Decision: agent.Approve}, `a call of seat "Finch", not of seat "Heron"`},
		{agent.Command{Cmd: agent.CmdDecide, CallID: "Wren/call_7", Decision: agent.Approve}, `no seat "Wren" in this league (seats: Heron, Finch)`},
		{agent.Command{Cmd: agent.CmdAdvise, Text: "go"}, `name the seat it is for`},
		{agent.Command{Cmd: agent.CmdKeepPlaying, On: true}, `name the seat it is for`},
		{agent.Command{Cmd: agent.CmdAdvise, Text: "go", Seat: "Lark"}, `no seat "Lark"`},
		// Seats match exactly: another spelling of a seat is no seat.
		{agent.Command{Cmd: agent.CmdDecide, CallID: "heron/call_7", Decision: agent.Approve}, `no seat "heron"`},
		{agent.Command{Cmd: agent.CmdAnswer, ID: "HERON/q1", Action: "accept"}, `no seat "HERON"`},
		{agent.Command{Cmd: agent.CmdPause, Seat: "finch"}, `no seat "finch"`},
		{agent.Command{Cmd: agent.CmdDecide, CallID: "Finch/call_7", Seat: "finch", Decision: agent.Approve}, `a call of seat "Finch", not of seat "finch"`},
	} {
		if _, err := l.Route(tc.c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want an error with %q", tc.c, err, tc.want)
		}
	}
}

func TestRouteWithoutSeatIsForEverySeat(t *testing.T) {
	l := twoSeats()
	for _, cmd := range []agent.CommandType{agent.CmdPause, agent.CmdResume, agent.CmdStop, agent.CmdRule} {
		got, err := l.Route(agent.Command{Cmd: cmd, Rule: "allow work"})
		if err != nil || len(got) != 2 {
			t.Fatalf("%s without a seat: %d targets (%v), want both seats", cmd, len(got), err)
		}
	}
	got, err := l.Route(agent.Command{Cmd: agent.CmdPause, Seat: "Finch"})
	if err != nil || len(got) != 1 || got[0].Name != "Finch" {
		t.Fatalf("pause for Finch: %+v (%v), want Finch alone", got, err)
	}
}

func TestOneSeatLeagueNeedsNoSeat(t *testing.T) {
	l := &League{seats: []Seat{{Name: "Heron"}}}
	for _, c := range []agent.Command{{Cmd: agent.CmdAdvise, Text: "go"}, {Cmd: agent.CmdDecide, CallID: "c1", Decision: agent.Approve}} {
		got, err := l.Route(c)
		if err != nil || got[0].Name != "Heron" {
			t.Fatalf("%+v: %+v (%v), want Heron", c, got, err)
		}
	}
}

func TestStampCopiesAndPrefixes(t *testing.T) {
	call := &agent.Call{ID: "c1", Tool: "work", Args: json.RawMessage(`{}`)}
	dec := &agent.Decision{CallID: "c1"}
	ev := stamp("Heron", agent.Event{Type: agent.EventDecision, Call: call, Decision: dec, Elicitation: &agent.Elicitation{ID: "q1", CallID: "c1"}})
	if ev.Seat != "Heron" || ev.Call.ID != "Heron/c1" || ev.Decision.CallID != "Heron/c1" || ev.Elicitation.ID != "Heron/q1" || ev.Elicitation.CallID != "Heron/c1" {
		t.Fatalf("stamped %+v", ev)
	}
	if call.ID != "c1" || dec.CallID != "c1" {
		t.Fatal("stamp changed the runner's own values")
	}
	if ev := stamp("Heron", agent.Event{Type: agent.EventProgress, Progress: &agent.Progress{}}); ev.Progress.CallID != "" {
		t.Fatalf("an empty id became %q", ev.Progress.CallID)
	}
}

// TestLoneRunTakesEveryCommandAsItIs: a league of one unnamed seat is a lone run, whose
// runner gets every command unchanged, seat or not (it has no seats to check).
func TestLoneRunTakesEveryCommandAsItIs(t *testing.T) {
	l := &League{seats: []Seat{{}}}
	for _, c := range []agent.Command{
		{Cmd: agent.CmdDecide, CallID: "c1", Decision: agent.Approve},
		{Cmd: agent.CmdDecide, CallID: "Heron/c1", Decision: agent.Approve},
		{Cmd: agent.CmdAdvise, Text: "go", Seat: "Ghost"},
	} {
		got, err := l.Route(c)
		if err != nil || len(got) != 1 || got[0].Command.CallID != c.CallID || got[0].Command.Seat != c.Seat {
			t.Fatalf("%+v: %+v (%v), want it unchanged", c, got, err)
		}
	}
	ev := agent.Event{Type: agent.EventProposed, Call: &agent.Call{ID: "c1"}}
	if got := stamp("", ev); got.Seat != "" || got.Call.ID != "c1" {
		t.Fatalf("an unnamed seat stamped %+v", got)
	}
}

func TestNewRefusesBadSeats(t *testing.T) {
	for _, seats := range [][]Seat{nil, {{Name: "a/b"}}, {{Name: "Heron"}}} {
		if _, err := New("l", seats); err == nil {
			t.Errorf("New(%+v) took them", seats)
		}
	}
}
