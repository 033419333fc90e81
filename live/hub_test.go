package live

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/coplayhq/coplay/agent"
)

// fakeRunner is the runner's two ends: events the test emits, commands it records.
type fakeRunner struct {
	events chan agent.Event
	mu     sync.Mutex
	got    []agent.Command
}

func newFake() *fakeRunner { return &fakeRunner{events: make(chan agent.Event)} }

func (f *fakeRunner) Events() <-chan agent.Event { return f.events }
func (f *fakeRunner) Send(c agent.Command) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, c)
	return nil
}

var seq uint64

func ev(t agent.EventType, mod ...func(*agent.Event)) agent.Event {
	seq++
	e := agent.Event{Seq: seq, Type: t}
	for _, m := range mod {
		m(&e)
	}
	return e
}

func proposal(id string) agent.Event {
	return ev(agent.EventProposed, func(e *agent.Event) { e.Call = &agent.Call{ID: id, Tool: "orbit_ship", NeedsOK: true} })
}

// A late subscriber first gets the state so far: the newest state event, the call that
// waits, recent events; then live events, in order.
func TestLateSubscriberGetsTheStateFirst(t *testing.T) {
	f := newFake()
	h := NewHub(f)
	own := h.Subscribe("screen", false)
	go func() {
		f.events <- ev(agent.EventState, func(e *agent.Event) { e.State = agent.Running })
		f.events <- proposal("c1")
		f.events <- ev(agent.EventState, func(e *agent.Event) { e.State = agent.Deciding })
	}()
	for range 3 {
		<-own.Events()
	}
	late := h.Subscribe("attach", false)
	var got []string
	for range 3 {
		e := <-late.Events()
		got = append(got, string(e.Type)+":"+string(e.State))
	}
	if strings.Join(got, " ") != "state:running tool_proposed: state:waiting_for_decision" {
		t.Fatalf("catch-up = %v", got)
	}
	go func() { f.events <- ev(agent.EventText) }()
	<-own.Events()
	if e := <-late.Events(); e.Type != agent.EventText {
		t.Fatalf("live event = %v", e.Type)
	}
	close(f.events)
	<-h.Done()
	if _, ok := <-late.Events(); ok {
		t.Fatal("the subscriber's channel stayed open after the run ended")
	}
}

// Two screens decide the same call: the first wins, the second is told where the first
// was made, and the runner hears one decision.
func TestFirstDecisionWins(t *testing.T) {
	f := newFake()
	h := NewHub(f)
	screen := h.Subscribe("screen", false)
	go func() { f.events <- proposal("c1") }()
	<-screen.Events()
	laptop := h.Subscribe("attach", false)
	<-laptop.Events()
	if err := laptop.Send(agent.Command{Cmd: agent.CmdDecide, CallID: "c1", Decision: agent.Approve}); err != nil {
		t.Fatal(err)
	}
	err := screen.Send(agent.Command{Cmd: agent.CmdDecide, CallID: "c1", Decision: agent.Veto})
	if err == nil || !strings.Contains(err.Error(), "already decided (attach)") {
		t.Fatalf("second decision: %v", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.got) != 1 || f.got[0].Via != "attach" || f.got[0].Decision != agent.Approve {
		t.Fatalf("the runner got %+v", f.got)
	}
}

// A watcher may not steer; an owner is never dropped; a subscriber that falls a whole
// buffer behind is dropped with a reason, and play goes on.
func TestWatchersAndSlowScreens(t *testing.T) {
	f := newFake()
	h := NewHub(f)
	own := h.Subscribe("stdin", false)
	watcher := h.Subscribe("ssh:watch", true)
	if err := watcher.Send(agent.Command{Cmd: agent.CmdPause}); err != ErrReadOnly {
		t.Fatalf("watcher's pause: %v", err)
	}
	// Nor play, ask or take the wheel (issue 45: watch keys cannot).
	for _, c := range []agent.Command{{Cmd: agent.CmdPlay, Tool: "look"}, {Cmd: agent.CmdAsk, Text: "why?"}, {Cmd: agent.CmdTakeOver, On: true}} {
		if err := watcher.Send(c); err != ErrReadOnly {
			t.Fatalf("watcher's %s: %v", c.Cmd, err)
		}
	}
	slow := h.Subscribe("attach", false) // never reads
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range attachedBuffer + 10 {
			f.events <- ev(agent.EventText, func(e *agent.Event) { e.Text = fmt.Sprint(i) })
		}
	}()
	n := 0
	for n < attachedBuffer+10 {
		<-own.Events()
		n++
		if n%2 == 0 {
			// keep the watcher drained: only slow falls behind
			for len(watcher.Events()) > 0 {
				<-watcher.Events()
			}
		}
	}
	<-done
	if slow.Err() == nil {
		t.Fatal("the slow subscriber was not dropped")
	}
	if watcher.Err() != nil {
		t.Fatalf("the watcher was dropped: %v", watcher.Err())
	}
	own.Close()
	close(f.events)
	<-h.Done()
}
