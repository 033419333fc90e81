package universe

import (
	"github.com/coplayhq/coplay/game/spacetraders/wire"
	"slices"
	"strings"
)

// This file serves trading and cargo: refuel, purchase, sell, jettison and transfer.

func cargoCapacity(s *ship) int {
	n := 0
	for _, m := range s.Modules {
		if strings.HasPrefix(m, "MODULE_CARGO_HOLD") {
			n += modules[m].capacity
		}
	}
	return n
}

func cargoUnits(s *ship) int {
	n := 0
	for _, it := range s.Cargo {
		n += it.Units
	}
	return n
}

func addCargo(s *ship, symbol string, units int) {
	for i := range s.Cargo {
		if s.Cargo[i].Symbol == symbol {
			s.Cargo[i].Units += units
			return
		}
	}
	s.Cargo = append(s.Cargo, cargoItem{symbol, units})
}

// takeCargo removes units of a good, or says why it cannot.
func takeCargo(s *ship, symbol string, units int) *apiError {
	i := slices.IndexFunc(s.Cargo, func(it cargoItem) bool { return it.Symbol == symbol })
	if i < 0 {
		return gameErr(codeCargoMissing, "Ship %s has no %s in its cargo.", s.Symbol, symbol).with("tradeSymbol", symbol)
	}
	if s.Cargo[i].Units < units {
		return gameErr(codeCargoUnits, "Ship %s has %d units of %s, fewer than the %d asked for.", s.Symbol, s.Cargo[i].Units, symbol, units).
			with("tradeSymbol", symbol).with("cargoUnits", s.Cargo[i].Units).with("unitsToRemove", units)
	}
	s.Cargo[i].Units -= units
	if s.Cargo[i].Units == 0 {
		s.Cargo = slices.Delete(s.Cargo, i, i+1)
	}
	return nil
}

func (u *Universe) marketHere(s *ship) (*market, *apiError) {
	w := u.waypoints[s.Waypoint]
	if w.Market == nil || (w.Uncharted && w.ChartedBy == "") {
		return nil, gameErr(codeNoMarket, "There is no marketplace at %s.", w.Symbol)
	}
	return w.Market, nil
}

// fuelPerUnit is how much tank fuel one market unit of FUEL fills, as in the real game.
const fuelPerUnit = 100

func (u *Universe) refuel(c *call) (int, any, *apiError) {
	s, req, e := shipRequest[wire.RefuelRequest](u, c, true)
	if e != nil {
		return fail(e)
	}
	if e := u.inTransit(s); e != nil {
		return fail(e)
	}
	if s.Status != "DOCKED" {
		return fail(gameErr(codeRefuelDocked, "Ship %s must be docked to refuel; it is in orbit at %s.", s.Symbol, s.Waypoint))
	}
	capacity := frames[shipTypes[s.Type].frame].fuelCap
	space := capacity - s.Fuel
	units := req.Units
	if units == 0 {
		units = space
	}
	if units < 0 || units > space {
		return fail(invalid("units", "ship %s can take 1 to %d more fuel, got %d", s.Symbol, space, units))
	}
	marketUnits := (units + fuelPerUnit - 1) / fuelPerUnit
	var t *transaction
	var cargo *wire.ShipCargo
	if req.FromCargo {
		if e := takeCargo(s, "FUEL", marketUnits); e != nil {
			return fail(e)
		}
		cc := renderCargo(s)
		cargo = &cc
		t = &transaction{Ship: s.Symbol, Good: "FUEL", Type: "PURCHASE", Units: marketUnits, Timestamp: u.now}
	} else {
		m, e := u.marketHere(s)
		g := (*marketGood)(nil)
		if e == nil {
			g = findGood(m, "FUEL")
		}
		if g == nil {
			return fail(gameErr(codeRefuelNoFuel, "The marketplace at %s does not sell fuel.", s.Waypoint))
		}
		u.drift(g)
		price, _ := prices(g)
		total := int64(price * marketUnits)
		if c.a.Credits < total {
			return fail(gameErr(codeCredits, "Refuel of %d fuel costs %d credits and agent %s has %d.", units, total, c.a.Symbol, c.a.Credits).
				with("creditsAvailable", c.a.Credits).with("creditsNeeded", total))
		}
		c.a.Credits -= total
		u.trade(g, marketUnits, true)
		t = &transaction{Ship: s.Symbol, Good: "FUEL", Type: "PURCHASE", Units: marketUnits, Price: price, Timestamp: u.now}
		u.record(m, t)
	}
	s.Fuel += units
	fuel := renderFuel(s)
	return ok(wire.TradeResult{Agent: renderAgent(c.a, true), Fuel: &fuel, Transaction: renderTransaction(s.Waypoint, t), Cargo: cargo})
}

// atLeastOneUnit refuses to trade, move or deliver fewer than one unit.
func atLeastOneUnit(units int) *apiError {
	if units < 1 {
		return invalid("units", "units must be at least 1, got %d", units)
	}
	return nil
}

// movable refuses to jettison or transfer fewer than one unit, or from a ship in
// transit.
func (u *Universe) movable(s *ship, units int) *apiError {
	if e := atLeastOneUnit(units); e != nil {
		return e
	}
	return u.inTransit(s)
}

// traded is the answer to a purchase or a sale.
func traded(a wire.Agent, cargo wire.ShipCargo, t wire.MarketTransaction) wire.TradeResult {
	return wire.TradeResult{Agent: a, Cargo: &cargo, Transaction: t}
}

// tradeSetup checks what buying and selling share and returns the market good.
func (u *Universe) tradeSetup(c *call, buying bool) (*ship, *market, *marketGood, wire.CargoRequest, *apiError) {
	s, req, e := shipRequest[wire.CargoRequest](u, c, false)
	if e == nil {
		e = atLeastOneUnit(req.Units)
	}
	if e == nil {
		e = u.mustDock(s)
	}
	var m *market
	if e == nil {
		m, e = u.marketHere(s)
	}
	var g *marketGood
	if e == nil {
		g = findGood(m, req.Symbol)
		switch {
		case g == nil && buying:
			e = gameErr(codeNotSold, "The marketplace at %s does not sell %s.", s.Waypoint, req.Symbol).with("tradeSymbol", req.Symbol)
		case g == nil:
			e = gameErr(codeNotBought, "The marketplace at %s does not buy %s.", s.Waypoint, req.Symbol).with("tradeSymbol", req.Symbol)
		case req.Units > goods[g.Symbol].volume:
			e = gameErr(codeTradeVolume, "The marketplace at %s trades at most %d units of %s at a time; asked for %d.",
				s.Waypoint, goods[g.Symbol].volume, g.Symbol, req.Units).with("tradeVolume", goods[g.Symbol].volume).with("units", req.Units)
		default:
			u.drift(g)
		}
	}
	return s, m, g, req, e
}

func (u *Universe) purchaseCargo(c *call) (int, any, *apiError) {
	s, m, g, req, e := u.tradeSetup(c, true)
	if e != nil {
		return fail(e)
	}
	if free := cargoCapacity(s) - cargoUnits(s); req.Units > free {
		return fail(gameErr(codeCargoExceeds, "Ship %s has room for %d more units, not %d.", s.Symbol, free, req.Units).
			with("cargoCapacity", cargoCapacity(s)).with("cargoUnits", cargoUnits(s)).with("unitsToAdd", req.Units))
	}
	price, _ := prices(g)
	total := int64(price * req.Units)
	if c.a.Credits < total {
		return fail(gameErr(codeCredits, "%d units of %s cost %d credits and agent %s has %d.", req.Units, g.Symbol, total, c.a.Symbol, c.a.Credits).
			with("creditsAvailable", c.a.Credits).with("creditsNeeded", total))
	}
	c.a.Credits -= total
	addCargo(s, g.Symbol, req.Units)
	u.trade(g, req.Units, true)
	t := &transaction{Ship: s.Symbol, Good: g.Symbol, Type: "PURCHASE", Units: req.Units, Price: price, Timestamp: u.now}
	u.record(m, t)
	return created(traded(renderAgent(c.a, true), renderCargo(s), renderTransaction(s.Waypoint, t)))
}

func (u *Universe) sellCargo(c *call) (int, any, *apiError) {
	s, m, g, req, e := u.tradeSetup(c, false)
	if e != nil {
		return fail(e)
	}
	if e := takeCargo(s, g.Symbol, req.Units); e != nil {
		return fail(e)
	}
	_, price := prices(g)
	c.a.Credits += int64(price * req.Units)
	u.trade(g, req.Units, false)
	t := &transaction{Ship: s.Symbol, Good: g.Symbol, Type: "SELL", Units: req.Units, Price: price, Timestamp: u.now}
	u.record(m, t)
	return created(traded(renderAgent(c.a, true), renderCargo(s), renderTransaction(s.Waypoint, t)))
}

func (u *Universe) jettison(c *call) (int, any, *apiError) {
	s, req, e := shipRequest[wire.CargoRequest](u, c, false)
	if e == nil {
		e = u.movable(s, req.Units)
	}
	if e != nil {
		return fail(e)
	}
	if e := takeCargo(s, req.Symbol, req.Units); e != nil {
		return fail(e)
	}
	return ok(wire.CargoResult{Cargo: renderCargo(s)})
}

func (u *Universe) transfer(c *call) (int, any, *apiError) {
	s, req, e := shipRequest[wire.TransferRequest](u, c, false)
	if e == nil {
		e = u.movable(s, req.Units)
	}
	if e != nil {
		return fail(e)
	}
	target := u.ships[strings.ToUpper(req.ShipSymbol)]
	switch {
	case target == nil:
		return fail(gameErr(codeTransferNotFound, "Transfer failed: ship %q not found.", req.ShipSymbol))
	case target.Agent != c.a.Symbol:
		return fail(gameErr(codeTransferOtherAgent, "Transfer failed: ship %s belongs to another agent.", target.Symbol))
	case target == s:
		return fail(gameErr(codeTransferSameShip, "Transfer failed: a ship cannot transfer cargo to itself."))
	}
	u.settle(target)
	if target.Status == "IN_TRANSIT" || target.Waypoint != s.Waypoint {
		return fail(gameErr(codeTransferLocation, "Transfer failed: ships %s and %s are not at the same waypoint.", s.Symbol, target.Symbol))
	}
	if free := cargoCapacity(target) - cargoUnits(target); req.Units > free {
		return fail(gameErr(codeCargoExceeds, "Transfer failed: ship %s has room for %d more units, not %d.", target.Symbol, free, req.Units))
	}
	if e := takeCargo(s, req.TradeSymbol, req.Units); e != nil {
		return fail(e)
	}
	addCargo(target, req.TradeSymbol, req.Units)
	targetCargo := renderCargo(target)
	return ok(wire.CargoResult{Cargo: renderCargo(s), TargetCargo: &targetCargo})
}
