package ui

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/keymap"
)

func TestRunStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, newFake(), testInfo(), tea.WithInput(&bytes.Buffer{}), tea.WithOutput(io.Discard), tea.WithWindowSize(80, 24))
	}()
	time.Sleep(100 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v, want nil or context.Canceled", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Run did not return after the context was cancelled")
	}
	if err := Run(context.Background(), nil, testInfo()); err == nil {
		t.Error("Run without an agent did not fail")
	}
}

func TestOverriddenKeys(t *testing.T) {
	km := keymap.Default()
	if err := km.Override(map[string][]string{"approve": {"y"}}); err != nil {
		t.Fatal(err)
	}
	f := newFake()
	info := testInfo()
	info.Keys = km
	m := New(f, info)
	m.Now, m.Grace = func() time.Time { return t0 }, 0
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 80, Height: 24}}, events(opening(), proposal()), keys("a"))
	wantCommands(t, f)
	if !bytes.Contains([]byte(stripANSI(m.render())), []byte("y approve · v veto")) {
		t.Error("the pending pane does not show the overridden key")
	}
	drive(t, m, keys("y"))
	wantCommands(t, f, agent.Command{Cmd: agent.CmdDecide, CallID: "c1", Decision: agent.Approve})
}
