package spacetraders

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/coplayhq/coplay/game"
)

// Observe returns the world as the client knows it (see world.go): it costs no request
// unless something is unknown or no longer trusted. The home system's map is read once.
func (g *Game) Observe(ctx context.Context) (game.Observation, error) {
	snap, err := g.Snapshot(ctx)
	if err != nil {
		return game.Observation{}, err
	}
	home := SystemOf(snap.Agent.Headquarters)
	if len(snap.Ships) > 0 {
		home = snap.Ships[0].Nav.SystemSymbol
	}
	sys, err := g.system(ctx, home)
	if err != nil {
		return game.Observation{}, err
	}
	return g.observation(&snap, sys), nil
}

// observation writes a settled snapshot for the model and the screen. The summary gives
// times as clock times only ("arrives at 15:04:05Z"), never "in 2s": it is read later
// than it is written; the screen counts down from the timers' Start and End.
func (g *Game) observation(snap *Snapshot, sys *System) game.Observation {
	now := snap.Time
	agent, ships, contracts := &snap.Agent, snap.Ships, snap.Contracts
	obs := game.Observation{Time: now}
	var b strings.Builder
	fmt.Fprintf(&b, "Agent %s · %s credits · HQ %s · %d ships · time %s\n", agent.Symbol, credits(agent.Credits), agent.Headquarters, len(ships), clock(now))
	b.WriteString("\nShips:\n")
	cargoUsed, fuel := 0, 0
	var idle time.Time
	busy := len(ships) > 0
	for i := range ships {
		s := &ships[i]
		fmt.Fprintf(&b, "- %s\n", g.shipLineAt(s, now))
		cargoUsed += s.Cargo.Units
		fuel += s.Fuel.Current
		free := now
		if s.Nav.Status == InTransit && s.Nav.Route.Arrival.After(now) {
			obs.Timers = append(obs.Timers, game.Timer{Label: s.Symbol + " → " + s.Nav.Route.Destination.Symbol, Start: s.Nav.Route.DepartureTime, End: s.Nav.Route.Arrival})
			free = s.Nav.Route.Arrival
		}
		if c := s.Cooldown; !c.Expiration.IsZero() && c.Expiration.After(now) {
			obs.Timers = append(obs.Timers, game.Timer{Label: s.Symbol + " cooldown", Start: c.Expiration.Add(-time.Duration(c.TotalSeconds) * time.Second), End: c.Expiration})
			if c.Expiration.After(free) {
				free = c.Expiration
			}
		}
		if !free.After(now) {
			busy = false
		} else if idle.IsZero() || free.Before(idle) {
			idle = free
		}
	}
	if busy {
		obs.IdleUntil = idle
		obs.IdleReason = "every ship is travelling or cooling down"
	}
	b.WriteString("\nContracts:\n")
	open := 0
	for i := range contracts {
		if contracts[i].Fulfilled {
			continue
		}
		open++
		fmt.Fprintf(&b, "- %s\n", g.contractLine(&contracts[i]))
	}
	if open == 0 {
		b.WriteString("- none open (negotiate_contract with a docked ship)\n")
	}
	obs.Summary = strings.TrimRight(b.String(), "\n")
	obs.Metrics = []game.Metric{
		{Name: "credits", Value: float64(agent.Credits), Unit: "credits"},
		{Name: "cargo used", Value: float64(cargoUsed), Unit: "units"},
		{Name: "fuel", Value: float64(fuel), Unit: "units"},
	}
	if sys != nil {
		obs.Map = systemMap(sys, ships)
	}
	return obs
}

// systemMap places the system's waypoints and marks where each ship is (or is going).
func systemMap(sys *System, ships []Ship) *game.Map {
	m := &game.Map{Title: "System " + sys.Symbol}
	at := map[string][]string{}
	for _, s := range ships {
		if s.Nav.SystemSymbol != sys.Symbol {
			continue
		}
		if s.Nav.Status == InTransit {
			at[s.Nav.Route.Destination.Symbol] = append(at[s.Nav.Route.Destination.Symbol], "→"+s.Symbol)
		} else {
			at[s.Nav.WaypointSymbol] = append(at[s.Nav.WaypointSymbol], s.Symbol)
		}
	}
	for _, w := range sys.Waypoints {
		m.Points = append(m.Points, game.Point{Label: w.Symbol, Kind: w.Type, X: float64(w.X), Y: float64(w.Y), Marks: at[w.Symbol]})
	}
	sort.Slice(m.Points, func(i, j int) bool { return m.Points[i].Label < m.Points[j].Label })
	return m
}

func (g *Game) observeGame(ctx context.Context, _ noArgs) (string, error) {
	obs, err := g.Observe(ctx)
	if err != nil {
		return "", err
	}
	return obs.Summary, nil
}

// marketFresh is how old the prices of a market with a ship there may be when a model
// asks to see it: a look right after a look costs nothing.
const marketFresh = 15 * time.Second

// missing is the validation error for an argument a view needs.
func missing(view detailView, field string) error {
	return &game.ValidationError{Tool: "observe_detail", Problems: []game.Problem{{
		Path: "arguments." + field, Expected: fmt.Sprintf("required string for view %q", view), Got: "nothing (missing)"}}}
}

func (g *Game) observeDetail(ctx context.Context, a detailArgs) (string, error) {
	wp := a.WaypointSymbol
	switch a.View {
	case "waypoint":
		w, err := g.c.Waypoint(ctx, wp)
		if err != nil {
			return "", err
		}
		s := waypointLine(w)
		if len(w.Orbitals) > 0 {
			o := make([]string, len(w.Orbitals))
			for i, x := range w.Orbitals {
				o[i] = x.Symbol
			}
			s += " · orbitals: " + strings.Join(o, ", ")
		}
		if w.Chart == nil || w.HasTrait("UNCHARTED") {
			s += " · uncharted"
		}
		return s, nil
	case "system_waypoints":
		return g.systemWaypoints(ctx, a)
	case "market":
		// Asked for: prices where a ship is are read live unless just seen.
		m, at, err := g.Market(ctx, wp, marketFresh)
		if err != nil {
			return "", err
		}
		return g.marketText(m, at), nil
	case "shipyard":
		y, err := g.c.Shipyard(ctx, SystemOf(wp), wp)
		if err != nil {
			return "", err
		}
		return shipyardText(y), nil
	case "jump_gate":
		j, err := g.c.JumpGate(ctx, SystemOf(wp), wp)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("Jump gate %s connects to: %s", j.Symbol, strings.Join(j.Connections, ", ")), nil
	case "contract":
		snap, err := g.Snapshot(ctx)
		if err != nil {
			return "", err
		}
		for i := range snap.Contracts {
			if snap.Contracts[i].ID == a.ContractID {
				return g.contractLine(&snap.Contracts[i]), nil
			}
		}
		k, err := g.c.Contract(ctx, a.ContractID) // not ours, or new: the server says
		if err != nil {
			return "", err
		}
		return g.contractLine(k), nil
	case "ship":
		snap, err := g.Snapshot(ctx)
		if err != nil {
			return "", err
		}
		if s := snap.Ship(a.ShipSymbol); s != nil {
			return g.shipDetail(s), nil
		}
		s, err := g.c.Ship(ctx, a.ShipSymbol) // not in the model: the server says
		if err != nil {
			return "", err
		}
		return g.shipDetail(s), nil
	}
	return "", fmt.Errorf("spacetraders: observe_detail: unknown view %q", a.View)
}

func (g *Game) systemWaypoints(ctx context.Context, a detailArgs) (string, error) {
	sys := a.SystemSymbol
	if sys == "" {
		snap, err := g.Snapshot(ctx)
		if err != nil {
			return "", err
		}
		if len(snap.Ships) == 0 {
			return "", missing(a.View, "systemSymbol")
		}
		sys = snap.Ships[0].Nav.SystemSymbol
	}
	all, err := g.SystemWaypoints(ctx, sys)
	if err != nil {
		return "", err
	}
	var ws []Waypoint
	for _, w := range all {
		if a.Type != "" && w.Type != string(a.Type) {
			continue
		}
		if !slices.ContainsFunc(a.Traits, func(t string) bool { return !w.HasTrait(t) }) {
			ws = append(ws, w)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d waypoints in %s", len(ws), sys)
	if a.Type != "" || len(a.Traits) > 0 {
		fmt.Fprintf(&b, " (type %q, traits %v)", a.Type, a.Traits)
	}
	b.WriteString(":")
	for i := range ws {
		b.WriteString("\n- " + waypointLine(&ws[i]))
	}
	return b.String(), nil
}

func shipyardText(y *Shipyard) string {
	var b strings.Builder
	types := make([]string, len(y.ShipTypes))
	for i, t := range y.ShipTypes {
		types[i] = t.Type
	}
	fmt.Fprintf(&b, "Shipyard %s sells: %s", y.Symbol, strings.Join(types, ", "))
	if len(y.Ships) == 0 {
		b.WriteString("\nNo prices: send a ship here to see them.")
	}
	for _, s := range y.Ships {
		fmt.Fprintf(&b, "\n- %s %s credits (supply %s): %s, engine speed %d, fuel %d, %d mounts",
			s.Type, credits(s.PurchasePrice), s.Supply, s.Frame.Symbol, s.Engine.Speed, s.Frame.FuelCapacity, len(s.Mounts))
	}
	return b.String()
}

func (g *Game) shipDetail(s *Ship) string {
	var b strings.Builder
	b.WriteString(g.shipLine(s))
	fmt.Fprintf(&b, "\nframe %s (condition %.2f), engine %s speed %d, reactor %s", s.Frame.Symbol, s.Frame.Condition, s.Engine.Symbol, s.Engine.Speed, s.Reactor.Symbol)
	mounts := make([]string, len(s.Mounts))
	for i, m := range s.Mounts {
		mounts[i] = m.Symbol
	}
	mods := make([]string, len(s.Modules))
	for i, m := range s.Modules {
		mods[i] = m.Symbol
	}
	fmt.Fprintf(&b, "\nmounts: %s\nmodules: %s", strings.Join(mounts, ", "), strings.Join(mods, ", "))
	fmt.Fprintf(&b, "\ncrew %d/%d, morale %d", s.Crew.Current, s.Crew.Capacity, s.Crew.Morale)
	return b.String()
}
