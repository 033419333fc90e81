package spacetraders

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/internal/drivertest"
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

// call runs a tool and fails the test unless it succeeded.
func (w *world) call(name string, args map[string]any) string {
	w.t.Helper()
	r, err := w.reg.Call(context.Background(), name, drivertest.Args(w.t, args))
	if err != nil {
		w.t.Fatalf("%s %v: %v", name, args, err)
	}
	if !r.OK() {
		w.t.Fatalf("%s %v: %+v %s", name, args, r.Err, r.Output)
	}
	w.sameAsServer("after " + name)
	return r.Output
}

// sameAsServer checks that the game's live world, kept from the answers, says what the
// server says (read without the world, through the client).
func (w *world) sameAsServer(when string) {
	w.t.Helper()
	ctx := context.Background()
	snap, err := w.off.Game.Snapshot(ctx)
	if err != nil {
		w.t.Fatal(err)
	}
	a, err := w.off.Game.Client().Agent(ctx)
	if err != nil {
		w.t.Fatal(err)
	}
	ks, err := w.off.Game.Client().Contracts(ctx)
	if err != nil {
		w.t.Fatal(err)
	}
	checkSame(w.t, when, snap, a, w.ships(), ks)
}

// refused runs a tool that must be refused by the game with code.
func (w *world) refused(code int, name string, args map[string]any) game.Result {
	w.t.Helper()
	r, err := w.reg.Call(context.Background(), name, drivertest.Args(w.t, args))
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
	sim, ok, err := w.reg.Simulate(context.Background(), name, drivertest.Args(w.t, args))
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
	out := w.call("observe_game", map[string]any{})
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
	if sim := w.simulate(ToolNavigateShip, nav); !sim.Fails || !strings.Contains(sim.Summary, "4236") || sim.Effects != nil {
		t.Errorf("dry run while docked: %+v (a predicted failure has no effects)", sim)
	}
	w.refused(4236, ToolNavigateShip, nav)

	if sim := w.simulate(ToolOrbitShip, map[string]any{"shipSymbol": cmd}); sim.Fails || sim.Warning != "" || len(sim.Effects) != 1 || sim.Effects["seconds"] != 0 {
		t.Errorf("orbit dry run: %+v", sim)
	}
	w.call(ToolOrbitShip, map[string]any{"shipSymbol": cmd})
	if sim := w.simulate(ToolOrbitShip, map[string]any{"shipSymbol": cmd}); sim.Fails || sim.Warning != "already in orbit" {
		t.Errorf("orbit dry run in orbit: %+v", sim)
	}
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
	if trip := s.Nav.Route.Arrival.Sub(s.Nav.Route.DepartureTime).Seconds(); sim.Effects["fuel"] != 139 || sim.Effects["seconds"] != trip || len(sim.Effects) != 2 {
		t.Errorf("navigate effects %v, want fuel 139 and seconds %v", sim.Effects, trip)
	}

	// In transit: refusals carry a wait until the arrival.
	if sim := w.simulate(ToolDockShip, map[string]any{"shipSymbol": cmd}); !sim.Fails || !strings.Contains(sim.Summary, "4214") || sim.Effects != nil {
		t.Errorf("dock dry run in transit: %+v", sim)
	}
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
	fuelBefore := w.ship(cmd).Fuel.Current
	before := w.credits()
	out = w.call(ToolRefuelShip, map[string]any{"shipSymbol": cmd})
	spent := before - w.credits()
	if !strings.Contains(sim.Summary, "= "+credits(spent)+" credits") || !strings.Contains(out, "fuel 400/400") {
		t.Errorf("refuel: dry run %q, spent %d, output %q", sim.Summary, spent, out)
	}
	if sim.Effects["cost"] != float64(spent) || sim.Effects["fuel_added"] != float64(400-fuelBefore) {
		t.Errorf("refuel effects %v, want cost %d and fuel_added %d", sim.Effects, spent, 400-fuelBefore)
	}
}

func TestPlayContractTradeAndMining(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	ks, err := w.off.Game.Client().Contracts(ctx)
	if err != nil || len(ks) != 1 {
		t.Fatalf("contracts: %v %v", ks, err)
	}
	id := ks[0].ID
	need := ks[0].Terms.Deliver[0].UnitsRequired

	w.refused(4505, ToolDeliverContract, map[string]any{"contractId": id, "shipSymbol": cmd, "tradeSymbol": "COPPER_ORE", "units": 1})
	if sim := w.simulate(ToolFulfillContract, map[string]any{"contractId": id}); !sim.Fails || !strings.Contains(sim.Summary, "4505") {
		t.Errorf("fulfil dry run before accepting: %+v", sim)
	}
	if sim, ok, err := w.reg.Simulate(ctx, ToolAcceptContract, drivertest.Args(t, map[string]any{"contractId": "someone-elses"})); ok || err != nil || sim.Effects != nil {
		t.Errorf("accept dry run of an unknown contract: %+v %v %v; want no prediction", sim, ok, err)
	}
	sim := w.simulate(ToolAcceptContract, map[string]any{"contractId": id})
	if sim.Fails || sim.Effects["income"] != float64(ks[0].Terms.Payment.OnAccepted) || len(sim.Effects) != 1 {
		t.Errorf("accept dry run: %+v", sim)
	}
	out := w.call(ToolAcceptContract, map[string]any{"contractId": id})
	if !strings.Contains(out, "accepted") || !strings.Contains(out, "Credits now 175,885") {
		t.Errorf("accept: %s", out)
	}
	if sim := w.simulate(ToolAcceptContract, map[string]any{"contractId": id}); !sim.Fails || !strings.Contains(sim.Summary, "4501") || sim.Effects != nil {
		t.Errorf("accept dry run when accepted: %+v", sim)
	}
	w.refused(4501, ToolAcceptContract, map[string]any{"contractId": id})
	if sim := w.simulate(ToolFulfillContract, map[string]any{"contractId": id}); !sim.Fails || !strings.Contains(sim.Summary, "4502") {
		t.Errorf("fulfil dry run before delivering: %+v", sim)
	}
	w.refused(4502, ToolFulfillContract, map[string]any{"contractId": id})
	w.refused(4511, ToolNegotiateContract, map[string]any{"shipSymbol": cmd})

	// Mine at the asteroid: cooldown, then survey-targeted extraction.
	w.fly(cmd, rock)
	out = w.call(ToolExtractResources, map[string]any{"shipSymbol": cmd})
	if !strings.Contains(out, "extracted") || !strings.Contains(out, "cooldown ends in") {
		t.Errorf("extract: %s", out)
	}
	r := w.refused(4000, ToolExtractResources, map[string]any{"shipSymbol": cmd})
	if r.Wait == nil || !r.Wait.Until.After(w.clock.Now()) {
		t.Errorf("cooldown wait: %+v", r.Wait)
	}
	w.cool(cmd)
	out = w.call(ToolCreateSurvey, map[string]any{"shipSymbol": cmd})
	lines := strings.Split(out, "\n")
	if len(lines) < 2 {
		t.Fatalf("survey: %s", out)
	}
	var survey map[string]any
	if err := json.Unmarshal([]byte(lines[1]), &survey); err != nil {
		t.Fatalf("survey line is not JSON a model can copy: %q: %v", lines[1], err)
	}
	w.cool(cmd)
	w.call(ToolExtractResources, map[string]any{"shipSymbol": cmd, "survey": survey})
	w.cool(cmd)

	// Trade at the asteroid's market: dry runs give the totals the game charges.
	w.call(ToolDockShip, map[string]any{"shipSymbol": cmd})
	w.call("observe_detail", map[string]any{"view": "market", "waypointSymbol": rock})
	for _, it := range w.ship(cmd).Cargo.Inventory {
		if it.Symbol == "COPPER_ORE" {
			continue
		}
		sell := map[string]any{"shipSymbol": cmd, "symbol": it.Symbol, "units": it.Units}
		sim := w.simulate(ToolSellCargo, sell)
		before := w.credits()
		out := w.call(ToolSellCargo, sell)
		if got := w.credits() - before; !strings.Contains(sim.Summary, "= "+credits(got)+" credits") || !strings.Contains(out, "Sold") {
			t.Errorf("sell %s: dry run %q, got %d: %s", it.Symbol, sim.Summary, got, out)
		} else if sim.Effects["income"] != float64(got) || sim.Effects["units"] != float64(it.Units) || sim.Effects["cost"] != 0 {
			t.Errorf("sell %s: effects %v, got %d credits", it.Symbol, sim.Effects, got)
		}
	}
	w.refused(4218, ToolSellCargo, map[string]any{"shipSymbol": cmd, "symbol": "ICE_WATER", "units": 1})
	free := 40 - w.ship(cmd).Cargo.Units
	buy := map[string]any{"shipSymbol": cmd, "symbol": "COPPER_ORE", "units": free}
	sim = w.simulate(ToolPurchaseCargo, buy)
	before := w.credits()
	w.call(ToolPurchaseCargo, buy)
	if got := before - w.credits(); !strings.Contains(sim.Summary, "= "+credits(got)+" credits") {
		t.Errorf("purchase: dry run %q, paid %d", sim.Summary, got)
	} else if sim.Effects["cost"] != float64(got) || sim.Effects["units"] != float64(free) || sim.Effects["income"] != 0 {
		t.Errorf("purchase: effects %v, paid %d", sim.Effects, got)
	}
	w.refused(4217, ToolPurchaseCargo, map[string]any{"shipSymbol": cmd, "symbol": "COPPER_ORE", "units": 1})
	w.call(ToolOrbitShip, map[string]any{"shipSymbol": cmd})
	w.refused(4228, ToolExtractResources, map[string]any{"shipSymbol": cmd})

	// Deliveries: at the wrong place, the wrong good, then the real thing, twice.
	w.call(ToolDockShip, map[string]any{"shipSymbol": cmd})
	w.refused(4510, ToolDeliverContract, map[string]any{"contractId": id, "shipSymbol": cmd, "tradeSymbol": "COPPER_ORE", "units": 1})
	delivered := 0
	for delivered < need {
		w.fly(cmd, refinery)
		w.call(ToolDockShip, map[string]any{"shipSymbol": cmd})
		if delivered == 0 {
			w.refused(4508, ToolDeliverContract, map[string]any{"contractId": id, "shipSymbol": cmd, "tradeSymbol": "IRON_ORE", "units": 1})
		}
		n := min(w.ship(cmd).Cargo.Count("COPPER_ORE"), need-delivered)
		out := w.call(ToolDeliverContract, map[string]any{"contractId": id, "shipSymbol": cmd, "tradeSymbol": "COPPER_ORE", "units": n})
		delivered += n
		if !strings.Contains(out, fmt.Sprintf("COPPER_ORE %d/%d", delivered, need)) {
			t.Fatalf("deliver: %s", out)
		}
		if delivered < need {
			w.fly(cmd, rock)
			w.call(ToolDockShip, map[string]any{"shipSymbol": cmd})
			w.call(ToolPurchaseCargo, map[string]any{"shipSymbol": cmd, "symbol": "COPPER_ORE", "units": min(need-delivered, 40-w.ship(cmd).Cargo.Units)})
		}
	}
	sim = w.simulate(ToolFulfillContract, map[string]any{"contractId": id})
	before = w.credits()
	out = w.call(ToolFulfillContract, map[string]any{"contractId": id})
	if w.credits()-before != ks[0].Terms.Payment.OnFulfilled || !strings.Contains(out, "fulfilled") {
		t.Errorf("fulfil: %s", out)
	}
	if sim.Fails || sim.Effects["income"] != float64(w.credits()-before) {
		t.Errorf("fulfil dry run %+v, paid %d", sim, w.credits()-before)
	}
	w.refused(4504, ToolFulfillContract, map[string]any{"contractId": id})
	out = w.call(ToolNegotiateContract, map[string]any{"shipSymbol": cmd})
	if !strings.Contains(out, "New contract offered") {
		t.Errorf("negotiate: %s", out)
	}
	if left := w.ship(cmd).Cargo.Units; left > 0 {
		w.call(ToolJettisonCargo, map[string]any{"shipSymbol": cmd, "symbol": w.ship(cmd).Cargo.Inventory[0].Symbol, "units": w.ship(cmd).Cargo.Inventory[0].Units})
	}
}

func TestPlayFleetJumpAndChart(t *testing.T) {
	w := newWorld(t)
	w.refused(4216, "purchase_ship", map[string]any{"shipType": "SHIP_EXPLORER", "waypointSymbol": yard})
	w.refused(4245, "purchase_ship", map[string]any{"shipType": "SHIP_BULK_FREIGHTER", "waypointSymbol": yard})
	out := w.call("purchase_ship", map[string]any{"shipType": "SHIP_LIGHT_HAULER", "waypointSymbol": yard})
	if !strings.Contains(out, "credits now 85,000") {
		t.Errorf("purchase ship: %s", out)
	}
	hauler := w.ships()[2].Symbol

	// Cargo moves only between ships at the same waypoint.
	w.call(ToolPurchaseCargo, map[string]any{"shipSymbol": cmd, "symbol": "FOOD", "units": 5})
	w.refused(4234, "transfer_cargo", map[string]any{"shipSymbol": cmd, "tradeSymbol": "FOOD", "units": 5, "toShipSymbol": hauler})
	w.fly(cmd, yard)
	w.call(ToolDockShip, map[string]any{"shipSymbol": cmd})
	out = w.call("transfer_cargo", map[string]any{"shipSymbol": cmd, "tradeSymbol": "FOOD", "units": 3, "toShipSymbol": hauler})
	if !strings.Contains(out, "cargo 2/40 (FOOD×2)") || w.ship(hauler).Cargo.Count("FOOD") != 3 {
		t.Errorf("transfer: %s", out)
	}
	out = w.call(ToolJettisonCargo, map[string]any{"shipSymbol": hauler, "symbol": "FOOD", "units": 3})
	if !strings.Contains(out, "Jettisoned 3 FOOD") || w.ship(hauler).Cargo.Units != 0 {
		t.Errorf("jettison: %s", out)
	}
	w.refused(4219, ToolJettisonCargo, map[string]any{"shipSymbol": cmd, "symbol": "FOOD", "units": 9})

	// Through the gate to another system, and chart what nobody has charted.
	w.fly(cmd, gate)
	out = w.call("observe_detail", map[string]any{"view": "jump_gate", "waypointSymbol": gate})
	dest := strings.Split(strings.SplitN(out, ": ", 2)[1], ", ")[0]
	w.refused(4230, "create_chart", map[string]any{"shipSymbol": cmd})
	out = w.call("jump_ship", map[string]any{"shipSymbol": cmd, "waypointSymbol": dest})
	if !strings.Contains(out, "at "+dest) {
		t.Fatalf("jump: %s", out)
	}
	w.cool(cmd)
	sys := SystemOf(dest)
	list := w.call("observe_detail", map[string]any{"view": "system_waypoints", "systemSymbol": sys, "traits": []string{"UNCHARTED"}})
	var target string
	for _, line := range strings.Split(list, "\n")[1:] {
		target = strings.Fields(strings.TrimPrefix(line, "- "))[0]
		break
	}
	if target == "" {
		t.Skipf("no uncharted waypoint in %s: %s", sys, list)
	}
	w.fly(cmd, target)
	out = w.call("create_chart", map[string]any{"shipSymbol": cmd})
	if !strings.Contains(out, "Charted "+target) {
		t.Errorf("chart: %s", out)
	}
}

// countingTransport counts the requests that reach the network.
type countingTransport struct{ n int }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n++
	return http.DefaultTransport.RoundTrip(r)
}

func TestDetailViewsAndLocalChecks(t *testing.T) {
	w := newWorld(t)
	ct := &countingTransport{}
	g := New(Config{BaseURL: w.off.URL, Token: w.off.Token, HTTPClient: &http.Client{Transport: ct}, Now: w.clock.Now, Offline: true})
	reg := game.NewRegistry(g)
	ctx := context.Background()
	ks, _ := g.Client().Contracts(ctx)
	views := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"view": "waypoint", "waypointSymbol": home}, "X1-MA52-A1 PLANET (17,18) traits: MARKETPLACE, SHIPYARD"},
		{map[string]any{"view": "system_waypoints", "type": "FUEL_STATION"}, "1 waypoints in X1-MA52"},
		{map[string]any{"view": "market", "waypointSymbol": home}, "FUEL EXCHANGE 75 69 100"},
		{map[string]any{"view": "shipyard", "waypointSymbol": yard}, "SHIP_LIGHT_HAULER 90,000 credits"},
		{map[string]any{"view": "jump_gate", "waypointSymbol": gate}, "connects to: X1-"},
		{map[string]any{"view": "contract", "contractId": ks[0].ID}, "deliver COPPER_ORE 0/59"},
		{map[string]any{"view": "ship", "shipSymbol": cmd}, "mounts: MOUNT_SENSOR_ARRAY_I, MOUNT_MINING_LASER_II"},
	}
	for _, v := range views {
		r, err := reg.Call(ctx, "observe_detail", drivertest.Args(t, v.args))
		if err != nil || !r.OK() || !strings.Contains(r.Output, v.want) {
			t.Errorf("%v: %v %+v, want %q in:\n%s", v.args, err, r.Err, v.want, r.Output)
		}
	}
	r, _ := reg.Call(ctx, "observe_detail", drivertest.Args(t, map[string]any{"view": "ship", "shipSymbol": "NOPE-9"}))
	if r.Err == nil || r.Err.Code != 404 && r.Err.Code < 4000 {
		t.Errorf("unknown ship: %+v", r)
	}

	// Wrong goods and traits are refused here, with the closest values, and never sent.
	sent := ct.n
	local := []struct {
		tool string
		args map[string]any
		want string
	}{
		{ToolSellCargo, map[string]any{"shipSymbol": cmd, "symbol": "IRON_ORES", "units": 1}, "arguments.symbol: expected a trade good symbol (as listed in markets and cargo), got string \"IRON_ORES\" (did you mean IRON_ORE"},
		{ToolPurchaseCargo, map[string]any{"shipSymbol": cmd, "symbol": "copper_ore", "units": 1}, "did you mean COPPER_ORE"},
		{ToolDeliverContract, map[string]any{"contractId": "x", "shipSymbol": cmd, "tradeSymbol": "GOLDD", "units": 1}, "arguments.tradeSymbol"},
		{"observe_detail", map[string]any{"view": "system_waypoints", "traits": []string{"MARKETPLAC"}}, "did you mean MARKETPLACE"},
		{"observe_detail", map[string]any{"view": "market"}, "arguments.waypointSymbol: expected required string for view \"market\""},
		{ToolExtractResources, map[string]any{"shipSymbol": cmd, "survey": map[string]any{"signature": "S", "symbol": rock, "deposits": []any{}, "expiration": "tomorrow", "size": "SMALL"}}, "arguments.survey.expiration"},
	}
	for _, c := range local {
		_, err := reg.Call(ctx, c.tool, drivertest.Args(t, c.args))
		var ve *game.ValidationError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: want validation error with %q, got %v", c.tool, c.args, c.want, err)
		}
	}
	if ct.n != sent {
		t.Errorf("%d requests were sent for invalid calls", ct.n-sent)
	}
}

func TestRegisterAndResume(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	tok, err := Register(ctx, w.off.URL, "", "NEWBIE", "COSMIC", nil)
	if err != nil || tok == "" {
		t.Fatalf("register: %q %v", tok, err)
	}
	_, err = Register(ctx, w.off.URL, "", "NEWBIE", "COSMIC", nil)
	var ae *APIError
	if !errors.As(err, &ae) || ae.Code != 4111 {
		t.Fatalf("registering a taken symbol: %v", err)
	}

	// A resumed universe gives the same agent back without being handed its token.
	w.call(ToolAcceptContract, map[string]any{"contractId": mustContract(t, w)})
	state, err := w.off.Save()
	if err != nil {
		t.Fatal(err)
	}
	again, err := StartOffline(universe.Config{Speed: 1, Clock: w.clock}, state, "")
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	a, err := again.Game.Client().Agent(ctx)
	if err != nil || a.Symbol != "COPLAY" || a.Credits != w.credits() || again.Token != w.off.Token {
		t.Fatalf("resumed agent %+v %v", a, err)
	}
}

func mustContract(t *testing.T, w *world) string {
	t.Helper()
	ks, err := w.off.Game.Client().Contracts(context.Background())
	if err != nil || len(ks) == 0 {
		t.Fatalf("contracts: %v %v", ks, err)
	}
	return ks[0].ID
}
