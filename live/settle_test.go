package live_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	autopilot "github.com/coplayhq/coplay/agent/autopilot/arena"
	"github.com/coplayhq/coplay/game/arena"
	"github.com/coplayhq/coplay/league"
	"github.com/coplayhq/coplay/live"
)

// game is a real runner (the arena and its autopilot, a real notebook) shared by a hub,
// as a playing coplay shares it, with the owner's own subscriber and the socket.
type game struct {
	runner   *agent.Runner
	hub      *live.Hub
	own      *live.Sub
	notebook string
	events   chan agent.Event // the owner's events, read on for the test
}

// playing starts the arena with the autopilot, every Act call asking the person, and
// serves it on the notebook's socket (attach).
func playing(t *testing.T) *game { return playingAt(t, 0) }

// playingAt is playing with the arena's clock at speed times the wall clock's (0: its
// default), so that the autopilot's waits for game time pass at once.
func playingAt(t *testing.T, speed float64) *game {
	t.Helper()
	path, book, srv := owner(t)
	s, err := book.Session("playing-now")
	if err != nil {
		t.Fatal(err)
	}
	world, err := arena.New(arena.Config{Seed: 7, Speed: speed})
	if err != nil {
		t.Fatal(err)
	}
	r, err := agent.New(agent.Config{Game: world, Brain: autopilot.New(world), Session: s})
	if err != nil {
		t.Fatal(err)
	}
	lone, err := league.New("", []league.Seat{{Runner: r}}) // a lone run is a league of one
	if err != nil {
		t.Fatal(err)
	}
	g := &game{runner: r, hub: live.NewHub(lone), notebook: path, events: make(chan agent.Event, 1<<14)}
	g.own = g.hub.Subscribe("screen", false)
	srv.ServeAttach(g.hub, live.Hello{Session: "playing-now"})
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		lone.Run(ctx)
	}()
	go func() {
		for ev := range g.own.Events() {
			g.events <- ev
		}
		close(g.events)
	}()
	t.Cleanup(func() {
		cancel()
		<-ran
	})
	return g
}

// next reads the owner's events until match, failing on any error event (a refusal is
// its sender's alone) when strict.
func (g *game) next(t *testing.T, what string, strict bool, match func(agent.Event) bool) agent.Event {
	t.Helper()
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case ev, ok := <-g.events:
			if !ok {
				t.Fatalf("the run ended before %s", what)
			}
			if strict && ev.Type == agent.EventError {
				t.Fatalf("the owner's screen got an error event before %s: %s", what, ev.Text)
			}
			if match(ev) {
				return ev
			}
		case <-timeout:
			t.Fatalf("no %s", what)
		}
	}
}

func waitingCall(ev agent.Event) bool {
	return ev.Type == agent.EventProposed && ev.Call != nil && ev.Call.NeedsOK
}

// Two screens decide the same call: the first wins, the second is told, by the gate,
// where the first was made; the runner journals one decision, and the refusal reaches
// no other screen.
func TestFirstDecisionWinsAtTheGate(t *testing.T) {
	g := playing(t)
	call := g.next(t, "a call waiting", true, waitingCall).Call
	laptop := g.hub.Subscribe("attach", false)
	if err := laptop.Send(agent.Command{Cmd: agent.CmdDecide, CallID: call.ID, Decision: agent.Approve}); err != nil {
		t.Fatal(err)
	}
	err := g.own.Send(agent.Command{Cmd: agent.CmdDecide, CallID: call.ID, Decision: agent.Veto})
	var lost *agent.LostError
	if !errors.As(err, &lost) || !strings.Contains(err.Error(), "approve by person on attach") {
		t.Fatalf("the second decision: %v, want the gate's LostError naming attach", err)
	}
	dec := g.next(t, "the decision", true, func(ev agent.Event) bool { return ev.Type == agent.EventDecision })
	if dec.Decision.Via != "attach" || dec.Decision.Decision != agent.Approve {
		t.Fatalf("decision = %+v", dec.Decision)
	}
	g.next(t, "the call's result", true, func(ev agent.Event) bool { return ev.Type == agent.EventResult && ev.Call.ID == call.ID })
	if q := g.runner.Input().Waiting(); len(q) != 0 && q[0].Call.ID == call.ID {
		t.Fatalf("the decided call still waits: %+v", q)
	}
	// The laptop's log saw no refusal either: it was the screen's alone.
	for len(laptop.Events()) > 0 {
		if ev := <-laptop.Events(); ev.Type == agent.EventError {
			t.Fatalf("another screen got the refusal: %s", ev.Text)
		}
	}
}

// attached is a raw attached client on the socket: its lines in, its events out.
type attached struct {
	c      net.Conn
	events chan agent.Event
}

func attach(t *testing.T, notebook string) *attached {
	t.Helper()
	c := dialRaw(t, notebook)
	fmt.Fprintln(c, `{"op":"attach"}`)
	a := &attached{c: c, events: make(chan agent.Event, 1<<14)}
	r := bufio.NewReaderSize(c, 1<<16)
	for range 2 { // the reply, the hello
		if _, err := r.ReadBytes('\n'); err != nil {
			t.Fatal(err)
		}
	}
	go func() {
		defer close(a.events)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			var ev agent.Event
			if json.Unmarshal(line, &ev) == nil {
				a.events <- ev
			}
		}
	}()
	return a
}

func (a *attached) next(t *testing.T, what string, match func(agent.Event) bool) agent.Event {
	t.Helper()
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case ev, ok := <-a.events:
			if !ok {
				t.Fatalf("the connection ended before %s", what)
			}
			if match(ev) {
				return ev
			}
		case <-timeout:
			t.Fatalf("no %s", what)
		}
	}
}

// An attached client's refused commands reach it alone: neither the owner nor another
// attached client hears of them, and nothing is journaled. A command line over the cap
// (here 64 MiB without a newline, then its newline) is refused too, and the client's
// next line is taken as usual: it approves the waiting call, which the state so far
// showed the client (from the gate's queue).
func TestRefusalsReachTheirSenderAlone(t *testing.T) {
	g := playing(t)
	call := g.next(t, "a call waiting", true, waitingCall).Call
	one, two := attach(t, g.notebook), attach(t, g.notebook)
	one.next(t, "the waiting call in the state so far", func(ev agent.Event) bool { return waitingCall(ev) && ev.Call.ID == call.ID })

	fmt.Fprintln(one.c, `{"cmd":"decide","call_id":"no-such-call","decision":"approve"}`)
	refused := one.next(t, "the refusal", func(ev agent.Event) bool { return ev.Type == agent.EventError })
	if !strings.HasPrefix(refused.Text, "attach line 1: decide:") || refused.Seq != 0 {
		t.Fatalf("refusal = %+v", refused)
	}

	chunk := []byte(strings.Repeat("x", 1<<20))
	for range 64 {
		if _, err := one.c.Write(chunk); err != nil {
			t.Fatalf("the owner stopped reading a long line: %v", err)
		}
	}
	fmt.Fprintln(one.c)
	long := one.next(t, "the long line's refusal", func(ev agent.Event) bool { return ev.Type == agent.EventError })
	if !strings.Contains(long.Text, "attach line 2: a line may be at most 16 KiB, and this one was 64.0 MiB") {
		t.Fatalf("long line: %s", long.Text)
	}
	fmt.Fprintf(one.c, `{"cmd":"decide","call_id":%q,"decision":"approve"}`+"\n", call.ID)
	dec := g.next(t, "the decision after the long line", true, func(ev agent.Event) bool { return ev.Type == agent.EventDecision })
	if dec.Decision.Via != "attach" || dec.Decision.CallID != call.ID {
		t.Fatalf("decision = %+v", dec.Decision)
	}
	two.next(t, "the decision on the second client", func(ev agent.Event) bool {
		if ev.Type == agent.EventError {
			t.Fatalf("the second client heard the first's refusal: %s", ev.Text)
		}
		return ev.Type == agent.EventDecision
	})
}
