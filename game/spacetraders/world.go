package spacetraders

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync"
	"time"
)

// This file is the live world: what the client knows of the game, kept up to date from
// every response, so that looking costs no request. The actions already answer with
// what they changed (nav, fuel, cargo, cooldown, agent, contract, transaction); what
// changes with time alone (arrival, the end of a cooldown) is computed from the
// timestamps. The world fetches only what it does not know or no longer trusts:
//
//   - at the start, and everything again every ResyncEvery (something the client cannot
//     see, another client on the same token, say);
//   - after a call whose outcome is unknown: everything the call could have changed;
//   - after a refusal that says the world differs from the model (not in orbit, not
//     docked, not enough fuel, credits or cargo …): the ship, agent or contracts the
//     refusal is about (distrust);
//   - market prices older than PriceMaxAge, when a decision needs them (dry runs, the
//     autopilot), and only where a ship is: elsewhere the server shows no prices.

// ResyncEvery is how long the world is trusted without a full read of agent, ships and
// contracts.
const ResyncEvery = 5 * time.Minute

// priceMaxAge is how old market prices may be, in game time, before a decision that
// needs them reads the market again (the real game's prices drift over tens of
// minutes; the offline universe's speed shortens that).
const priceMaxAge = 10 * time.Minute

// liveWorld is the client's model of the game. Its methods are safe for concurrent use.
type liveWorld struct {
	mu  sync.Mutex
	now func() time.Time

	agent     *Agent
	ships     []Ship // in the server's order
	contracts []Contract
	synced    time.Time // last full read

	staleAgent, staleShips, staleContracts bool
	staleShip                              map[string]bool

	systems   map[string]*System     // systems never move; fetched once
	waypoints map[string][]Waypoint  // every waypoint of a system, with traits; fetched once
	markets   map[string]*seenMarket // by waypoint: listing, and the last prices seen
}

// seenMarket is a market as last read: its listing (what it trades never changes) and,
// when a ship was there, prices as of at.
type seenMarket struct {
	m     *Market
	at    time.Time // when the prices were read; zero: never
	stale bool      // a refusal said the market differs: read it again when needed
}

func newLiveWorld(now func() time.Time) *liveWorld {
	return &liveWorld{
		now:       now,
		staleShip: map[string]bool{},
		systems:   map[string]*System{},
		waypoints: map[string][]Waypoint{},
		markets:   map[string]*seenMarket{},
	}
}

// Snapshot is the world at one moment, settled to that moment: ships whose arrival time
// has passed are in orbit at their destination, cooldowns that ended are gone. It is a
// copy: changing it changes nothing.
type Snapshot struct {
	Time      time.Time
	Agent     Agent
	Ships     []Ship
	Contracts []Contract
}

// Ship returns the snapshot's ship by symbol, or nil.
func (s *Snapshot) Ship(symbol string) *Ship {
	for i := range s.Ships {
		if s.Ships[i].Symbol == symbol {
			return &s.Ships[i]
		}
	}
	return nil
}

// settle moves a ship to now: arrived, cooled down.
func settle(s *Ship, now time.Time) {
	if s.Nav.Status == InTransit && !s.Nav.Route.Arrival.After(now) {
		s.Nav.Status = InOrbit
		if d := s.Nav.Route.Destination.Symbol; d != "" {
			s.Nav.WaypointSymbol = d
			if sys := s.Nav.Route.Destination.SystemSymbol; sys != "" {
				s.Nav.SystemSymbol = sys
			}
		}
	}
	if c := &s.Cooldown; !c.Expiration.IsZero() {
		if !c.Expiration.After(now) {
			*c = Cooldown{ShipSymbol: c.ShipSymbol}
		} else {
			c.RemainingSeconds = int(math.Ceil(c.Expiration.Sub(now).Seconds()))
		}
	}
}

// Snapshot returns the world, reading from the server first what is unknown or no
// longer trusted. A fully trusted world costs no request.
func (g *Game) Snapshot(ctx context.Context) (Snapshot, error) {
	w := g.w
	for attempt := 0; ; attempt++ {
		if err := g.refresh(ctx); err != nil {
			return Snapshot{}, err
		}
		w.mu.Lock()
		if w.agent != nil && w.ships != nil && w.contracts != nil {
			break // still known: a resync may have started meanwhile
		}
		w.mu.Unlock()
		if attempt == 3 {
			return Snapshot{}, errors.New("spacetraders: the world keeps being read again by another caller; try again")
		}
	}
	defer w.mu.Unlock()
	now := w.now()
	snap := Snapshot{Time: now, Agent: *w.agent, Ships: slices.Clone(w.ships), Contracts: slices.Clone(w.contracts)}
	for i := range snap.Ships {
		settle(&snap.Ships[i], now)
	}
	return snap, nil
}

// refresh reads what the world does not know or no longer trusts.
func (g *Game) refresh(ctx context.Context) error {
	w := g.w
	w.mu.Lock()
	if w.synced.IsZero() || w.now().Sub(w.synced) >= ResyncEvery {
		w.agent, w.ships, w.contracts = nil, nil, nil
		w.synced = w.now()
	}
	needAgent := w.agent == nil || w.staleAgent
	needShips := w.ships == nil || w.staleShips || len(w.staleShip) > 1
	var oneShip string
	if !needShips {
		for s := range w.staleShip {
			oneShip = s
		}
	}
	needContracts := w.contracts == nil || w.staleContracts
	w.mu.Unlock()

	if needAgent {
		a, err := g.c.Agent(ctx)
		if err != nil {
			return err
		}
		g.noteAgent(*a)
	}
	if needShips {
		err := readList(ctx, g, g.c.Ships, func(ships []Ship) {
			w.ships, w.staleShips = ships, false
			clear(w.staleShip)
		})
		if err != nil {
			return err
		}
	} else if oneShip != "" {
		s, err := g.c.Ship(ctx, oneShip)
		var ae *APIError
		if errors.As(err, &ae) && ae.Status == 404 {
			w.mu.Lock()
			w.staleShips = true // it is not ours: read the list
			w.mu.Unlock()
			return g.refresh(ctx)
		}
		if err != nil {
			return err
		}
		g.noteShip(*s)
	}
	if needContracts {
		return readList(ctx, g, g.c.Contracts, func(ks []Contract) { w.contracts, w.staleContracts = ks, false })
	}
	return nil
}

// readList reads a whole list (the ships, the contracts) with read and keeps it with
// keep, under the world's lock; a nil list (unknown) is kept as empty (known: none).
func readList[T any](ctx context.Context, g *Game, read func(context.Context) ([]T, error), keep func([]T)) error {
	l, err := read(ctx)
	if err != nil {
		return err
	}
	if l == nil {
		l = []T{}
	}
	g.w.mu.Lock()
	keep(l)
	g.w.mu.Unlock()
	g.worldChanged()
	return nil
}

// noteAgent records the agent an answer carried.
func (g *Game) noteAgent(a Agent) {
	g.w.mu.Lock()
	g.w.agent, g.w.staleAgent = &a, false
	g.w.mu.Unlock()
}

// noteShip records a whole ship an answer carried (a new one is added).
func (g *Game) noteShip(s Ship) {
	defer g.worldChanged()
	w := g.w
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.staleShip, s.Symbol)
	upsert(&w.ships, s, func(x Ship) bool { return x.Symbol == s.Symbol })
}

// upsert puts v in place of the element of *list that is the same, or else adds it;
// a nil list is unknown and stays so, for the next read.
func upsert[T any](list *[]T, v T, same func(T) bool) {
	for i := range *list {
		if same((*list)[i]) {
			(*list)[i] = v
			return
		}
	}
	if *list != nil {
		*list = append(*list, v)
	}
}

// updateShip changes one known ship in place; unknown ships are left for the next read.
func (g *Game) updateShip(symbol string, f func(s *Ship)) {
	defer g.worldChanged()
	w := g.w
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range w.ships {
		if w.ships[i].Symbol == symbol {
			f(&w.ships[i])
			return
		}
	}
	w.staleShips = true
}

func (g *Game) noteNav(ship string, nav ShipNav, fuel *ShipFuel) {
	g.updateShip(ship, func(s *Ship) {
		s.Nav = nav
		if fuel != nil {
			s.Fuel = *fuel
		}
	})
}

func (g *Game) noteCargo(ship string, c ShipCargo) {
	g.updateShip(ship, func(s *Ship) { s.Cargo = c })
}

func (g *Game) noteCooldown(ship string, c Cooldown) {
	g.updateShip(ship, func(s *Ship) { s.Cooldown = c })
}

// noteContract records a contract an answer carried (a new one is added).
func (g *Game) noteContract(k Contract) {
	defer g.worldChanged()
	w := g.w
	w.mu.Lock()
	defer w.mu.Unlock()
	upsert(&w.contracts, k, func(x Contract) bool { return x.ID == k.ID })
}

// noteTrade moves the seen price of a good to what a transaction paid: the market's
// price at that moment.
func (g *Game) noteTrade(t MarketTransaction) {
	w := g.w
	w.mu.Lock()
	defer w.mu.Unlock()
	sm := w.markets[t.WaypointSymbol]
	if sm == nil || sm.m == nil || t.Units == 0 {
		return
	}
	m := *sm.m
	m.TradeGoods = slices.Clone(m.TradeGoods)
	for i := range m.TradeGoods {
		if m.TradeGoods[i].Symbol != t.TradeSymbol {
			continue
		}
		if t.Type == "PURCHASE" {
			m.TradeGoods[i].PurchasePrice = t.PricePerUnit
		} else {
			m.TradeGoods[i].SellPrice = t.PricePerUnit
		}
	}
	sm.m = &m
}

// noteMarket records a market read; prices count only when the server showed them.
func (g *Game) noteMarket(m *Market) *seenMarket {
	w := g.w
	w.mu.Lock()
	defer w.mu.Unlock()
	sm := w.markets[m.Symbol]
	if sm == nil {
		sm = &seenMarket{}
		w.markets[m.Symbol] = sm
	}
	sm.stale = false
	if len(m.TradeGoods) > 0 {
		sm.m, sm.at = m, w.now()
	} else if sm.m == nil {
		sm.m = m
	} else {
		// Keep the last prices seen with the fresh listing.
		mm := *m
		mm.TradeGoods = sm.m.TradeGoods
		sm.m = &mm
	}
	cp := *sm
	return &cp
}

// distrust marks what a refused or lost call may have left different from the model.
// unknown: the outcome of the call is unknown, so everything it touches is read again.
func (g *Game) distrust(tool string, ship, target string, code int, unknown bool) {
	w := g.w
	w.mu.Lock()
	defer w.mu.Unlock()
	markShip := func(s string) {
		if s != "" {
			w.staleShip[s] = true
		}
	}
	if unknown {
		w.staleAgent, w.staleContracts = true, true
		markShip(ship)
		markShip(target)
		if ship == "" || tool == "purchase_ship" {
			w.staleShips = true
		}
		return
	}
	switch {
	case code == 4600 || code == 4216 || code == 4248:
		w.staleAgent = true
	case code >= 4500 && code < 4600:
		w.staleContracts = true
		if code == 4508 || code == 4510 {
			markShip(ship)
		}
	case code == 404 || (code >= 4231 && code <= 4234):
		w.staleShips = true
	case code == 4601 || code == 4602 || code == 4604:
		// The market's listing or volume differs: read it again when needed.
		if s := w.ship(ship); s != nil {
			if sm := w.markets[s.Nav.WaypointSymbol]; sm != nil {
				sm.stale = true
			}
		}
	case shipStateCodes[code]:
		markShip(ship)
	}
}

// shipStateCodes are refusals that say a ship is not as the model has it.
var shipStateCodes = map[int]bool{
	4000: true, 4200: true, 4203: true, 4204: true, 4214: true, 4217: true, 4218: true,
	4219: true, 4225: true, 4228: true, 4236: true, 4244: true, 4223: true,
}

// ship returns the known ship (w.mu held), or nil.
func (w *liveWorld) ship(symbol string) *Ship {
	for i := range w.ships {
		if w.ships[i].Symbol == symbol {
			return &w.ships[i]
		}
	}
	return nil
}

// Market returns a waypoint's market as the world knows it: the listing (read once) and
// the last prices seen, with when. Prices are read again when a ship of ours is there and
// the ones known are older than maxAge (maxAge < 0: whatever is known will do). The
// second result is when the prices were seen (zero: never).
func (g *Game) Market(ctx context.Context, waypoint string, maxAge time.Duration) (*Market, time.Time, error) {
	w := g.w
	w.mu.Lock()
	sm := w.markets[waypoint]
	shipHere := false
	now := w.now()
	for i := range w.ships {
		s := w.ships[i]
		settle(&s, now)
		if s.Nav.WaypointSymbol == waypoint && s.Nav.Status != InTransit {
			shipHere = true
		}
	}
	var cached seenMarket
	if sm != nil {
		cached = *sm
	}
	w.mu.Unlock()
	fresh := cached.m != nil && (maxAge < 0 || !shipHere || (!cached.stale && !cached.at.IsZero() && now.Sub(cached.at) <= maxAge))
	if fresh {
		return cached.m, cached.at, nil
	}
	m, err := g.c.Market(ctx, SystemOf(waypoint), waypoint)
	if err != nil {
		return nil, time.Time{}, err
	}
	seen := g.noteMarket(m)
	return seen.m, seen.at, nil
}

// priceAge is how old prices may be for a decision, on the real clock.
func (g *Game) priceAge() time.Duration {
	scale := g.cfg.TimeScale
	if scale <= 0 {
		scale = 1
	}
	return time.Duration(float64(priceMaxAge) / scale)
}

// PriceMaxAge is how old market prices may be, on the clock, before a decision that
// needs them reads the market again: ten game minutes (the offline universe's speed
// shortens them).
func (g *Game) PriceMaxAge() time.Duration { return g.priceAge() }

// SystemWaypoints returns every waypoint of a system with its traits, read once (charting
// a waypoint updates it).
func (g *Game) SystemWaypoints(ctx context.Context, system string) ([]Waypoint, error) {
	w := g.w
	w.mu.Lock()
	wps, ok := w.waypoints[system]
	w.mu.Unlock()
	if ok {
		return slices.Clone(wps), nil
	}
	wps, err := g.c.Waypoints(ctx, system, WaypointFilter{})
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	w.waypoints[system] = wps
	w.mu.Unlock()
	return slices.Clone(wps), nil
}

// noteWaypoint records a waypoint an answer carried (a chart).
func (g *Game) noteWaypoint(wp Waypoint) {
	w := g.w
	w.mu.Lock()
	defer w.mu.Unlock()
	list := w.waypoints[wp.SystemSymbol]
	for i := range list {
		if list[i].Symbol == wp.Symbol {
			list = slices.Clone(list)
			list[i] = wp
			w.waypoints[wp.SystemSymbol] = list
			return
		}
	}
}

// system returns a system, fetching it the first time only: systems do not change.
func (g *Game) system(ctx context.Context, symbol string) (*System, error) {
	w := g.w
	w.mu.Lock()
	s := w.systems[symbol]
	w.mu.Unlock()
	if s != nil {
		return s, nil
	}
	s, err := g.c.System(ctx, symbol)
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	w.systems[symbol] = s
	w.mu.Unlock()
	return s, nil
}
