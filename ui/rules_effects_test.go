package ui

import (
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestRulesDialogRefusesAnUnknownEffect: a condition on a number the tool's dry run
// never predicts is refused as typed, naming it and the closest one, not shown valid,
// and enter sends nothing.
func TestRulesDialogRefusesAnUnknownEffect(t *testing.T) {
	f := newFake()
	m := newTestModelInfo(f, func(i *Info) {
		i.Tools = slices.Clone(i.Tools)
		for k := range i.Tools {
			if i.Tools[k].Name == "navigate_ship" {
				i.Tools[k].Effects = []string{"fuel", "seconds"}
			}
		}
	})
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 120, Height: 40}})
	drive(t, m, keys("R", "a"))
	drive(t, m, typeText("allow navigate_ship if fule <= 100"))
	screen := stripANSI(m.render())
	if !strings.Contains(screen, `predicts no "fule"; did you`) || !strings.Contains(screen, "mean fuel?") || strings.Contains(screen, "✓ valid") {
		t.Fatalf("an unknown effect is not refused as typed:\n%s", screen)
	}
	drive(t, m, keys("enter"))
	wantCommands(t, f)
	back := make([]string, len("fule <= 100"))
	for i := range back {
		back[i] = "backspace"
	}
	drive(t, m, keys(back...), typeText("fuel <= 100"))
	if screen := stripANSI(m.render()); !strings.Contains(screen, "✓ valid") {
		t.Fatalf("the fixed rule is not valid:\n%s", screen)
	}
}
