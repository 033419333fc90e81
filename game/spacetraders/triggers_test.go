package spacetraders

import (
	"context"
	"testing"
	"time"

	"github.com/coplayhq/coplay/game"
)

// nextTrigger reads the next trigger, failing after a generous bound.
func nextTrigger(t *testing.T, ch <-chan game.Trigger) game.Trigger {
	t.Helper()
	select {
	case tr, ok := <-ch:
		if !ok {
			t.Fatal("the trigger channel closed")
		}
		return tr
	case <-time.After(time.Minute):
		t.Fatal("no trigger within a minute")
	}
	return game.Trigger{}
}

// A ship that arrives wakes the agent once, from what the game learnt from its own
// answers: the arrival time of the navigate answer. The cooldown after extracting does
// the same.
func TestShipArrivalAndCooldownAreTriggers(t *testing.T) {
	w := newWorld(t)
	g := w.off.Game
	ch := g.Triggers()
	if _, err := g.Observe(context.Background()); err != nil { // the live world learns the fleet
		t.Fatal(err)
	}
	w.call(ToolOrbitShip, map[string]any{"shipSymbol": cmd})
	w.call(ToolNavigateShip, map[string]any{"shipSymbol": cmd, "waypointSymbol": rock})
	select {
	case tr := <-ch:
		t.Fatalf("a trigger before the ship arrived: %+v", tr)
	default:
	}
	w.arrive(cmd)
	g.worldChanged() // the fake clock moved: a real one would have fired the timer
	tr := nextTrigger(t, ch)
	if tr.Type != "ship.arrived" || tr.Subject != cmd || tr.Text != cmd+" arrived at "+rock {
		t.Fatalf("trigger %+v, want ship.arrived %s at %s", tr, cmd, rock)
	}

	w.call(ToolExtractResources, map[string]any{"shipSymbol": cmd})
	w.cool(cmd)
	g.worldChanged()
	tr = nextTrigger(t, ch)
	if tr.Type != "cooldown.ended" || tr.Subject != cmd {
		t.Fatalf("trigger %+v, want cooldown.ended %s", tr, cmd)
	}
	g.worldChanged()
	select {
	case tr := <-ch:
		if tr.Type == "ship.arrived" || tr.Type == "cooldown.ended" {
			t.Fatalf("the same event twice: %+v", tr)
		}
	case <-time.After(100 * time.Millisecond):
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	for range ch { // Close ends the watcher and closes the channel
	}
}

// A game that was never asked for triggers closes without a watcher.
func TestCloseWithoutTriggers(t *testing.T) {
	g := New(Config{Offline: true})
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil { // twice is fine
		t.Fatal(err)
	}
}
