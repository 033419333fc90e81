package autopilot

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	st "github.com/coplayhq/coplay/game/spacetraders"
)

// Tunables of the strategy, named so the package doc can explain them.
const (
	creditReserve = 5_000 // never spend below this on cargo: fuel must stay affordable
	buyMargin     = 0.9   // buy only if a unit costs at most 90% of what the contract pays per unit
)

// decider makes one step's decisions over a world, remembering what mem says.
type decider struct {
	w     *world
	mem   *memory
	tools map[string]bool // the catalogue; nil means every tool is available

	negotiating bool            // a ship already negotiates this step
	heading     map[string]bool // markets a probe already heads to this step
	dropped     []string        // the person's vetoes that set aside a choice this step
}

// decision is the step's outcome: calls to propose and what each idle ship waits for.
type decision struct {
	calls   []action
	waits   []action
	dropped []string // the vetoes that set aside a choice: the step's text says so, not the calls' whys
}

// decide returns one action per ship (and the contract's own calls), taking for each the
// first alternative that the person did not veto and the game did not just refuse.
func (d *decider) decide() decision {
	var out decision
	d.heading = map[string]bool{}
	if a, ok := d.pick("", d.contract()); ok && !a.isWait() {
		out.calls = append(out.calls, a.calls()...)
	}
	for i := range d.w.ships {
		s := &d.w.ships[i]
		a, ok := d.pick(s.Symbol, d.ship(s))
		switch {
		case !ok:
			out.waits = append(out.waits, wait(time.Time{}, "%s has nothing useful to do", s.Symbol))
		case a.isWait():
			out.waits = append(out.waits, a)
		default:
			out.calls = append(out.calls, a.calls()...)
		}
	}
	out.dropped = d.dropped
	return out
}

// pick returns the first allowed alternative: its tool is in the catalogue and it is not
// blocked by a veto or a recent failure. A wait is always allowed.
func (d *decider) pick(ship string, alts []action) (action, bool) {
	var skipped, failed []string
	for _, a := range alts {
		if a.isWait() {
			return a, true
		}
		if why, veto := d.blockedChain(ship, a); why != "" {
			if !slices.Contains(skipped, why) {
				skipped = append(skipped, why)
			}
			if !veto && !slices.Contains(failed, why) {
				failed = append(failed, why)
			}
			if veto && !slices.Contains(d.dropped, why) {
				d.dropped = append(d.dropped, why)
			}
			continue
		}
		// A vetoed choice is dropped, not recalled: the why says what this call is for,
		// and names only what the game refused before it.
		if len(failed) > 0 {
			a.why += " (instead of what " + strings.Join(failed, "; ") + ")"
		}
		return a, true
	}
	if len(skipped) > 0 {
		return wait(time.Time{}, "%s waits for you: %s, and I see no other way; advise me", cmp.Or(ship, "the contract"), strings.Join(skipped, "; ")), true
	}
	return action{}, false
}

// blockedChain returns why a call of the chain may not be proposed ("" when it may), and
// whether that is a veto of the person's (rather than a failure or a missing tool).
func (d *decider) blockedChain(ship string, a action) (why string, veto bool) {
	for _, c := range a.calls() {
		if d.tools != nil && !d.tools[c.tool] {
			return c.tool + " is not in the catalogue", false
		}
		_, key := c.key()
		if why := d.mem.blocked(key, d.situation(ship)); why != "" {
			return why, d.mem.blocks[key].veto
		}
	}
	return "", false
}

// situation summarises what a veto or failure depends on: for a ship, where it is and
// what it holds; for agent-wide calls, the contracts.
func (d *decider) situation(ship string) situation {
	if ship == "" {
		var b strings.Builder
		for _, k := range d.w.contracts {
			fmt.Fprintf(&b, "%s:%t:%t;", k.ID, k.Accepted, k.Fulfilled)
			for _, t := range k.Terms.Deliver {
				fmt.Fprintf(&b, "%d,", t.UnitsFulfilled)
			}
		}
		return situation{where: "contracts", state: b.String()}
	}
	for _, s := range d.w.ships {
		if s.Symbol == ship {
			return situation{where: s.Nav.WaypointSymbol, state: fmt.Sprintf("%s|%s|%s|%d|%d",
				s.Nav.WaypointSymbol, s.Nav.Status, s.Nav.FlightMode, s.Fuel.Current, s.Cargo.Units)}
		}
	}
	return situation{where: ship}
}

// contract returns the agent-wide contract calls: fulfil a finished contract, accept an
// offered one.
func (d *decider) contract() []action {
	if k := d.w.activeContract(); k != nil {
		if openTerm(k) == nil {
			return []action{contractCall(st.ToolFulfillContract, k.ID,
				"Every unit of contract %s is delivered: fulfil it for %d credits.", k.ID, k.Terms.Payment.OnFulfilled)}
		}
		return nil
	}
	if k := d.w.offeredContract(); k != nil {
		return []action{contractCall(st.ToolAcceptContract, k.ID, "Accept contract %s (%s): %d credits now and %d on fulfilment.",
			k.ID, describeTerms(k), k.Terms.Payment.OnAccepted, k.Terms.Payment.OnFulfilled)}
	}
	return nil
}

func describeTerms(k *st.Contract) string {
	var parts []string
	for _, t := range k.Terms.Deliver {
		parts = append(parts, fmt.Sprintf("%d %s to %s", t.UnitsRequired, t.TradeSymbol, t.DestinationSymbol))
	}
	return strings.Join(parts, ", ")
}

// working returns the contract the ships work on: the accepted one, or the offer when its
// acceptance goes out this step (calls run in order, so accepting comes first).
func (d *decider) working() *st.Contract {
	if k := d.w.activeContract(); k != nil {
		return k
	}
	k := d.w.offeredContract()
	if k == nil {
		return nil
	}
	if _, key := contractCall(st.ToolAcceptContract, k.ID, "").key(); d.mem.blocked(key, d.situation("")) != "" {
		return nil
	}
	return k
}

// ship returns a ship's alternatives, best first.
func (d *decider) ship(s *st.Ship) []action {
	if inTransit(*s, d.w.now) {
		return []action{wait(s.Nav.Route.Arrival, "%s is flying to %s and arrives at %s",
			s.Symbol, s.Nav.WaypointSymbol, clock(s.Nav.Route.Arrival))}
	}
	if s.Cargo.Capacity == 0 {
		return d.scout(s)
	}
	k := d.working()
	if k == nil {
		return d.noContract(s)
	}
	t := openTerm(k)
	if t == nil {
		return d.sellHere(s, "")
	}
	return d.work(s, k, t)
}

// work gets a contract's good and delivers it.
func (d *decider) work(s *st.Ship, k *st.Contract, t *st.ContractDeliverGood) []action {
	good, dest := t.TradeSymbol, t.DestinationSymbol
	owed := t.UnitsRequired - t.UnitsFulfilled
	have := s.Cargo.Count(good)
	free := s.Cargo.Capacity - s.Cargo.Units
	here := s.Nav.WaypointSymbol

	if here == dest && have > 0 {
		units := min(have, owed)
		return dockThen(s, call(st.ToolDeliverContract,
			map[string]any{"contractId": k.ID, "shipSymbol": s.Symbol, "tradeSymbol": good, "units": units},
			"Deliver %d %s for contract %s (%d of %d delivered so far).", units, good, k.ID, t.UnitsFulfilled, t.UnitsRequired))
	}
	var alts []action
	// Docked at a market that buys the junk: sell it now, it costs no trip.
	if s.Nav.Status == st.Docked {
		alts = append(alts, d.sellHere(s, good)...)
	}
	junk := junkOf(s, good)
	if have >= owed || (have > 0 && free == 0 && len(junk) == 0) {
		return append(alts, d.goTo(s, dest, fmt.Sprintf("to deliver %d %s", have, good))...)
	}

	mv := d.w.markets[here]
	buy := d.buyHere(s, k, t, mv)
	mine := d.mineHere(s, good)
	if d.mem.preferMine {
		alts = append(append(alts, mine...), buy...)
	} else {
		alts = append(append(alts, buy...), mine...)
	}
	for _, src := range d.sources(s, k, t) {
		alts = append(alts, d.goTo(s, src.waypoint, src.why)...)
	}
	if have > 0 {
		alts = append(alts, d.goTo(s, dest, fmt.Sprintf("to deliver the %d %s I have", have, good))...)
	}
	return alts
}

// buyHere returns the purchase of the contract's good at this market, when the price
// seen keeps the contract profitable and credits allow.
func (d *decider) buyHere(s *st.Ship, k *st.Contract, t *st.ContractDeliverGood, mv *marketView) []action {
	good := t.TradeSymbol
	p, ok := mv.price(good)
	if !ok || !slices.Contains(mv.sells, good) || !d.priceOK(k, t, p.PurchasePrice) {
		return nil
	}
	need := t.UnitsRequired - t.UnitsFulfilled - s.Cargo.Count(good)
	free := s.Cargo.Capacity - s.Cargo.Units
	afford := int((d.w.agent.Credits - d.mem.t.reserve) / max(1, p.PurchasePrice))
	units := min(need, free, afford, max(1, p.TradeVolume))
	if units <= 0 {
		return nil
	}
	return dockThen(s, tradeCall(st.ToolPurchaseCargo, s.Symbol, good, units,
		"Buy %d %s at %d each: the contract pays %d per unit, so buying beats mining for time.",
		units, good, p.PurchasePrice, perUnit(k, t)))
}

func perUnit(k *st.Contract, t *st.ContractDeliverGood) int64 {
	return (k.Terms.Payment.OnAccepted + k.Terms.Payment.OnFulfilled) / int64(max(1, t.UnitsRequired))
}

func (d *decider) priceOK(k *st.Contract, t *st.ContractDeliverGood, price int64) bool {
	if d.mem.preferMine && d.canMineAnywhere(t.TradeSymbol) {
		return false
	}
	return float64(price) <= d.mem.t.margin*float64(perUnit(k, t)) && d.w.agent.Credits-price > d.mem.t.reserve
}

func (d *decider) canMineAnywhere(good string) bool {
	for _, w := range d.w.waypoints {
		if yields(w.Type, traitSymbols(w), good) {
			return true
		}
	}
	return false
}

// mineHere mines the good where the ship is, when the waypoint yields it: clears junk
// that would block the hold, orbits, surveys when useful, waits out the cooldown, extracts.
func (d *decider) mineHere(s *st.Ship, good string) []action {
	here := d.w.waypoints[s.Nav.WaypointSymbol]
	if here == nil || !s.HasMount("MOUNT_MINING_LASER") || !yields(here.Type, traitSymbols(here), good) {
		return nil
	}
	free := s.Cargo.Capacity - s.Cargo.Units
	if junk := junkOf(s, good); len(junk) > 0 && free < expectedYield(s) {
		return d.clearJunk(s, junk)
	}
	if free <= 0 {
		return nil
	}
	orbit := shipCall(st.ToolOrbitShip, s.Symbol, "Undock %s to mine %s at %s.", s.Symbol, good, here.Symbol)
	if until := coolingDown(*s, d.w.now); !until.IsZero() {
		if s.Nav.Status == st.Docked {
			return []action{orbit}
		}
		return []action{wait(until, "%s cools down until %s, then mines %s", s.Symbol, clock(until), good)}
	}
	var alts []action
	sv := d.mem.bestSurvey(here.Symbol, good, d.w.now)
	if sv == nil && s.HasMount("MOUNT_SURVEYOR") && d.mem.surveyWorthIt(here.Symbol) {
		alts = append(alts, shipCall(st.ToolCreateSurvey, s.Symbol,
			"Survey %s first: a survey rich in %s makes each extraction count.", here.Symbol, good))
	}
	args := map[string]any{"shipSymbol": s.Symbol}
	why := fmt.Sprintf("Mine %s at %s (hold %d/%d).", good, here.Symbol, s.Cargo.Units, s.Cargo.Capacity)
	if sv != nil {
		args["survey"] = surveyArg(*sv)
		why = fmt.Sprintf("Mine %s at %s with survey %s (%s of its deposits).", good, here.Symbol, sv.Signature, share(*sv, good))
	}
	alts = append(alts, action{tool: st.ToolExtractResources, args: args, why: why})
	if s.Nav.Status == st.Docked {
		for i := range alts {
			alts[i] = then(orbit, alts[i])
		}
	}
	return alts
}

// expectedYield is about what one extraction brings up, from the lasers' strength.
func expectedYield(s *st.Ship) int {
	n := 0
	for _, m := range s.Mounts {
		if strings.HasPrefix(m.Symbol, "MOUNT_MINING_LASER") {
			n += cmp.Or(m.Strength, 5)
		}
	}
	return max(1, n+n/4)
}

// clearJunk makes room: sell what the market here buys, else jettison the biggest lot.
func (d *decider) clearJunk(s *st.Ship, junk []st.ShipCargoItem) []action {
	var alts []action
	mv := d.w.markets[s.Nav.WaypointSymbol]
	for _, it := range junk {
		if mv != nil && slices.Contains(mv.trades, it.Symbol) {
			alts = append(alts, dockThen(s, d.sell(s, mv, it))...)
		}
	}
	for _, it := range junk {
		alts = append(alts, tradeCall(st.ToolJettisonCargo, s.Symbol, it.Symbol, it.Units,
			"Jettison %d %s: no market here buys it and the hold needs the room for mining.", it.Units, it.Symbol))
	}
	return alts
}

func (d *decider) sell(s *st.Ship, mv *marketView, it st.ShipCargoItem) action {
	units := it.Units
	p, known := mv.price(it.Symbol)
	if known && p.TradeVolume > 0 {
		units = min(units, p.TradeVolume)
	}
	if known {
		return tradeCall(st.ToolSellCargo, s.Symbol, it.Symbol, units, "Sell %d %s here at %d each: the contract does not need it.", units, it.Symbol, p.SellPrice)
	}
	return tradeCall(st.ToolSellCargo, s.Symbol, it.Symbol, units, "Sell %d %s here: the contract does not need it.", units, it.Symbol)
}

// sellHere sells, at a docked ship's market, every good except keep that it buys.
func (d *decider) sellHere(s *st.Ship, keep string) []action {
	mv := d.w.markets[s.Nav.WaypointSymbol]
	if mv == nil {
		return nil
	}
	var alts []action
	for _, it := range s.Cargo.Inventory {
		if it.Symbol != keep && slices.Contains(mv.trades, it.Symbol) {
			alts = append(alts, dockThen(s, d.sell(s, mv, it))...)
		}
	}
	return alts
}

func junkOf(s *st.Ship, keep string) []st.ShipCargoItem {
	var out []st.ShipCargoItem
	for _, it := range s.Cargo.Inventory {
		if it.Symbol != keep && it.Units > 0 {
			out = append(out, it)
		}
	}
	slices.SortStableFunc(out, func(a, b st.ShipCargoItem) int { return cmp.Compare(b.Units, a.Units) })
	return out
}

type supply struct {
	waypoint string
	why      string
	dist     int
	mine     bool
}

// sources lists where else the contract's good can be had, nearest first: markets that
// sell it (unless the price seen there is too high) and, for a ship with a laser,
// waypoints whose deposits yield it.
func (d *decider) sources(s *st.Ship, k *st.Contract, t *st.ContractDeliverGood) []supply {
	good, here := t.TradeSymbol, s.Nav.WaypointSymbol
	var out []supply
	for sym, w := range d.w.waypoints {
		if sym == here || w.SystemSymbol != s.Nav.SystemSymbol {
			continue
		}
		dist := d.w.distance(here, sym)
		if mv := d.w.markets[sym]; mv != nil && slices.Contains(mv.sells, good) {
			p, known := mv.price(good)
			switch {
			case !known && !d.mem.preferMine:
				out = append(out, supply{sym, fmt.Sprintf("to buy %s (its market sells it; price not seen yet)", good), dist, false})
				continue
			case known && d.priceOK(k, t, p.PurchasePrice):
				out = append(out, supply{sym, fmt.Sprintf("to buy %s at about %d each", good, p.PurchasePrice), dist, false})
				continue
			}
		}
		if s.HasMount("MOUNT_MINING_LASER") && yields(w.Type, traitSymbols(w), good) {
			out = append(out, supply{sym, fmt.Sprintf("to mine %s (its deposits yield it)", good), dist, true})
		}
	}
	slices.SortFunc(out, func(a, b supply) int {
		if d.mem.preferMine && a.mine != b.mine {
			if a.mine {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.dist, b.dist), strings.Compare(a.waypoint, b.waypoint))
	})
	return out
}

// noContract sells what the market here buys, then negotiates a contract at a faction
// waypoint (or flies to headquarters to do so). With an offer waiting, the contract
// call accepts it and the ship has nothing else to do.
func (d *decider) noContract(s *st.Ship) []action {
	alts := d.sellHere(s, "")
	if d.w.offeredContract() != nil || d.negotiating {
		return alts
	}
	d.negotiating = true
	here := d.w.waypoints[s.Nav.WaypointSymbol]
	if here != nil && here.Faction != nil && here.Faction.Symbol != "" {
		alts = append(alts, dockThen(s, shipCall(st.ToolNegotiateContract, s.Symbol,
			"No contract is open: ask the %s faction at %s for the next one.", here.Faction.Symbol, here.Symbol))...)
	}
	if hq := d.w.agent.Headquarters; hq != "" && hq != s.Nav.WaypointSymbol {
		alts = append(alts, d.goTo(s, hq, "to negotiate a new contract at headquarters")...)
	}
	return alts
}

// scout sends a probe to the markets not seen yet, those selling the contract's good
// first, so buy-or-mine decisions use real prices.
func (d *decider) scout(s *st.Ship) []action {
	good := ""
	if k := d.w.activeContract(); k != nil {
		if t := openTerm(k); t != nil {
			good = t.TradeSymbol
		}
	} else if k := d.w.offeredContract(); k != nil {
		if t := openTerm(k); t != nil {
			good = t.TradeSymbol
		}
	}
	occupied := map[string]bool{}
	for _, o := range d.w.ships {
		occupied[o.Nav.WaypointSymbol] = true // visited now, or on the way
	}
	type target struct {
		sym   string
		sells bool
		dist  int
	}
	var ts []target
	for sym, mv := range d.w.markets {
		w := d.w.waypoints[sym]
		if w == nil || w.SystemSymbol != s.Nav.SystemSymbol || !mv.seen.IsZero() || occupied[sym] || d.heading[sym] {
			continue
		}
		ts = append(ts, target{sym, good != "" && slices.Contains(mv.sells, good), d.w.distance(s.Nav.WaypointSymbol, sym)})
	}
	slices.SortFunc(ts, func(a, b target) int {
		if a.sells != b.sells {
			if a.sells {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.dist, b.dist), strings.Compare(a.sym, b.sym))
	})
	var alts []action
	for i, t := range ts {
		if i == 0 {
			d.heading[t.sym] = true
		}
		why := "to read its market prices"
		if t.sells {
			why = fmt.Sprintf("to read its price for %s", good)
		}
		alts = append(alts, d.goTo(s, t.sym, why)...)
	}
	return alts
}

// goTo returns ways to set off toward dest, best first, each a chain run in one step:
// refuel when low at a fuel market, set the flight mode, undock, navigate. Fallbacks
// skip the refuel, then try the slower modes.
func (d *decider) goTo(s *st.Ship, dest, why string) []action {
	here := s.Nav.WaypointSymbol
	if here == dest {
		return nil
	}
	dist := d.w.distance(here, dest)
	capacity, fuel := s.Fuel.Capacity, s.Fuel.Current
	mv := d.w.markets[here]
	refuel := capacity > 0 && fuel < capacity && mv != nil && slices.Contains(mv.trades, "FUEL") &&
		(fuel*4 < capacity*3 || (fuel-dist)*4 < capacity)
	var alts []action
	for _, withFuel := range []bool{true, false} {
		if withFuel && !refuel {
			continue
		}
		tank := fuel
		if withFuel {
			tank = capacity
		}
		modes := flightModes(capacity, tank, dist)
		if d.mem.t.noBurn {
			modes = slices.DeleteFunc(modes, func(m string) bool { return m == "BURN" })
		}
		for _, mode := range d.mem.orderModes(modes) {
			var chain []action
			docked := s.Nav.Status == st.Docked
			if withFuel {
				if !docked {
					chain = append(chain, shipCall(st.ToolDockShip, s.Symbol, "Dock %s at %s to refuel.", s.Symbol, here))
					docked = true
				}
				chain = append(chain, shipCall(st.ToolRefuelShip, s.Symbol,
					"Refuel %s before leaving (tank %d/%d, next hop %d).", s.Symbol, fuel, capacity, dist))
			}
			if capacity > 0 && s.Nav.FlightMode != mode {
				chain = append(chain, call(st.ToolSetFlightMode, map[string]any{"shipSymbol": s.Symbol, "flightMode": mode},
					"Set %s to %s for the %d-unit hop to %s.", s.Symbol, mode, dist, dest))
			}
			if docked {
				chain = append(chain, shipCall(st.ToolOrbitShip, s.Symbol, "Undock %s.", s.Symbol))
			}
			chain = append(chain, call(st.ToolNavigateShip, map[string]any{"shipSymbol": s.Symbol, "waypointSymbol": dest},
				"Fly %s to %s %s (%d away, %s).", s.Symbol, dest, why, dist, cmp.Or(mode, s.Nav.FlightMode, "CRUISE")))
			alts = append(alts, link(chain))
		}
	}
	return alts
}

// link makes a chain of the actions, in order.
func link(chain []action) action {
	a := chain[len(chain)-1]
	for i := len(chain) - 2; i >= 0; i-- {
		a = then(chain[i], a)
	}
	return a
}

// flightModes lists the modes that can make the trip, preferred first: BURN when the
// tank stays half full, CRUISE when the fuel covers it, DRIFT as the last resort. Ships
// without a tank fly as they are.
func flightModes(capacity, fuel, dist int) []string {
	switch {
	case capacity == 0:
		return []string{""}
	case fuel-2*dist >= capacity/2:
		return []string{"BURN", "CRUISE", "DRIFT"}
	case fuel >= dist:
		return []string{"CRUISE", "DRIFT"}
	case fuel >= 1:
		return []string{"DRIFT"}
	}
	return nil
}

// dockThen returns a if the ship is docked, else docking.
func dockThen(s *st.Ship, a action) []action {
	if s.Nav.Status == st.Docked {
		return []action{a}
	}
	return []action{then(shipCall(st.ToolDockShip, s.Symbol, "Dock %s at %s.", s.Symbol, s.Nav.WaypointSymbol), a)}
}

func traitSymbols(w *st.Waypoint) []string {
	out := make([]string, len(w.Traits))
	for i, t := range w.Traits {
		out[i] = t.Symbol
	}
	return out
}

func clock(t time.Time) string { return t.UTC().Format("15:04:05Z") }
