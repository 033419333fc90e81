package ui

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/coplayhq/coplay/game"
)

func TestMetricUnitNotRepeated(t *testing.T) {
	st := newStyles(true)
	v := worldView{}
	v.observe(&game.Observation{Metrics: []game.Metric{{Name: "credits", Value: 175000, Unit: "credits"}, {Name: "fuel", Value: 400, Unit: "units"}}})
	got := ansi.Strip(strings.Join(v.metrics(&st, 80), "\n"))
	if !strings.Contains(got, "credits 175,000  fuel 400 units") {
		t.Errorf("metrics = %q", got)
	}
}

// The summary's "arrives in 12s (15:04:12Z)" is recomputed from the timers at every
// frame: twelve seconds later it says "now".
func TestSummaryCountdownsAreLive(t *testing.T) {
	end := t0.Add(12 * time.Second)
	o := &game.Observation{
		Summary: "COPLAY-1 IN_TRANSIT, arrives in 12s (" + end.Format("15:04:05Z") + ") · cooldown ends in 40s (16:00:00Z)",
		Timers:  []game.Timer{{Label: "COPLAY-1 → X1-YS98-B1", Start: t0.Add(-time.Minute), End: end}},
	}
	for after, want := range map[time.Duration]string{
		0:                "arrives in 12s (15:03:12Z)",
		5 * time.Second:  "arrives in 7s (15:03:12Z)",
		12 * time.Second: "arrives now (15:03:12Z)",
		90 * time.Second: "arrives now (15:03:12Z)",
	} {
		got := liveCountdowns(o, t0.Add(after))
		if !strings.Contains(got, want) {
			t.Errorf("%v later: %q, want %q", after, got, want)
		}
		if !strings.Contains(got, "cooldown ends in 40s (16:00:00Z)") {
			t.Errorf("a countdown without a timer was changed: %q", got)
		}
	}
}

// The arena writes a shift's end in its own clock and minutes, "until 08:10 (in 10m)",
// and its bar counts the seconds: the pane shows one countdown per shift, the bar's.
// The agent's wait is in the status bar, not a third time over the bars.
func TestOneCountdownPerShift(t *testing.T) {
	st := newStyles(true)
	o := &game.Observation{
		Summary: "- working: forge until 08:10 (in 10m)\n- B1: starts in 4m (08:14); join by 08:12 (in 1h05m)",
		Timers: []game.Timer{{Label: "work: forge", Start: t0, End: t0.Add(time.Minute)},
			{Label: "B1 starts", Start: t0, End: t0.Add(24 * time.Second)}},
	}
	if got, want := liveCountdowns(o, t0), "- working: forge until 08:10\n- B1: starts at 08:14; join by 08:12"; got != want {
		t.Errorf("the summary reads %q, want %q", got, want)
	}
	v := worldView{}
	v.observe(o)
	wait := &game.Wait{Until: t0.Add(11 * time.Second), Reason: "working (forge) until 08:10"}
	got := ansi.Strip(strings.Join(v.render(&st, t0, wait, 80, 30), "\n"))
	if strings.Contains(got, "waiting 11s") || strings.Count(got, "1m00s") != 1 || strings.Contains(got, "10m") {
		t.Errorf("more than one countdown for the shift:\n%s", got)
	}
	// Once no bar counts down, the wait is said here again.
	if got := ansi.Strip(strings.Join(v.render(&st, t0.Add(2*time.Minute), &game.Wait{Until: t0.Add(3 * time.Minute), Reason: "resting"}, 80, 30), "\n")); !strings.Contains(got, "waiting 1m00s: resting") {
		t.Errorf("the wait without a running timer is not shown:\n%s", got)
	}
}

// A timer's label is never cut: when it leaves no room for a bar, it goes on a line of
// its own.
func TestTimerLabelsAreWhole(t *testing.T) {
	st := newStyles(true)
	label := "COPLAY-1 → X1-YS98-A1 (ENGINEERED_ASTEROID)"
	v := worldView{obs: &game.Observation{Timers: []game.Timer{{Label: label, Start: t0.Add(-time.Minute), End: t0.Add(time.Minute)}}}}
	for _, w := range []int{30, 44, 60, 100} {
		got := ansi.Strip(strings.Join(v.timers(&st, t0, w), "\n"))
		if !strings.Contains(strings.ReplaceAll(got, "\n", " "), label) && !strings.Contains(got, "X1-YS98-A1") {
			t.Errorf("width %d: label cut: %q", w, got)
		}
		if !strings.Contains(got, "█") || !strings.Contains(got, "1m00s") {
			t.Errorf("width %d: no bar or countdown: %q", w, got)
		}
		for _, l := range strings.Split(got, "\n") {
			if ansi.StringWidth(l) > w {
				t.Errorf("width %d: line %q too long", w, l)
			}
		}
	}
}

// Map labels never touch another glyph or label: each is followed (or preceded, when it
// goes left) by a blank cell, so "*oI1" and "#A1@B1" cannot happen.
func TestMapLabelsDoNotCollide(t *testing.T) {
	st := newStyles(true)
	m := &game.Map{Title: "System X1-YS98", Points: []game.Point{
		{Label: "X1-YS98-A1", Kind: "PLANET", X: 0, Y: 0, Marks: []string{"COPLAY-1"}},
		{Label: "X1-YS98-B1", Kind: "ORBITAL_STATION", X: 1, Y: 0},
		{Label: "X1-YS98-I1", Kind: "MOON", X: 2, Y: 0},
		{Label: "X1-YS98-C1", Kind: "ASTEROID", X: 50, Y: 0},
		{Label: "X1-YS98-D1", Kind: "ASTEROID", X: 53, Y: 0},
		{Label: "X1-YS98-E1", Kind: "GAS_GIANT", X: 100, Y: 10},
	}}
	lines := drawMap(&st, m, "", 40, 8)
	token := regexp.MustCompile(`^([O#o*G@X.f][A-Z0-9]{1,4}|[A-Z0-9]{1,4}[O#o*G@X.f]|[O#o*G@X.f]+)$`)
	for _, l := range lines[1 : len(lines)-1] {
		for _, tok := range strings.Fields(ansi.Strip(l)) {
			if !token.MatchString(tok) {
				t.Errorf("%q is not one point with its label, in %q", tok, ansi.Strip(l))
			}
		}
	}
	if got := ansi.Strip(strings.Join(lines, "\n")); !strings.Contains(got, "E1") {
		t.Errorf("labels with room were not drawn:\n%s", got)
	}
}
