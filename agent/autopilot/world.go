package autopilot

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/coplayhq/coplay/game/spacetraders"
)

// source is the part of *spacetraders.Game the autopilot reads through: the game's live
// world, which costs a request only for what it does not know or no longer trusts. Only
// reads: every change goes out as a proposed tool call.
type source interface {
	Snapshot(ctx context.Context) (spacetraders.Snapshot, error)
	SystemWaypoints(ctx context.Context, system string) ([]spacetraders.Waypoint, error)
	// Market returns the listing and the last prices seen (with when), reading again
	// where a ship is when the prices are older than maxAge (maxAge < 0: never).
	Market(ctx context.Context, waypoint string, maxAge time.Duration) (*spacetraders.Market, time.Time, error)
}

// world is what the autopilot knows at one step: the live state it just read and what
// it remembers of waypoints and markets.
type world struct {
	now       time.Time
	agent     spacetraders.Agent
	ships     []spacetraders.Ship
	contracts []spacetraders.Contract
	waypoints map[string]*spacetraders.Waypoint // by symbol, every system a ship is in
	markets   map[string]*marketView            // by waypoint
}

// marketView is a market as remembered: what it trades (static) and the prices seen on
// the last visit.
type marketView struct {
	sells  []string // exports and exchange: goods one can buy here
	trades []string // every listed good: goods one can sell here
	prices map[string]spacetraders.MarketTradeGood
	seen   time.Time // when prices were last read; zero means never
}

// price returns the last seen listing of good, if any.
func (m *marketView) price(good string) (spacetraders.MarketTradeGood, bool) {
	if m == nil {
		return spacetraders.MarketTradeGood{}, false
	}
	g, ok := m.prices[good]
	return g, ok
}

// read takes the world from src: the live state every step (free unless the game no
// longer trusts it), each system's waypoints and market listings once, and prices
// wherever a ship is, read again when older than the price bound.
func (b *Brain) read(ctx context.Context) (*world, error) {
	snap, err := b.src.Snapshot(ctx)
	if err != nil {
		return nil, fmt.Errorf("autopilot: reading the world: %w", err)
	}
	w := &world{now: b.now(), agent: snap.Agent, ships: snap.Ships, contracts: snap.Contracts,
		waypoints: b.waypoints, markets: b.markets}
	for _, s := range w.ships {
		if err := b.learnSystem(ctx, s.Nav.SystemSymbol); err != nil {
			return nil, err
		}
	}
	for _, s := range w.ships {
		if inTransit(s, w.now) || b.markets[s.Nav.WaypointSymbol] == nil {
			continue
		}
		if err := b.readMarket(ctx, s.Nav.WaypointSymbol, b.priceAge); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// learnSystem reads a system's waypoints and market listings the first time a ship is in it.
func (b *Brain) learnSystem(ctx context.Context, system string) error {
	if system == "" || b.systems[system] {
		return nil
	}
	wps, err := b.src.SystemWaypoints(ctx, system)
	if err != nil {
		return fmt.Errorf("autopilot: reading the waypoints of %s: %w", system, err)
	}
	for i := range wps {
		wp := &wps[i]
		b.waypoints[wp.Symbol] = wp
		if wp.HasTrait("MARKETPLACE") {
			if err := b.readMarket(ctx, wp.Symbol, -1); err != nil {
				return err
			}
		}
	}
	b.systems[system] = true
	return nil
}

// readMarket records a market's listing and the last prices seen there, if any; where a
// ship is, prices older than maxAge are read again.
func (b *Brain) readMarket(ctx context.Context, waypoint string, maxAge time.Duration) error {
	m, seen, err := b.src.Market(ctx, waypoint, maxAge)
	if err != nil {
		return fmt.Errorf("autopilot: reading the market at %s: %w", waypoint, err)
	}
	v := b.markets[waypoint]
	if v == nil {
		v = &marketView{prices: map[string]spacetraders.MarketTradeGood{}}
		b.markets[waypoint] = v
	}
	v.sells, v.trades = nil, nil
	for _, g := range slices.Concat(m.Exports, m.Exchange) {
		v.sells = append(v.sells, g.Symbol)
	}
	for _, g := range slices.Concat(m.Exports, m.Imports, m.Exchange) {
		v.trades = append(v.trades, g.Symbol)
	}
	if len(m.TradeGoods) > 0 && !seen.IsZero() {
		for _, g := range m.TradeGoods {
			v.prices[g.Symbol] = g
		}
		v.seen = seen
	}
	return nil
}

func inTransit(s spacetraders.Ship, now time.Time) bool {
	return s.Nav.Status == spacetraders.InTransit && s.Nav.Route.Arrival.After(now)
}

// coolingDown returns when the ship's cooldown ends, or zero.
func coolingDown(s spacetraders.Ship, now time.Time) time.Time {
	if s.Cooldown.Expiration.After(now) {
		return s.Cooldown.Expiration
	}
	return time.Time{}
}

// distance is the game's: Euclidean, rounded, at least 1 between different waypoints.
func (w *world) distance(from, to string) int {
	a, b := w.waypoints[from], w.waypoints[to]
	if a == nil || b == nil || from == to {
		return 0
	}
	return max(1, int(math.Round(math.Hypot(float64(a.X-b.X), float64(a.Y-b.Y)))))
}

// activeContract returns the accepted, unfinished contract, or nil.
func (w *world) activeContract() *spacetraders.Contract {
	for i := range w.contracts {
		k := &w.contracts[i]
		if k.Accepted && !k.Fulfilled && (k.Terms.Deadline.IsZero() || k.Terms.Deadline.After(w.now)) {
			return k
		}
	}
	return nil
}

// offeredContract returns a contract that can still be accepted, or nil.
func (w *world) offeredContract() *spacetraders.Contract {
	for i := range w.contracts {
		k := &w.contracts[i]
		if !k.Accepted && !k.Fulfilled && (k.DeadlineToAccept.IsZero() || k.DeadlineToAccept.After(w.now)) {
			return k
		}
	}
	return nil
}

// openTerm returns the first delivery of k still owed, or nil when all are delivered.
func openTerm(k *spacetraders.Contract) *spacetraders.ContractDeliverGood {
	for i := range k.Terms.Deliver {
		d := &k.Terms.Deliver[i]
		if d.UnitsFulfilled < d.UnitsRequired {
			return d
		}
	}
	return nil
}
