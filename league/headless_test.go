package league_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	arenapilot "github.com/coplayhq/coplay/agent/autopilot/arena"
	"github.com/coplayhq/coplay/game/arena"
	"github.com/coplayhq/coplay/league"
	"github.com/coplayhq/coplay/notes"
)

// arenaLeague seats the arena's autopilot in one arena world for each name ("" alone:
// a lone run), every call waiting for a person, in one notebook.
func arenaLeague(t *testing.T, names ...string) *league.League {
	t.Helper()
	book, err := notes.Open(filepath.Join(t.TempDir(), "l.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { book.Close() })
	var games []*arena.Game
	if len(names) == 1 && names[0] == "" {
		g, err := arena.New(arena.Config{Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { g.Close() })
		games = []*arena.Game{g}
	} else {
		w, err := arena.NewLeague(arena.Config{Seed: 7}, names)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close() })
		games = w.Seats()
	}
	gate := agent.NewGate()
	var seats []league.Seat
	for i, name := range names {
		sess, err := book.Create("s-"+name, "arena", "autopilot")
		if err != nil {
			t.Fatal(err)
		}
		r, err := agent.New(agent.Config{Game: games[i], Brain: arenapilot.New(games[i]), Session: sess, Gate: gate, MaxIterations: 1000})
		if err != nil {
			t.Fatal(err)
		}
		seats = append(seats, league.Seat{Name: name, Model: "autopilot", Runner: r})
	}
	l, err := league.New("l", seats)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// headless runs league.Headless over l on pipes; it returns the command input and the
// events as they are written.
func headless(t *testing.T, l *league.League) (io.WriteCloser, <-chan agent.Event, <-chan error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		err := league.Headless(ctx, l, l.Events(), inR, outW)
		outW.Close()
		done <- err
	}()
	events := make(chan agent.Event, 4096)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var ev agent.Event
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				t.Errorf("a line that is no event: %s", sc.Bytes())
				continue
			}
			events <- ev
		}
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
	})
	return inW, events, done
}

// until reads events until match takes one, and returns it.
func until(t *testing.T, events <-chan agent.Event, what string, seen *[]agent.Event, match func(agent.Event) bool) agent.Event {
	t.Helper()
	limit := time.After(2 * time.Minute)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("the run ended before %s", what)
			}
			*seen = append(*seen, ev)
			if match(ev) {
				return ev
			}
		case <-limit:
			t.Fatalf("no %s after 2 minutes", what)
		}
	}
}

// approveAndEnd approves the call id from stdin, waits for its decision, then ends
// stdin and reads the rest until Headless returns.
func approveAndEnd(t *testing.T, in io.WriteCloser, events <-chan agent.Event, done <-chan error, id string, seen *[]agent.Event) {
	t.Helper()
	io.WriteString(in, `{"cmd":"decide","call_id":"`+id+`","decision":"approve"}`+"\n")
	until(t, events, "the call "+id+" approved", seen, func(ev agent.Event) bool {
		return ev.Type == agent.EventDecision && ev.Decision.CallID == id && ev.Decision.Via == "stdin"
	})
	in.Close()
	for ev := range events {
		*seen = append(*seen, ev)
	}
	if err := <-done; err != nil {
		t.Fatalf("Headless: %v", err)
	}
}

func TestHeadlessLeagueRefusesUnknownSeatsToTheSenderAlone(t *testing.T) {
	l := arenaLeague(t, "Heron", "Finch")
	in, events, done := headless(t, l)
	var seen []agent.Event
	call := until(t, events, "a call of Heron's waiting", &seen, func(ev agent.Event) bool {
		return ev.Seat == "Heron" && ev.Type == agent.EventProposed && ev.Call != nil && ev.Call.NeedsOK
	})
	raw := strings.TrimPrefix(call.Call.ID, "Heron/")
	io.WriteString(in, `{"cmd":"advise","seat":"Ghost","text":"x"}`+"\n")
	until(t, events, "the refusal of seat Ghost", &seen, func(ev agent.Event) bool {
		return ev.Type == agent.EventError && strings.Contains(ev.Text, `stdin line 1: command advise: no seat "Ghost"`)
	})
	// A case variant of a seat is no seat: it does not decide Heron's call.
	io.WriteString(in, `{"cmd":"decide","call_id":"heron/`+raw+`","decision":"approve"}`+"\n")
	until(t, events, "the refusal of seat heron", &seen, func(ev agent.Event) bool {
		return ev.Type == agent.EventError && strings.Contains(ev.Text, `stdin line 2: command decide: no seat "heron"`)
	})
	io.WriteString(in, "not json\n")
	until(t, events, "the refusal of a line that is no command", &seen, func(ev agent.Event) bool {
		return ev.Type == agent.EventError && strings.HasPrefix(ev.Text, "stdin line 3: ")
	})
	approveAndEnd(t, in, events, done, call.Call.ID, &seen)
	for _, ev := range seen {
		if ev.Seat != "Heron" && ev.Seat != "Finch" && ev.Seat != "" {
			t.Errorf("an event carries the seat %q: %+v", ev.Seat, ev)
		}
		if ev.Type == agent.EventDecision && ev.Decision.CallID == "Heron/"+raw && ev.Decision.Via != "stdin" {
			t.Errorf("Heron's call decided by %+v", ev.Decision)
		}
	}
	stopped := map[string]bool{}
	for _, ev := range seen {
		if ev.Type == agent.EventState && ev.State == agent.Stopped {
			stopped[ev.Seat] = true
		}
	}
	if !stopped["Heron"] || !stopped["Finch"] {
		t.Fatalf("seats stopped: %v, want both once stdin ended", stopped)
	}
}

func TestHeadlessLoneRunIsItsRunner(t *testing.T) {
	l := arenaLeague(t, "")
	in, events, done := headless(t, l)
	var seen []agent.Event
	call := until(t, events, "a call waiting", &seen, func(ev agent.Event) bool {
		return ev.Type == agent.EventProposed && ev.Call != nil && ev.Call.NeedsOK
	})
	if strings.Contains(call.Call.ID, "/") {
		t.Fatalf("a lone run's call id %q carries a seat", call.Call.ID)
	}
	// A line that is not a command is refused to its sender alone: not journaled (seq 0).
	io.WriteString(in, "not json\n")
	bad := until(t, events, "the refusal of a line that is no command", &seen, func(ev agent.Event) bool {
		return ev.Type == agent.EventError && strings.HasPrefix(ev.Text, "stdin line 1: ")
	})
	if bad.Seq != 0 {
		t.Errorf("a lone run's refusal was journaled: %+v", bad)
	}
	approveAndEnd(t, in, events, done, call.Call.ID, &seen)
	for _, ev := range seen {
		if ev.Seat != "" {
			t.Fatalf("a lone run's event carries a seat: %+v", ev)
		}
	}
}

// A command line over the bound (2 MiB on stdin) is refused with an error event that
// says so, and the next line is taken as usual: the call is approved by line 2.
func TestHeadlessLongLineIsRefusedAndInputGoesOn(t *testing.T) {
	t.Parallel()
	l := arenaLeague(t, "")
	in, events, done := headless(t, l)
	var seen []agent.Event
	call := until(t, events, "a call waiting", &seen, func(ev agent.Event) bool {
		return ev.Type == agent.EventProposed && ev.Call != nil && ev.Call.NeedsOK
	})
	go io.WriteString(in, `{"cmd":"advise","text":"`+strings.Repeat("x", 2<<20)+`"}`+"\n")
	long := until(t, events, "the refusal of a 2 MiB line", &seen, func(ev agent.Event) bool {
		return ev.Type == agent.EventError && strings.HasPrefix(ev.Text, "stdin line 1: ")
	})
	if want := "stdin line 1: a line may be at most 1 MiB, and this one was 2.0 MiB: it was dropped"; long.Text != want || long.Seq != 0 {
		t.Fatalf("the refusal: %q (seq %d), want %q, not journaled", long.Text, long.Seq, want)
	}
	approveAndEnd(t, in, events, done, call.Call.ID, &seen)
}
