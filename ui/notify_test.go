package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

// called says whether cmd makes a notification.
func called(cmd tea.Cmd) bool { return cmd != nil }

// Once per wait; never while focused; on each wait while the terminal has said nothing
// of its focus; focus leaving while a call waits calls once.
func TestNotifierCallsOncePerWaitAndNeverWhileFocused(t *testing.T) {
	n := notifier{mode: NotifyAuto}
	if !called(n.need("decide:1", "a call waits")) {
		t.Fatal("a terminal that never reported focus was not called on a wait")
	}
	if called(n.need("decide:1", "a call waits")) {
		t.Fatal("the same wait was called twice")
	}
	if called(n.focused(true)) || called(n.need("decide:2", "another")) {
		t.Fatal("a focused terminal was called")
	}
	if !called(n.focused(false)) {
		t.Fatal("focus leaving while a call waits did not call")
	}
	if called(n.focused(false)) || called(n.need("decide:2", "another")) {
		t.Fatal("one wait was called twice")
	}
	if called(n.need("", "")) || !called(n.need("idle:3", "idle")) {
		t.Fatal("a new wait while unfocused was not called")
	}
	off := notifier{mode: NotifyOff}
	if called(off.need("decide:1", "x")) {
		t.Fatal("off called")
	}
}

// The escape each terminal takes, from its environment; inside tmux only the bell.
func TestDetectOSC(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want osc
	}{
		{map[string]string{"TERM_PROGRAM": "iTerm.app"}, osc9},
		{map[string]string{"TERM_PROGRAM": "WezTerm"}, osc9},
		{map[string]string{"TERM": "xterm-kitty"}, osc9},
		{map[string]string{"TERM": "foot"}, osc777},
		{map[string]string{"VTE_VERSION": "7600", "TERM": "xterm-256color"}, osc777},
		{map[string]string{"WT_SESSION": "x"}, osc9},
		{map[string]string{"TERM_PROGRAM": "WezTerm", "TMUX": "/tmp/tmux-0/default,1,0"}, oscNone},
		{map[string]string{"TERM": "xterm-256color"}, oscNone},
	} {
		if got := detectOSC(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%v: %v, want %v", c.env, got, c.want)
		}
	}
}

// What the person is needed for: a loop that paused play names the stuck call; the
// key changes with each new wait; nothing while running.
func TestNeededNamesWhatWaits(t *testing.T) {
	m := New(nil, Info{Session: "s"})
	m.cur().run.state, m.cur().run.step = agent.Running, 4
	if k, _ := m.needed(); k != "" {
		t.Fatalf("running: needed %q", k)
	}
	m.cur().observe(agent.Event{Type: agent.EventLoop, Text: "the model called look {} 6 times"})
	m.cur().observe(agent.Event{Type: agent.EventState, State: agent.Paused})
	m.cur().run.state = agent.Paused
	k, text := m.needed()
	if k != "loop:4" || !strings.Contains(text, "look {}") {
		t.Fatalf("a loop's pause: %q %q", k, text)
	}
	m.cur().observe(agent.Event{Type: agent.EventState, State: agent.Paused, Text: "the cost cap of $1.0000 was reached: $1.01 spent"})
	m.cur().run.state = agent.Idle
	if k, _ := m.needed(); k != "idle:4" {
		t.Fatalf("idle: %q", k)
	}
	m.cur().run.state = agent.Paused
	m.cur().observe(agent.Event{Type: agent.EventState, State: agent.Running})
	m.cur().observe(agent.Event{Type: agent.EventState, State: agent.Paused, Text: "the cost cap of $1.0000 was reached: $1.01 spent"})
	if k, text := m.needed(); k != "cap:4" || !strings.Contains(text, "cost cap") {
		t.Fatalf("a spend cap: %q %q", k, text)
	}
}

// While the person plays a seat (their own, or the wheel held), what the game sends it
// calls them as a call waiting does: once for each new thing.
func TestNeededWhileThePersonPlays(t *testing.T) {
	m := New(nil, Info{Session: "s"})
	m.cur().run.state = agent.PersonPlays
	if k, _ := m.needed(); k != "" {
		t.Fatalf("nothing sent yet: needed %q", k)
	}
	m.cur().observe(agent.Event{Seq: 9, Type: agent.EventTrigger, Text: "trigger: message.received Heron — Heron: hello",
		Trigger: &game.Trigger{Type: "message.received", Subject: "Heron", Text: "Heron: hello"}})
	k, text := m.needed()
	if k != "trigger:9" || !strings.Contains(text, "Heron: hello") {
		t.Fatalf("a message: %q %q", k, text)
	}
}
