package universe

import (
	"fmt"
	"github.com/coplayhq/coplay/game/spacetraders/wire"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"
)

// This file serves the fleet: ship lookups, purchase, orbit, dock, navigation, flight
// modes, jumps and cooldowns.

func (u *Universe) addShip(a *agent, typ string, at *waypoint) *ship {
	spec := shipTypes[typ]
	s := &ship{
		Symbol: fmt.Sprintf("%s-%X", a.Symbol, len(a.Ships)+1), Type: typ, Agent: a.Symbol, Faction: a.Faction,
		Modules: slices.Clone(spec.modules), Mounts: slices.Clone(spec.mounts),
		System: at.System, Waypoint: at.Symbol, Status: "DOCKED", FlightMode: "CRUISE",
		Origin: at.Symbol, Destination: at.Symbol, Departure: u.now, Arrival: u.now,
		Fuel: frames[spec.frame].fuelCap, FuelUsedAt: u.now,
		Cargo: []cargoItem{},
	}
	if s.Modules == nil {
		s.Modules = []string{}
	}
	if s.Mounts == nil {
		s.Mounts = []string{}
	}
	a.Ships = append(a.Ships, s)
	u.ships[s.Symbol] = s
	return s
}

// settle brings a ship's navigation up to now: a ship in transit whose arrival has passed
// is in orbit at its destination.
func (u *Universe) settle(s *ship) {
	if s.Status == "IN_TRANSIT" && !u.now.Before(s.Arrival) {
		s.Status = "IN_ORBIT"
	}
}

// lookupShip finds the caller's ship named in the path, settled to now.
func (u *Universe) lookupShip(c *call) (*ship, *apiError) {
	sym := strings.ToUpper(c.r.PathValue("ship"))
	s := u.ships[sym]
	if s == nil || s.Agent != c.a.Symbol {
		return nil, notFound("Ship %s not found for agent %s.", sym, c.a.Symbol)
	}
	u.settle(s)
	return s, nil
}

// shipRequest looks up the call's ship, then decodes the request body into a T (an
// empty body is the zero T when optional).
func shipRequest[T any](u *Universe, c *call, optional bool) (*ship, T, *apiError) {
	var req T
	s, e := u.lookupShip(c)
	if e == nil {
		e = decode(c, &req, optional)
	}
	return s, req, e
}

// readyShip looks up the call's ship, then checks it with check (u.inTransit,
// u.mustDock): a problem of either is the answer.
func (u *Universe) readyShip(c *call, check func(*ship) *apiError) (*ship, *apiError) {
	s, e := u.lookupShip(c)
	if e == nil {
		e = check(s)
	}
	return s, e
}

func (u *Universe) inTransit(s *ship) *apiError {
	if s.Status != "IN_TRANSIT" {
		return nil
	}
	secs := int(math.Ceil(s.Arrival.Sub(u.now).Seconds()))
	return gameErr(codeInTransit, "Ship %s is currently in transit to %s and arrives in %d seconds.", s.Symbol, s.Destination, secs).
		with("arrival", ts(s.Arrival)).with("departureSymbol", s.Origin).with("destinationSymbol", s.Destination).
		with("secondsToArrival", secs)
}

func (u *Universe) mustOrbit(s *ship) *apiError {
	return u.mustBe(s, "IN_ORBIT", codeNotInOrbit, "in orbit", "docked")
}

func (u *Universe) mustDock(s *ship) *apiError {
	return u.mustBe(s, "DOCKED", codeNotDocked, "docked", "in orbit")
}

// mustBe refuses a ship in transit, or one not in status (said as want, the other
// status as is), with code.
func (u *Universe) mustBe(s *ship, status string, code int, want, is string) *apiError {
	if e := u.inTransit(s); e != nil {
		return e
	}
	if s.Status != status {
		return gameErr(code, "Ship %s must be %s to do this; it is %s at %s.", s.Symbol, want, is, s.Waypoint)
	}
	return nil
}

func (u *Universe) coolingDown(s *ship) *apiError {
	if u.now.Before(s.CooldownUntil) {
		cd := u.renderCooldown(s)
		return conflict(codeCooldown, "Ship %s is cooling down for another %d seconds.", s.Symbol, cd.RemainingSeconds).
			with("cooldown", cd)
	}
	return nil
}

// startCooldown makes the ship wait a game duration, rounded to whole real seconds as the
// API reports them.
func (u *Universe) startCooldown(s *ship, game time.Duration) {
	secs := max(1, int(math.Round(u.game(game).Seconds())))
	s.CooldownTotal = secs
	s.CooldownUntil = u.now.Add(time.Duration(secs) * time.Second)
}

func (u *Universe) getShips(c *call) (int, any, *apiError) {
	out := []wire.Ship{}
	for _, s := range c.a.Ships {
		u.settle(s)
		out = append(out, u.renderShip(s))
	}
	return page(c, out)
}

// view answers a GET of one thing (a ship, a contract, a system, a waypoint) that
// lookup finds in the call, with render's view of it.
func view[T, V any](lookup func(*call) (T, *apiError), render func(T) V) func(*call) (int, any, *apiError) {
	return func(c *call) (int, any, *apiError) {
		x, e := lookup(c)
		if e != nil {
			return fail(e)
		}
		return ok(render(x))
	}
}

func (u *Universe) getCooldown(c *call) (int, any, *apiError) {
	s, e := u.lookupShip(c)
	if e != nil {
		return fail(e)
	}
	if !u.now.Before(s.CooldownUntil) {
		return http.StatusNoContent, nil, nil
	}
	return ok(u.renderCooldown(s))
}

// setStatus answers orbit ("IN_ORBIT") and dock ("DOCKED"): a ship not in transit
// takes the status.
func (u *Universe) setStatus(status string) func(*call) (int, any, *apiError) {
	return func(c *call) (int, any, *apiError) {
		s, e := u.readyShip(c, u.inTransit)
		if e != nil {
			return fail(e)
		}
		s.Status = status
		return ok(wire.NavResult{Nav: u.renderNav(s)})
	}
}

// flightModes gives each mode's time multiplier; fuel is in fuelCost.
var flightModes = map[string]float64{"CRUISE": 25, "DRIFT": 250, "BURN": 12.5, "STEALTH": 30}

// travel returns the game time and fuel of a trip, by the real game's formulas.
func travel(s *ship, from, to *waypoint, mode string) (time.Duration, int) {
	d := distance(from, to)
	speed := engines[shipTypes[s.Type].engine].speed
	secs := math.Round(float64(d)*flightModes[mode]/float64(speed) + 15)
	if frames[shipTypes[s.Type].frame].fuelCap == 0 {
		return gameTime(secs), 0
	}
	fuel := d
	switch mode {
	case "DRIFT":
		fuel = 1
	case "BURN":
		fuel = 2 * d
	}
	return gameTime(secs), fuel
}

func (u *Universe) navigate(c *call) (int, any, *apiError) {
	s, req, e := shipRequest[wire.NavigateRequest](u, c, false)
	if e != nil {
		return fail(e)
	}
	if s.Status == "IN_TRANSIT" {
		return fail(u.inTransit(s).withCode(codeNavInTransit))
	}
	if e := u.mustOrbit(s); e != nil {
		return fail(e)
	}
	dest := u.waypoints[strings.ToUpper(req.WaypointSymbol)]
	switch {
	case dest == nil:
		return fail(gameErr(codeNavInvalidDest, "Navigation failed: waypoint %q does not exist.", req.WaypointSymbol))
	case dest.System != s.System:
		return fail(gameErr(codeNavOutsideSystem, "Navigation failed: %s is outside the ship's system %s; jump there first.", dest.Symbol, s.System))
	case dest.Symbol == s.Waypoint:
		return fail(gameErr(codeNavSameDest, "Navigation failed: ship %s is already at %s.", s.Symbol, dest.Symbol))
	}
	dur, fuel := travel(s, u.waypoints[s.Waypoint], dest, s.FlightMode)
	if fuel > s.Fuel {
		return fail(gameErr(codeNavNoFuel, "Navigation failed: ship %s needs %d fuel to reach %s in %s mode but has %d.",
			s.Symbol, fuel, dest.Symbol, s.FlightMode, s.Fuel).with("fuelRequired", fuel).with("fuelAvailable", s.Fuel))
	}
	s.Fuel -= fuel
	s.FuelConsumed, s.FuelUsedAt = fuel, u.now
	s.Origin, s.Destination, s.Waypoint = s.Waypoint, dest.Symbol, dest.Symbol
	s.Departure, s.Arrival = u.now, u.now.Add(u.game(dur))
	s.Status = "IN_TRANSIT"
	return ok(u.navigated(s))
}

func (u *Universe) patchNav(c *call) (int, any, *apiError) {
	s, req, e := shipRequest[wire.FlightModeRequest](u, c, true)
	if e != nil {
		return fail(e)
	}
	if req.FlightMode != "" {
		if _, valid := flightModes[req.FlightMode]; !valid {
			return fail(invalid("flightMode", "flightMode must be one of DRIFT, STEALTH, CRUISE, BURN, got %q", req.FlightMode))
		}
		s.FlightMode = req.FlightMode
	}
	return ok(u.navigated(s))
}

func (u *Universe) jump(c *call) (int, any, *apiError) {
	s, req, e := shipRequest[wire.NavigateRequest](u, c, false)
	if e != nil {
		return fail(e)
	}
	if e := u.mustOrbit(s); e != nil {
		return fail(e)
	}
	if e := u.coolingDown(s); e != nil {
		return fail(e)
	}
	from := u.waypoints[s.Waypoint]
	if !from.IsGate {
		return fail(gameErr(codeJumpNoValidWaypoint, "Jump failed: ship %s is at %s, which is not a jump gate.", s.Symbol, from.Symbol))
	}
	dest := u.waypoints[strings.ToUpper(req.WaypointSymbol)]
	switch {
	case dest == nil:
		return fail(gameErr(codeJumpNoSystem, "Jump failed: waypoint %q does not exist.", req.WaypointSymbol))
	case dest.System == s.System:
		return fail(gameErr(codeJumpSameSystem, "Jump failed: %s is in the ship's own system; navigate there instead.", dest.Symbol))
	case !dest.IsGate || !slices.Contains(from.Gate, dest.Symbol):
		return fail(gameErr(codeJumpDestInvalid, "Jump failed: %s is not a jump gate connected to %s (connections: %s).",
			dest.Symbol, from.Symbol, strings.Join(from.Gate, ", ")))
	}
	g := findGood(from.Market, "ANTIMATTER")
	u.drift(g)
	price, _ := prices(g)
	if c.a.Credits < int64(price) {
		return fail(gameErr(codeCredits, "Jump failed: one unit of antimatter costs %d credits and agent %s has %d.", price, c.a.Symbol, c.a.Credits).
			with("creditsAvailable", c.a.Credits).with("creditsNeeded", price))
	}
	c.a.Credits -= int64(price)
	u.trade(g, 1, true)
	t := &transaction{Ship: s.Symbol, Good: "ANTIMATTER", Type: "PURCHASE", Units: 1, Price: price, Timestamp: u.now}
	u.record(from.Market, t)
	dist := systemDistance(u.systems[from.System], u.systems[dest.System])
	s.System, s.Waypoint, s.Origin, s.Destination = dest.System, dest.Symbol, from.Symbol, dest.Symbol
	s.Departure, s.Arrival = u.now, u.now
	u.startCooldown(s, gameTime(60+dist/2))
	return ok(wire.JumpResult{Nav: u.renderNav(s), Cooldown: u.renderCooldown(s), Transaction: renderTransaction(from.Symbol, t), Agent: renderAgent(c.a, true)})
}

func (u *Universe) purchaseShip(c *call) (int, any, *apiError) {
	var req wire.PurchaseShipRequest
	if e := decode(c, &req, false); e != nil {
		return fail(e)
	}
	if !slices.Contains(allShipTypes, req.ShipType) {
		return fail(invalid("shipType", "shipType %q is not a ship type", req.ShipType))
	}
	w := u.waypoints[strings.ToUpper(req.WaypointSymbol)]
	if w == nil || len(w.Shipyard) == 0 {
		return fail(notFound("Waypoint %q has no shipyard.", req.WaypointSymbol))
	}
	if !slices.Contains(w.Shipyard, req.ShipType) {
		return fail(gameErr(codeShipTypeNotSold, "The shipyard at %s does not sell %s (it sells %s).", w.Symbol, req.ShipType, strings.Join(w.Shipyard, ", ")))
	}
	price := shipTypes[req.ShipType].price
	if c.a.Credits < int64(price) {
		return fail(gameErr(codeShipCredits, "Agent %s has %d credits and %s costs %d.", c.a.Symbol, c.a.Credits, req.ShipType, price).
			with("creditsAvailable", c.a.Credits).with("creditsNeeded", price))
	}
	c.a.Credits -= int64(price)
	s := u.addShip(c.a, req.ShipType, w)
	return created(wire.PurchaseShipResult{Agent: renderAgent(c.a, true), Ship: u.renderShip(s), Transaction: wire.ShipyardTransaction{WaypointSymbol: w.Symbol, ShipSymbol: s.Symbol, ShipType: req.ShipType, Price: int64(price), AgentSymbol: c.a.Symbol, Timestamp: u.now.UTC()}})
}

// navigated is the answer to navigating or changing the flight mode.
func (u *Universe) navigated(s *ship) wire.NavResult {
	fuel := renderFuel(s)
	return wire.NavResult{Fuel: &fuel, Nav: u.renderNav(s), Events: []wire.ShipConditionEvent{}}
}
