package live

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/coplayhq/coplay/agent"
)

// fakeRunner is the runner's ends, for the hub's delivery alone: events the test emits,
// commands it records, and what it says waits. How decisions are settled is the
// agent.Gate's, tested with a real runner (settle_test.go).
type fakeRunner struct {
	events  chan agent.Event
	mu      sync.Mutex
	got     []agent.Command
	waiting []agent.Event
}

func newFake() *fakeRunner { return &fakeRunner{events: make(chan agent.Event)} }

func (f *fakeRunner) Events() <-chan agent.Event { return f.events }
func (f *fakeRunner) Send(c agent.Command) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, c)
	return nil
}
func (f *fakeRunner) Waiting() []agent.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.waiting
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
	running := ev(agent.EventState, func(e *agent.Event) { e.State = agent.Running })
	c1 := proposal("c1")
	f.waiting = []agent.Event{c1}
	go func() {
		f.events <- running
		f.events <- c1
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

// A call the runner shows again on resume carries its first seq: a screen that
// attaches before the hub has passed it gets it in the catch-up, and not a second time
// when it comes.
func TestCallShownAgainComesOnce(t *testing.T) {
	f := newFake()
	h := NewHub(f)
	own := h.Subscribe("screen", false)
	again := proposal("c1")
	go func() { f.events <- ev(agent.EventState) }()
	<-own.Events()
	again.Seq = 1 // its first seq, below what the hub has passed
	f.waiting = []agent.Event{again}
	late := h.Subscribe("attach", false)
	go func() {
		f.events <- again
		f.events <- ev(agent.EventText)
	}()
	<-own.Events()
	<-own.Events()
	var got []agent.EventType
	for e := range late.Events() {
		got = append(got, e.Type)
		if e.Type == agent.EventText {
			break
		}
	}
	if fmt.Sprint(got) != "[tool_proposed state text]" {
		t.Fatalf("the late screen got %v", got)
	}
	close(f.events)
	<-h.Done()
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
