package arena

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/internal/drivertest"
)

// wallStart is where the tests' fake wall clocks start.
var wallStart = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// testSpeed makes one wall second one game minute.
const testSpeed = 60

// newTest returns a game of seed on a fake clock, with no goroutine: the test moves the
// world with advance.
func newTest(t *testing.T, seed int64) (*Game, *FakeClock) {
	t.Helper()
	clk := NewFakeClock(wallStart)
	g, err := New(Config{Seed: seed, Speed: testSpeed, Clock: clk, Poll: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	return g, clk
}

// openDriver opens the arena through its driver with the options given, as coplay does.
func openDriver(t *testing.T, given game.Values, env game.Env) (*game.Opened, error) {
	t.Helper()
	env.Options = given
	return game.Open(context.Background(), DriverName, env)
}

// advance moves the fake clock by n game minutes and the world with it.
func advance(g *Game, clk *FakeClock, n int) {
	clk.Advance(time.Duration(n) * time.Minute / testSpeed)
	g.Sync()
}

// call validates a call against the tool's schema, as the agent does, and runs it.
func call(t *testing.T, g *Game, tool string, a any) game.Result {
	t.Helper()
	raw := valid(t, g, tool, a)
	res, err := g.Call(context.Background(), tool, raw)
	if err != nil {
		t.Fatalf("%s %s: %v", tool, raw, err)
	}
	return res
}

// simulate validates a call and dry-runs it.
func simulate(t *testing.T, g *Game, tool string, a any) game.Simulation {
	t.Helper()
	raw := valid(t, g, tool, a)
	sim, ok, err := g.Simulate(context.Background(), tool, raw)
	if err != nil || !ok {
		t.Fatalf("%s %s: simulate ok=%v err=%v", tool, raw, ok, err)
	}
	return sim
}

func valid(t *testing.T, g *Game, tool string, a any) json.RawMessage {
	t.Helper()
	tl, ok := game.Tools(g.Tools()).Find(tool)
	if !ok {
		t.Fatalf("no tool %s", tool)
	}
	raw, err := game.ValidateTool(tl, drivertest.Args(t, a))
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return raw
}

// drain takes the triggers waiting on the channel.
func drain(g *Game) []game.Trigger {
	var out []game.Trigger
	for {
		select {
		case tr, ok := <-g.Triggers():
			if !ok {
				return out
			}
			out = append(out, tr)
		default:
			return out
		}
	}
}

// inspect runs fn on the world brought up to now.
func inspect(g *Game, fn func(w *world)) { g.locked(fn) }

// save returns the game's saved state or fails the test.
func save(t *testing.T, g *Game) []byte {
	t.Helper()
	b, err := g.Save()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
