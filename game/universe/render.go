package universe

import (
	"slices"
	"time"

	"github.com/coplayhq/coplay/game/spacetraders/wire"
)

// This file turns state into the API's JSON shapes (package wire, shared with the
// client: models/*.json of the official spec), with every field the spec marks required.

// ts writes a time as the API does, for messages.
func ts(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func renderAgent(a *agent, private bool) wire.Agent {
	out := wire.Agent{Symbol: a.Symbol, Headquarters: a.HQ, Credits: a.Credits, StartingFaction: a.Faction, ShipCount: len(a.Ships)}
	if private {
		out.AccountID = a.AccountID
	}
	return out
}

type apiSymbolNameDesc struct {
	Symbol      string `json:"symbol"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

type apiFaction struct {
	Symbol       string              `json:"symbol"`
	Name         string              `json:"name"`
	Description  string              `json:"description"`
	Headquarters string              `json:"headquarters,omitempty"`
	Traits       []apiSymbolNameDesc `json:"traits"`
	IsRecruiting bool                `json:"isRecruiting"`
}

func (u *Universe) renderFaction(f factionSpec) apiFaction {
	out := apiFaction{Symbol: f.symbol, Name: f.name, Description: f.description, IsRecruiting: f.recruiting, Traits: []apiSymbolNameDesc{}}
	out.Headquarters = u.factionHQ(f.symbol)
	for _, t := range f.traits {
		out.Traits = append(out.Traits, apiSymbolNameDesc{t, titleCase(t), "The faction is " + titleCase(t) + "."})
	}
	return out
}

func orbitals(w *waypoint) []wire.WaypointOrbital {
	out := []wire.WaypointOrbital{}
	for _, o := range w.Orbitals {
		out = append(out, wire.WaypointOrbital{Symbol: o})
	}
	return out
}

func renderSystem(s *system) wire.System {
	out := wire.System{Symbol: s.Symbol, SectorSymbol: "X1", Constellation: s.Constellation, Name: s.Name,
		Type: s.Type, X: s.X, Y: s.Y, Waypoints: []wire.SystemWaypoint{}, Factions: []wire.SystemFaction{}}
	if s.Faction != "" {
		out.Factions = append(out.Factions, wire.SystemFaction{Symbol: s.Faction})
	}
	for _, w := range s.Waypoints {
		out.Waypoints = append(out.Waypoints, wire.SystemWaypoint{Symbol: w.Symbol, Type: w.Type, X: w.X, Y: w.Y, Orbitals: orbitals(w), Orbits: w.Orbits})
	}
	return out
}

// visibleTraits hides what an uncharted waypoint holds until someone charts it.
func visibleTraits(w *waypoint) []string {
	if w.Uncharted && w.ChartedBy == "" {
		return []string{"UNCHARTED"}
	}
	return w.Traits
}

func (u *Universe) renderWaypoint(w *waypoint) wire.Waypoint {
	out := wire.Waypoint{Symbol: w.Symbol, Type: w.Type, SystemSymbol: w.System, X: w.X, Y: w.Y,
		Orbitals: orbitals(w), Orbits: w.Orbits, Traits: []wire.WaypointTrait{}, Modifiers: []wire.WaypointModifier{}}
	if w.Faction != "" {
		out.Faction = &wire.WaypointFaction{Symbol: w.Faction}
	}
	for _, t := range visibleTraits(w) {
		out.Traits = append(out.Traits, wire.WaypointTrait{Symbol: t, Name: titleCase(t), Description: traitDescription(t)})
	}
	if w.ChartedBy != "" {
		out.Chart = &wire.Chart{WaypointSymbol: w.Symbol, SubmittedBy: w.ChartedBy, SubmittedOn: w.ChartedOn.UTC()}
	} else if !w.Uncharted {
		// Charted from the start: the local faction (or the first explorers) charted it.
		by := w.Faction
		if by == "" {
			by = factions[0].symbol
		}
		out.Chart = &wire.Chart{WaypointSymbol: w.Symbol, SubmittedBy: by, SubmittedOn: u.st.Created.UTC()}
	}
	return out
}

func (u *Universe) routeWaypoint(symbol string) wire.ShipNavRouteWaypoint {
	w := u.waypoints[symbol]
	return wire.ShipNavRouteWaypoint{Symbol: w.Symbol, Type: w.Type, SystemSymbol: w.System, X: w.X, Y: w.Y}
}

func (u *Universe) renderNav(s *ship) wire.ShipNav {
	origin := u.routeWaypoint(s.Origin)
	return wire.ShipNav{
		SystemSymbol: s.System, WaypointSymbol: s.Waypoint, Status: s.Status, FlightMode: s.FlightMode,
		Route: wire.ShipNavRoute{
			Destination: u.routeWaypoint(s.Destination), Origin: origin, Departure: &origin,
			DepartureTime: s.Departure.UTC(), Arrival: s.Arrival.UTC(),
		},
	}
}

// quality is every component's quality: the offline universe does not model it.
const quality = 4

func renderFrame(sym string) wire.ShipFrame {
	f := frames[sym]
	return wire.ShipFrame{Symbol: sym, Name: f.name, Description: "A " + f.name + " frame.", Condition: 1, Integrity: 1,
		ModuleSlots: f.moduleSlots, MountingPoints: f.mounts, FuelCapacity: f.fuelCap,
		Requirements: wire.ShipRequirements{Power: f.power, Crew: f.crew}, Quality: quality}
}

func renderReactor(sym string) wire.ShipReactor {
	r := reactors[sym]
	return wire.ShipReactor{Symbol: sym, Name: r.name, Description: "A " + r.name + " powering the ship.", Condition: 1, Integrity: 1,
		PowerOutput: r.power, Requirements: wire.ShipRequirements{Crew: 1}, Quality: quality}
}

func renderEngine(sym string) wire.ShipEngine {
	e := engines[sym]
	return wire.ShipEngine{Symbol: sym, Name: e.name, Description: "An " + e.name + " propelling the ship.", Condition: 1, Integrity: 1,
		Speed: e.speed, Requirements: wire.ShipRequirements{Power: e.power}, Quality: quality}
}

func renderModules(syms []string) []wire.ShipModule {
	out := []wire.ShipModule{}
	for _, sym := range syms {
		m := modules[sym]
		out = append(out, wire.ShipModule{Symbol: sym, Capacity: m.capacity, Name: m.name, Description: "A " + m.name + " module.",
			Requirements: wire.ShipRequirements{Power: m.power, Crew: m.crew, Slots: 1}})
	}
	return out
}

func renderMounts(syms []string) []wire.ShipMount {
	out := []wire.ShipMount{}
	for _, sym := range syms {
		m := mounts[sym]
		out = append(out, wire.ShipMount{Symbol: sym, Name: m.name, Description: "A " + m.name + " mount.", Strength: m.strength,
			Deposits: m.deposits, Requirements: wire.ShipRequirements{Power: m.power, Crew: m.crew}})
	}
	return out
}

func (u *Universe) renderCooldown(s *ship) wire.Cooldown {
	c := wire.Cooldown{ShipSymbol: s.Symbol, TotalSeconds: s.CooldownTotal}
	if rem := s.CooldownUntil.Sub(u.now); rem > 0 {
		c.RemainingSeconds = int((rem + time.Second - 1) / time.Second)
		c.Expiration = s.CooldownUntil.UTC()
	} else {
		c.TotalSeconds = 0
	}
	return c
}

func renderCargo(s *ship) wire.ShipCargo {
	out := wire.ShipCargo{Capacity: cargoCapacity(s), Inventory: []wire.ShipCargoItem{}}
	for _, it := range s.Cargo {
		out.Units += it.Units
		out.Inventory = append(out.Inventory, wire.ShipCargoItem{Symbol: it.Symbol, Name: titleCase(it.Symbol), Description: goodDescription(it.Symbol), Units: it.Units})
	}
	return out
}

func renderFuel(s *ship) wire.ShipFuel {
	f := wire.ShipFuel{Current: s.Fuel, Capacity: frames[shipTypes[s.Type].frame].fuelCap}
	f.Consumed = &wire.FuelConsumed{Amount: s.FuelConsumed, Timestamp: s.FuelUsedAt.UTC()}
	return f
}

func (u *Universe) renderShip(s *ship) wire.Ship {
	spec := shipTypes[s.Type]
	return wire.Ship{
		Symbol:       s.Symbol,
		Registration: wire.ShipRegistration{Name: s.Symbol, FactionSymbol: s.Faction, Role: spec.role},
		Nav:          u.renderNav(s),
		Crew:         wire.ShipCrew{Current: spec.crewRequired, Required: spec.crewRequired, Capacity: spec.crewCap, Rotation: "STRICT", Morale: 100, Wages: 0},
		Frame:        renderFrame(spec.frame),
		Reactor:      renderReactor(spec.reactor),
		Engine:       renderEngine(spec.engine),
		Cooldown:     u.renderCooldown(s),
		Modules:      renderModules(s.Modules),
		Mounts:       renderMounts(s.Mounts),
		Cargo:        renderCargo(s),
		Fuel:         renderFuel(s),
	}
}

func renderContract(c *contract) wire.Contract {
	out := wire.Contract{ID: c.ID, FactionSymbol: c.Faction, Type: c.Type, Accepted: c.Accepted, Fulfilled: c.Fulfilled,
		Expiration: c.DeadlineToAccept.UTC(), DeadlineToAccept: c.DeadlineToAccept.UTC(),
		Terms: wire.ContractTerms{Deadline: c.Deadline.UTC(), Payment: wire.ContractPayment{OnAccepted: int64(c.OnAccepted), OnFulfilled: int64(c.OnFulfilled)},
			Deliver: []wire.ContractDeliverGood{}}}
	for _, d := range c.Deliver {
		out.Terms.Deliver = append(out.Terms.Deliver, wire.ContractDeliverGood{TradeSymbol: d.Good, DestinationSymbol: d.Destination, UnitsRequired: d.Required, UnitsFulfilled: d.Fulfilled})
	}
	return out
}

func renderTransaction(waypoint string, t *transaction) wire.MarketTransaction {
	return wire.MarketTransaction{WaypointSymbol: waypoint, ShipSymbol: t.Ship, TradeSymbol: t.Good, Type: t.Type, Units: t.Units,
		PricePerUnit: int64(t.Price), TotalPrice: int64(t.Units * t.Price), Timestamp: t.Timestamp.UTC()}
}

// renderMarket shows prices and recent trades only to an agent with a ship present, as the
// real server does.
func (u *Universe) renderMarket(w *waypoint, present bool) wire.Market {
	out := wire.Market{Symbol: w.Symbol, Exports: []wire.TradeGood{}, Imports: []wire.TradeGood{}, Exchange: []wire.TradeGood{}}
	for _, g := range w.Market.Goods {
		tg := wire.TradeGood{Symbol: g.Symbol, Name: titleCase(g.Symbol), Description: goodDescription(g.Symbol)}
		switch g.Kind {
		case "EXPORT":
			out.Exports = append(out.Exports, tg)
		case "IMPORT":
			out.Imports = append(out.Imports, tg)
		default:
			out.Exchange = append(out.Exchange, tg)
		}
	}
	if !present {
		return out
	}
	out.TradeGoods = []wire.MarketTradeGood{}
	out.Transactions = []wire.MarketTransaction{}
	for _, g := range w.Market.Goods {
		u.drift(g)
		buy, sell := prices(g)
		out.TradeGoods = append(out.TradeGoods, wire.MarketTradeGood{Symbol: g.Symbol, Type: g.Kind, TradeVolume: goods[g.Symbol].volume,
			Supply: supplyLevel(g.Supply), Activity: g.Activity, PurchasePrice: int64(buy), SellPrice: int64(sell)})
	}
	for _, t := range slices.Backward(w.Market.Transactions) {
		out.Transactions = append(out.Transactions, renderTransaction(w.Symbol, t))
	}
	return out
}

func renderShipyard(w *waypoint, present bool) wire.Shipyard {
	out := wire.Shipyard{Symbol: w.Symbol, ShipTypes: []wire.ShipyardShipType{}, ModificationsFee: 100}
	for _, t := range w.Shipyard {
		out.ShipTypes = append(out.ShipTypes, wire.ShipyardShipType{Type: t})
	}
	if !present {
		return out
	}
	out.Ships = []wire.ShipyardShip{}
	for _, t := range w.Shipyard {
		spec := shipTypes[t]
		s := wire.ShipyardShip{Type: t, Symbol: t, Name: spec.name, Description: "A " + spec.name + ".",
			Supply: "MODERATE", Activity: "GROWING", PurchasePrice: int64(spec.price),
			Frame: renderFrame(spec.frame), Reactor: renderReactor(spec.reactor), Engine: renderEngine(spec.engine),
			Modules: renderModules(spec.modules), Mounts: renderMounts(spec.mounts)}
		s.Crew.Required, s.Crew.Capacity = spec.crewRequired, spec.crewCap
		out.Ships = append(out.Ships, s)
	}
	return out
}
