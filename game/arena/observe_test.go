package arena

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// The summary fits the world pane, shows the bars, unread messages and open battles
// with their countdowns; the metrics and timers are there for the screen.
func TestObservationReadsWellInThePane(t *testing.T) {
	g, clk := newTest(t, 1)
	for len(g.View().Battles) == 0 || g.View().Battles[0].Committed[g.View().Battles[0].Sides[0]] == 0 {
		advance(g, clk, 1)
	}
	obs, err := g.Observe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(obs.Summary, "\n") {
		if n := utf8.RuneCountInString(line); n > paneWidth {
			t.Errorf("%d columns: %q", n, line)
		}
	}
	for _, want := range []string{"energy ███████░░░  70/100", "gold   ", "Unread messages:", "Battles:", "join by", "starts in", "- food: apple", "- goods: herbs"} {
		if !strings.Contains(obs.Summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, obs.Summary)
		}
	}
	// Every minute of two hours of play, fighting in every battle, fits the pane.
	g2, clk2 := newTest(t, 11)
	for m := 0; m < 120; m++ {
		advance(g2, clk2, 1)
		for _, b := range g2.View().Battles {
			if b.Joinable && b.Side == "" {
				inspect(g2, func(w *world) { w.s.Agent.Energy = 90 })
				call(t, g2, ToolJoinBattle, map[string]any{"battle": b.ID, "energy": 30, "side": b.Sides[0]})
			}
		}
		o, _ := g2.Observe(context.Background())
		for _, line := range strings.Split(o.Summary, "\n") {
			if n := utf8.RuneCountInString(line); n > paneWidth || strings.HasSuffix(line, "…") && strings.HasPrefix(line, "  ") {
				t.Fatalf("minute %d: %d columns: %q", m, n, line)
			}
		}
	}
	names := map[string]bool{}
	for _, m := range obs.Metrics {
		names[m.Name] = true
	}
	for _, want := range []string{"gold", "energy", "standing", "battles_won", ScoreMetric} {
		if !names[want] {
			t.Errorf("no metric %s in %+v", want, obs.Metrics)
		}
	}
	b := g.View().Battles[0]
	var starts bool
	for _, tm := range obs.Timers {
		if tm.Label == b.ID+" starts" {
			starts = true
			// On the wall clock: the game's minutes go by at the speed.
			if got, want := tm.End.Sub(obs.Time), b.Start.Sub(g.View().Now)/testSpeed; got != want {
				t.Errorf("timer ends %v after the observation, want %v", got, want)
			}
		}
	}
	if !starts {
		t.Errorf("no timer for %s's start: %+v", b.ID, obs.Timers)
	}
	if !obs.IdleUntil.IsZero() {
		t.Errorf("idle with things to do: %v %s", obs.IdleUntil, obs.IdleReason)
	}
	if g.Score() != float64(g.View().Agent.Gold+g.View().Agent.Standing) {
		t.Errorf("score %v", g.Score())
	}
}

// Idle only when nothing useful can be done: working with no messages to answer and no
// food needed, until the next event.
func TestIdleOnlyWhenNothingToDo(t *testing.T) {
	g, clk := newTest(t, 2)
	advance(g, clk, 1)
	inspect(g, func(w *world) {
		for _, m := range w.s.Messages {
			m.Read = true
		}
		w.s.Agent.Energy = 80 // 50 after the work: no need to eat
	})
	if res := call(t, g, ToolWork, map[string]any{"job": "guard", "shifts": 2}); !res.OK() {
		t.Fatal(res.Err)
	}
	obs, _ := g.Observe(context.Background())
	if obs.IdleUntil.IsZero() || !strings.Contains(obs.IdleReason, "working (guard)") {
		t.Fatalf("working with nothing else to do, not idle: %+v", obs)
	}
	if !obs.IdleUntil.After(obs.Time) || obs.IdleUntil.After(obs.Time.Add(wakeEvery*time.Minute/testSpeed)) {
		t.Fatalf("idle until %v, observed %v", obs.IdleUntil, obs.Time)
	}
}
