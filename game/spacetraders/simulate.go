package spacetraders

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/coplayhq/coplay/game"
)

// simOrbit predicts orbit_ship: refused in transit, otherwise immediate (a ship already
// in orbit stays there).
func (g *Game) simOrbit(ctx context.Context, a shipArgs) (game.Simulation, bool, error) {
	return g.simStatus(ctx, a.ShipSymbol, InOrbit)
}

// simDock predicts dock_ship: refused in transit, otherwise immediate.
func (g *Game) simDock(ctx context.Context, a shipArgs) (game.Simulation, bool, error) {
	return g.simStatus(ctx, a.ShipSymbol, Docked)
}

func (g *Game) simStatus(ctx context.Context, symbol, want string) (game.Simulation, bool, error) {
	s, _, err := g.shipNow(ctx, symbol)
	if err != nil {
		return game.Simulation{}, false, err
	}
	if s.Nav.Status == InTransit && s.Nav.Route.Arrival.After(g.now()) {
		return fails(4214, "%s is in transit, arrives %s", s.Symbol, g.until(s.Nav.Route.Arrival))
	}
	state := strings.ToLower(strings.ReplaceAll(want, "_", " ")) // "in orbit", "docked"
	sim := game.Simulation{Summary: fmt.Sprintf("%s will be %s at %s at once, using no fuel", s.Symbol, state, s.Nav.WaypointSymbol),
		Effects: map[string]float64{EffectSeconds: 0}}
	if status := s.Nav.Status; status == want || (status == InTransit && want == InOrbit) {
		sim.Warning = "already " + state
	}
	return sim, true, nil
}

func fails(code int, format string, a ...any) (game.Simulation, bool, error) {
	return game.Simulation{Summary: fmt.Sprintf("would fail (%d): ", code) + fmt.Sprintf(format, a...), Fails: true}, true, nil
}

// ready checks the ship is where it can act: not travelling, and docked or in orbit as
// the call needs.
func (g *Game) ready(s *Ship, want string) (game.Simulation, bool) {
	if s.Nav.Status == InTransit && s.Nav.Route.Arrival.After(g.now()) {
		sim, _, _ := fails(4214, "%s is in transit, arrives %s", s.Symbol, g.until(s.Nav.Route.Arrival))
		return sim, false
	}
	status := s.Nav.Status
	if status == InTransit {
		status = InOrbit
	}
	if want == Docked && status != Docked {
		sim, _, _ := fails(4244, "%s must be docked first (dock_ship)", s.Symbol)
		return sim, false
	}
	if want == InOrbit && status != InOrbit {
		sim, _, _ := fails(4236, "%s must be in orbit first (orbit_ship)", s.Symbol)
		return sim, false
	}
	return game.Simulation{}, true
}

// flightMultiplier is the time factor of each flight mode in the game's travel formula.
var flightMultiplier = map[string]float64{"CRUISE": 25, "DRIFT": 250, "BURN": 12.5, "STEALTH": 30}

// Travel returns the distance, fuel and duration of a trip by the game's formulas:
// distance rounded (at least 1); fuel = distance in CRUISE and STEALTH, 1 in DRIFT, twice
// the distance in BURN, none for ships without a tank; seconds = round(distance ×
// mode multiplier ÷ engine speed + 15), divided by timeScale (the offline universe's
// speed; 1 for the real game).
func Travel(fromX, fromY, toX, toY int, engineSpeed, fuelCapacity int, mode string, timeScale float64) (distance, fuel int, d time.Duration) {
	distance = max(1, int(math.Round(math.Hypot(float64(fromX-toX), float64(fromY-toY)))))
	if engineSpeed <= 0 {
		engineSpeed = 1
	}
	if timeScale <= 0 {
		timeScale = 1
	}
	secs := math.Round(float64(distance)*flightMultiplier[mode]/float64(engineSpeed) + 15)
	d = time.Duration(secs / timeScale * float64(time.Second))
	switch {
	case fuelCapacity == 0:
		fuel = 0
	case mode == "DRIFT":
		fuel = 1
	case mode == "BURN":
		fuel = 2 * distance
	default:
		fuel = distance
	}
	return distance, fuel, d
}

func (g *Game) simNavigate(ctx context.Context, a navigateArgs) (game.Simulation, bool, error) {
	s, _, err := g.shipNow(ctx, a.ShipSymbol)
	if err != nil {
		return game.Simulation{}, false, err
	}
	if sim, ok := g.ready(s, InOrbit); !ok {
		return sim, true, nil
	}
	if SystemOf(a.WaypointSymbol) != s.Nav.SystemSymbol {
		return fails(4202, "%s is outside %s's system %s (jump_ship to change systems)", a.WaypointSymbol, s.Symbol, s.Nav.SystemSymbol)
	}
	if a.WaypointSymbol == s.Nav.WaypointSymbol {
		return fails(4204, "%s is already at %s", s.Symbol, a.WaypointSymbol)
	}
	sys, err := g.system(ctx, s.Nav.SystemSymbol)
	if err != nil {
		return game.Simulation{}, false, err
	}
	var from, to *SystemWaypoint
	for i := range sys.Waypoints {
		switch sys.Waypoints[i].Symbol {
		case s.Nav.WaypointSymbol:
			from = &sys.Waypoints[i]
		case a.WaypointSymbol:
			to = &sys.Waypoints[i]
		}
	}
	if to == nil {
		return fails(4201, "no waypoint %s in system %s", a.WaypointSymbol, sys.Symbol)
	}
	if from == nil {
		return game.Simulation{Summary: "cannot predict: the ship's waypoint is not on the system map"}, false, nil
	}
	dist, fuel, dur := Travel(from.X, from.Y, to.X, to.Y, s.Engine.Speed, s.Fuel.Capacity, s.Nav.FlightMode, g.cfg.TimeScale)
	if fuel > s.Fuel.Current {
		return fails(4203, "needs %d fuel for distance %d in %s mode but has %d; refuel, or DRIFT uses 1", fuel, dist, s.Nav.FlightMode, s.Fuel.Current)
	}
	sim := game.Simulation{Summary: fmt.Sprintf("distance %d in %s: uses %d fuel (%d → %d), arrives in %s (%s)",
		dist, s.Nav.FlightMode, fuel, s.Fuel.Current, s.Fuel.Current-fuel, dur.Round(time.Second), clock(g.now().Add(dur))),
		Effects: map[string]float64{EffectFuel: float64(fuel), EffectSeconds: dur.Seconds()}}
	if s.Fuel.Capacity > 0 && s.Fuel.Current-fuel < s.Fuel.Capacity/10 {
		sim.Warning = "leaves the tank almost empty"
	}
	return sim, true, nil
}

// shipNow returns the ship as the world knows it, settled to now: no request unless the
// world no longer trusts what it has.
func (g *Game) shipNow(ctx context.Context, symbol string) (*Ship, int64, error) {
	snap, err := g.Snapshot(ctx)
	if err != nil {
		return nil, 0, err
	}
	s := snap.Ship(symbol)
	if s == nil {
		return nil, 0, &APIError{Method: "GET", Path: "/my/ships/" + symbol, Status: 404, Code: 404, Message: "Ship " + symbol + " not found."}
	}
	return s, snap.Agent.Credits, nil
}

// marketAt returns the market at the ship's waypoint with the prices seen there: read
// again only when they are older than the price bound (the ship is there, so the server
// shows them).
func (g *Game) marketAt(ctx context.Context, wp string) (*Market, time.Time, error) {
	return g.Market(ctx, wp, g.priceAge())
}

func (g *Game) simPurchase(ctx context.Context, a cargoArgs) (game.Simulation, bool, error) {
	return g.simTrade(ctx, true, a)
}

func (g *Game) simSell(ctx context.Context, a cargoArgs) (game.Simulation, bool, error) {
	return g.simTrade(ctx, false, a)
}

func (g *Game) simTrade(ctx context.Context, buying bool, a cargoArgs) (game.Simulation, bool, error) {
	s, have, err := g.shipNow(ctx, a.ShipSymbol)
	if err != nil {
		return game.Simulation{}, false, err
	}
	if sim, ok := g.ready(s, Docked); !ok {
		return sim, true, nil
	}
	m, seenAt, err := g.marketAt(ctx, s.Nav.WaypointSymbol)
	if err != nil {
		return game.Simulation{}, false, err
	}
	good := m.Good(a.Symbol)
	age := g.now().Sub(seenAt).Round(time.Second)
	if good == nil {
		if len(m.TradeGoods) == 0 {
			return game.Simulation{Summary: "cannot predict: no prices seen at " + s.Nav.WaypointSymbol}, false, nil
		}
		if buying {
			return fails(4601, "%s does not sell %s", s.Nav.WaypointSymbol, a.Symbol)
		}
		return fails(4602, "%s does not buy %s", s.Nav.WaypointSymbol, a.Symbol)
	}
	if a.Units > good.TradeVolume {
		return fails(4604, "%d units is more than the trade volume %d; split it", a.Units, good.TradeVolume)
	}
	free := s.Cargo.Capacity - s.Cargo.Units
	if buying {
		cost := int64(a.Units) * good.PurchasePrice
		if cost > have {
			return fails(4600, "%d %s at %d = %s credits, but you have %s", a.Units, a.Symbol, good.PurchasePrice, credits(cost), credits(have))
		}
		if a.Units > free {
			return fails(4217, "%d units do not fit: %d free of %d", a.Units, free, s.Cargo.Capacity)
		}
		return game.Simulation{Summary: fmt.Sprintf("buys %d %s at %d (price seen %s ago) = %s credits; credits %s → %s; cargo %d → %d/%d",
			a.Units, a.Symbol, good.PurchasePrice, age, credits(cost), credits(have), credits(have-cost), s.Cargo.Units, s.Cargo.Units+a.Units, s.Cargo.Capacity),
			Effects: map[string]float64{EffectCost: float64(cost), EffectUnits: float64(a.Units)}}, true, nil
	}
	carried := s.Cargo.Count(a.Symbol)
	if carried == 0 {
		return fails(4218, "%s carries no %s", s.Symbol, a.Symbol)
	}
	if a.Units > carried {
		return fails(4219, "%s carries only %d %s", s.Symbol, carried, a.Symbol)
	}
	gain := int64(a.Units) * good.SellPrice
	return game.Simulation{Summary: fmt.Sprintf("sells %d %s at %d (price seen %s ago) = %s credits; credits %s → %s; cargo %d → %d/%d",
		a.Units, a.Symbol, good.SellPrice, age, credits(gain), credits(have), credits(have+gain), s.Cargo.Units, s.Cargo.Units-a.Units, s.Cargo.Capacity),
		Effects: map[string]float64{EffectIncome: float64(gain), EffectUnits: float64(a.Units)}}, true, nil
}

// fuelPerMarketUnit is how many ship fuel units one market unit of FUEL fills.
const fuelPerMarketUnit = 100

func (g *Game) simRefuel(ctx context.Context, a refuelArgs) (game.Simulation, bool, error) {
	s, have, err := g.shipNow(ctx, a.ShipSymbol)
	if err != nil {
		return game.Simulation{}, false, err
	}
	if s.Nav.Status == InTransit && s.Nav.Route.Arrival.After(g.now()) {
		return fails(4214, "%s is in transit, arrives %s", s.Symbol, g.until(s.Nav.Route.Arrival))
	}
	if s.Nav.Status != Docked {
		return fails(4225, "%s must be docked to refuel (dock_ship)", s.Symbol)
	}
	space := s.Fuel.Capacity - s.Fuel.Current
	units := a.Units
	var warn string
	if units == 0 {
		units = space
	} else if units > space {
		warn = fmt.Sprintf("the tank takes only %d more; ask for %d", space, space)
		units = space
	}
	if units == 0 {
		return game.Simulation{Summary: "the tank is already full; nothing to buy", Warning: "nothing to do",
			Effects: map[string]float64{EffectCost: 0, EffectFuelAdded: 0}}, true, nil
	}
	market := (units + fuelPerMarketUnit - 1) / fuelPerMarketUnit
	if a.FromCargo {
		if have := s.Cargo.Count("FUEL"); have < market {
			return fails(4219, "needs %d FUEL from cargo, carries %d", market, have)
		}
		return game.Simulation{Summary: fmt.Sprintf("adds %d fuel (%d → %d) using %d FUEL from cargo", units, s.Fuel.Current, s.Fuel.Current+units, market), Warning: warn,
			Effects: map[string]float64{EffectCost: 0, EffectFuelAdded: float64(units)}}, true, nil
	}
	m, _, err := g.marketAt(ctx, s.Nav.WaypointSymbol)
	var ae *APIError
	if errors.As(err, &ae) && ae.Code == 4603 {
		return fails(4226, "no market at %s, so no fuel", s.Nav.WaypointSymbol)
	}
	if err != nil {
		return game.Simulation{}, false, err
	}
	good := m.Good("FUEL")
	if good == nil {
		if len(m.TradeGoods) == 0 {
			return game.Simulation{Summary: "cannot predict: no prices seen at " + s.Nav.WaypointSymbol}, false, nil
		}
		return fails(4226, "%s does not sell FUEL", s.Nav.WaypointSymbol)
	}
	cost := int64(market) * good.PurchasePrice
	if cost > have {
		return fails(4600, "%d FUEL at %d = %s credits, but you have %s", market, good.PurchasePrice, credits(cost), credits(have))
	}
	return game.Simulation{Summary: fmt.Sprintf("adds %d fuel (%d → %d) for %d FUEL at %d = %s credits; credits %s → %s",
		units, s.Fuel.Current, s.Fuel.Current+units, market, good.PurchasePrice, credits(cost), credits(have), credits(have-cost)), Warning: warn,
		Effects: map[string]float64{EffectCost: float64(cost), EffectFuelAdded: float64(units)}}, true, nil
}

// simContract predicts accept_contract (accept) or fulfill_contract from the contracts
// the world knows: the payment, with its income effect, or the game's refusal. A
// contract the world does not know is not predicted.
func (g *Game) simContract(ctx context.Context, id string, accept bool) (game.Simulation, bool, error) {
	snap, err := g.Snapshot(ctx)
	if err != nil {
		return game.Simulation{}, false, err
	}
	var k *Contract
	for i := range snap.Contracts {
		if snap.Contracts[i].ID == id {
			k = &snap.Contracts[i]
		}
	}
	now := g.now()
	switch {
	case k == nil:
		return game.Simulation{Summary: "cannot predict: contract " + id + " is not one of yours as last seen"}, false, nil
	case k.Fulfilled:
		return fails(4504, "contract %s is already fulfilled", k.ID)
	case accept && k.Accepted:
		return fails(4501, "contract %s is already accepted", k.ID)
	case accept && !k.DeadlineToAccept.IsZero() && !now.Before(k.DeadlineToAccept):
		return fails(4503, "the offer of contract %s expired at %s", k.ID, clock(k.DeadlineToAccept))
	case accept:
		pay := k.Terms.Payment.OnAccepted
		return game.Simulation{Summary: fmt.Sprintf("accepts %s; pays %s credits now and %s on fulfilling", k.ID, credits(pay), credits(k.Terms.Payment.OnFulfilled)),
			Effects: map[string]float64{EffectIncome: float64(pay)}}, true, nil
	case !k.Accepted:
		return fails(4505, "contract %s has not been accepted (accept_contract)", k.ID)
	case !k.Terms.Deadline.IsZero() && !now.Before(k.Terms.Deadline):
		return fails(4503, "contract %s passed its deadline at %s", k.ID, clock(k.Terms.Deadline))
	}
	for _, d := range k.Terms.Deliver {
		if d.UnitsFulfilled < d.UnitsRequired {
			return fails(4502, "contract %s still needs %d %s at %s", k.ID, d.UnitsRequired-d.UnitsFulfilled, d.TradeSymbol, d.DestinationSymbol)
		}
	}
	pay := k.Terms.Payment.OnFulfilled
	return game.Simulation{Summary: fmt.Sprintf("fulfils %s; pays %s credits", k.ID, credits(pay)),
		Effects: map[string]float64{EffectIncome: float64(pay)}}, true, nil
}

func (g *Game) simAccept(ctx context.Context, a contractArgs) (game.Simulation, bool, error) {
	return g.simContract(ctx, a.ContractID, true)
}

func (g *Game) simFulfill(ctx context.Context, a contractArgs) (game.Simulation, bool, error) {
	return g.simContract(ctx, a.ContractID, false)
}
