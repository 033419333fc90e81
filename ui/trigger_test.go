package ui

import (
	tea "charm.land/bubbletea/v2"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

// A trigger shows in the Log pane with its own mark: what happened, on what, and why it
// woke the agent.
func TestTriggerIsLoggedWithItsMark(t *testing.T) {
	f := newFake()
	m := newTestModel(f)
	trig := &game.Trigger{Type: "battle.started", Subject: "battle-456", Text: "Mara: everyone fight in battle 456!", Time: time.Now()}
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 160, Height: 48}}, events(opening(), []agent.Event{{Seq: 90, Type: agent.EventTrigger, Trigger: trig, Text: "trigger: " + trig.String()}}))
	screen := stripANSI(m.render())
	if !strings.Contains(screen, "↯ battle.started battle-456 — Mara: everyone fight") {
		t.Fatalf("the trigger is not in the log with its mark:\n%s", screen)
	}
}
