package spacetraders

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/universe"
)

// world is an offline universe on a fake clock, played over real loopback HTTP through
// the same Registry the agent uses, so every call is schema-checked first.
type world struct {
	t     *testing.T
	clock *universe.FakeClock
	off   *Offline
	reg   *game.Registry
}

func newWorld(t *testing.T) *world {
	t.Helper()
	clock := universe.NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	off, err := StartOffline(universe.Config{Seed: 7, Speed: 1, Clock: clock}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { off.Close() })
	return &world{t: t, clock: clock, off: off, reg: game.NewRegistry(off.Game)}
}

func argsJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// call runs a tool and fails the test unless it succeeded.
func (w *world) call(name string, args map[string]any) string {
	w.t.Helper()
	r, err := w.reg.Call(context.Background(), name, argsJSON(w.t, args))
	if err != nil {
		w.t.Fatalf("%s %v: %v", name, args, err)
	}
	if !r.OK() {
		w.t.Fatalf("%s %v: %+v %s", name, args, r.Err, r.Output)
	}
	return r.Output
}

// refused runs a tool that must be refused by the game with code.
func (w *world) refused(code int, name string, args map[string]any) game.Result {
	w.t.Helper()
	r, err := w.reg.Call(context.Background(), name, argsJSON(w.t, args))
	if err != nil {
		w.t.Fatalf("%s %v: want game error %d, got error %v", name, args, code, err)
	}
	if r.Err == nil || r.Err.Code != code {
		w.t.Fatalf("%s %v: want game error %d, got %+v (%s)", name, args, code, r.Err, r.Output)
	}
	if !strings.Contains(r.Output, "game error") {
		w.t.Errorf("%s: output should carry the code: %q", name, r.Output)
	}
	return r
}

func (w *world) ships() []Ship {
	w.t.Helper()
	s, err := w.off.Game.Client().Ships(context.Background())
	if err != nil {
		w.t.Fatal(err)
	}
	return s
}

func (w *world) ship(sym string) *Ship {
	w.t.Helper()
	s, err := w.off.Game.Client().Ship(context.Background(), sym)
	if err != nil {
		w.t.Fatal(err)
	}
	return s
}

// arrive moves the clock past a ship's arrival.
func (w *world) arrive(sym string) {
	w.t.Helper()
	s := w.ship(sym)
	if d := s.Nav.Route.Arrival.Sub(w.clock.Now()); d > 0 {
		w.clock.Advance(d + time.Second)
	}
}

// cool moves the clock past a ship's cooldown.
func (w *world) cool(sym string) {
	w.t.Helper()
	s := w.ship(sym)
	if d := s.Cooldown.Expiration.Sub(w.clock.Now()); d > 0 {
		w.clock.Advance(d + time.Second)
	}
}

// fly orbits, navigates and waits out the trip, leaving the ship in orbit at wp.
func (w *world) fly(sym, wp string) {
	w.t.Helper()
	if w.ship(sym).Nav.Status == Docked {
		w.call(ToolOrbitShip, map[string]any{"shipSymbol": sym})
	}
	w.call(ToolNavigateShip, map[string]any{"shipSymbol": sym, "waypointSymbol": wp})
	w.arrive(sym)
}

func (w *world) simulate(name string, args map[string]any) game.Simulation {
	w.t.Helper()
	sim, ok, err := w.reg.Simulate(context.Background(), name, argsJSON(w.t, args))
	if err != nil || !ok {
		w.t.Fatalf("simulate %s %v: ok=%v err=%v %+v", name, args, ok, err, sim)
	}
	return sim
}

func (w *world) credits() int64 {
	w.t.Helper()
	a, err := w.off.Game.Client().Agent(context.Background())
	if err != nil {
		w.t.Fatal(err)
	}
	return a.Credits
}

const (
	home     = "X1-MA52-A1" // HQ: market (FUEL), shipyard
	refinery = "X1-MA52-A2" // the starting contract's destination
	yard     = "X1-MA52-A3" // shipyard where the probe starts
	rock     = "X1-MA52-B1" // engineered asteroid with a market exchanging ores
	far      = "X1-MA52-F1" // asteroid 139 away
	far2     = "X1-MA52-G1" // asteroid 213 from F1
	station  = "X1-MA52-K1" // fuel station
	gate     = "X1-MA52-M1" // jump gate
	cmd      = "COPLAY-1"
	probe    = "COPLAY-2"
)

func TestObserveMatchesObserveGame(t *testing.T) {
	w := newWorld(t)
	obs, err := w.off.Game.Observe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := w.call(ToolObserveGame, map[string]any{})
	if out != obs.Summary {
		t.Fatalf("observe_game output differs from Observation.Summary:\n%s\n---\n%s", out, obs.Summary)
	}
	for _, want := range []string{"Agent COPLAY", "175,000 credits", cmd + " (COMMAND) DOCKED at " + home, "fuel 400/400", "cargo 0/40", "PROCUREMENT", "COPPER_ORE 0/59 to " + refinery} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if obs.Map == nil || len(obs.Map.Points) != 16 {
		t.Fatalf("map: %+v", obs.Map)
	}
	marks := map[string][]string{}
	for _, p := range obs.Map.Points {
		marks[p.Label] = p.Marks
	}
	if fmt.Sprint(marks[home]) != "[COPLAY-1]" || fmt.Sprint(marks[yard]) != "[COPLAY-2]" {
		t.Errorf("ship marks: home %v yard %v", marks[home], marks[yard])
	}
	if len(obs.Metrics) != 3 || obs.Metrics[0].Name != "credits" || obs.Metrics[0].Value != 175000 {
		t.Errorf("metrics: %+v", obs.Metrics)
	}
	if len(obs.Timers) != 0 || !obs.IdleUntil.IsZero() {
		t.Errorf("nothing is running yet: timers %+v idle %v", obs.Timers, obs.IdleUntil)
	}
}

func TestPlayNavigation(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	nav := map[string]any{"shipSymbol": cmd, "waypointSymbol": far}

	// Docked: the game refuses to navigate, and the dry run says so.
	if sim := w.simulate(ToolNavigateShip, nav); !sim.Fails || !strings.Contains(sim.Summary, "4236") {
		t.Errorf("dry run while docked: %+v", sim)
	}
	w.refused(4236, ToolNavigateShip, nav)

	w.call(ToolOrbitShip, map[string]any{"shipSymbol": cmd})
	// In orbit: no trading or refuelling.
	w.refused(4244, ToolPurchaseCargo, map[string]any{"shipSymbol": cmd, "symbol": "FOOD", "units": 1})
	w.refused(4225, ToolRefuelShip, map[string]any{"shipSymbol": cmd})

	// The dry run predicts the fuel and the arrival the game then reports.
	sim := w.simulate(ToolNavigateShip, nav)
	if sim.Fails || !strings.Contains(sim.Summary, "uses 139 fuel (400 → 261)") {
		t.Fatalf("dry run: %+v", sim)
	}
	out := w.call(ToolNavigateShip, nav)
	s := w.ship(cmd)
	if s.Fuel.Current != 261 || !strings.Contains(out, "fuel 261/400 (used 139)") || !strings.Contains(out, "IN_TRANSIT") {
		t.Fatalf("navigate: %s / fuel %d", out, s.Fuel.Current)
	}
	if want := clock(s.Nav.Route.Arrival); !strings.Contains(sim.Summary, want) {
		t.Errorf("dry run arrival %q, game says %s", sim.Summary, want)
	}

	// In transit: refusals carry a wait until the arrival.
	r := w.refused(4214, ToolDockShip, map[string]any{"shipSymbol": cmd})
	if r.Wait == nil || !r.Wait.Until.Equal(s.Nav.Route.Arrival) {
		t.Errorf("in-transit wait: %+v, arrival %v", r.Wait, s.Nav.Route.Arrival)
	}
	obs, err := w.off.Game.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(obs.Timers) != 1 || !obs.Timers[0].End.Equal(s.Nav.Route.Arrival) {
		t.Errorf("timers: %+v", obs.Timers)
	}
	w.arrive(cmd)

	// BURN twice the distance: more fuel than is left.
	w.call(ToolSetFlightMode, map[string]any{"shipSymbol": cmd, "flightMode": "BURN"})
	nav2 := map[string]any{"shipSymbol": cmd, "waypointSymbol": far2}
	if sim := w.simulate(ToolNavigateShip, nav2); !sim.Fails || !strings.Contains(sim.Summary, "4203") {
		t.Errorf("dry run without fuel: %+v", sim)
	}
	w.refused(4203, ToolNavigateShip, nav2)

	// Refuel at the fuel station: the dry run gives the price the game charges.
	w.call(ToolSetFlightMode, map[string]any{"shipSymbol": cmd, "flightMode": "CRUISE"})
	w.fly(cmd, station)
	w.call(ToolDockShip, map[string]any{"shipSymbol": cmd})
	sim = w.simulate(ToolRefuelShip, map[string]any{"shipSymbol": cmd})
	before := w.credits()
	out = w.call(ToolRefuelShip, map[string]any{"shipSymbol": cmd})
	spent := before - w.credits()
	if !strings.Contains(sim.Summary, "= "+credits(spent)+" credits") || !strings.Contains(out, "fuel 400/400") {
		t.Errorf("refuel: dry run %q, spent %d, output %q", sim.Summary, spent, out)
	}
}
