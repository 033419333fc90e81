package universe

import (
	"slices"
	"time"
)

// This file turns state into the API's JSON shapes (models/*.json of the official spec),
// with every field the spec marks required.

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

type apiAgent struct {
	AccountID       string `json:"accountId,omitempty"`
	Symbol          string `json:"symbol"`
	Headquarters    string `json:"headquarters"`
	Credits         int64  `json:"credits"`
	StartingFaction string `json:"startingFaction"`
	ShipCount       int    `json:"shipCount"`
}

func renderAgent(a *agent, private bool) apiAgent {
	out := apiAgent{Symbol: a.Symbol, Headquarters: a.HQ, Credits: a.Credits, StartingFaction: a.Faction, ShipCount: len(a.Ships)}
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

type apiSymbol struct {
	Symbol string `json:"symbol"`
}

type apiSystemWaypoint struct {
	Symbol   string      `json:"symbol"`
	Type     string      `json:"type"`
	X        int         `json:"x"`
	Y        int         `json:"y"`
	Orbitals []apiSymbol `json:"orbitals"`
	Orbits   string      `json:"orbits,omitempty"`
}

type apiSystem struct {
	Symbol        string              `json:"symbol"`
	SectorSymbol  string              `json:"sectorSymbol"`
	Constellation string              `json:"constellation"`
	Name          string              `json:"name"`
	Type          string              `json:"type"`
	X             int                 `json:"x"`
	Y             int                 `json:"y"`
	Waypoints     []apiSystemWaypoint `json:"waypoints"`
	Factions      []apiSymbol         `json:"factions"`
}

func orbitals(w *waypoint) []apiSymbol {
	out := []apiSymbol{}
	for _, o := range w.Orbitals {
		out = append(out, apiSymbol{o})
	}
	return out
}

func renderSystem(s *system) apiSystem {
	out := apiSystem{Symbol: s.Symbol, SectorSymbol: "X1", Constellation: s.Constellation, Name: s.Name,
		Type: s.Type, X: s.X, Y: s.Y, Waypoints: []apiSystemWaypoint{}, Factions: []apiSymbol{}}
	if s.Faction != "" {
		out.Factions = append(out.Factions, apiSymbol{s.Faction})
	}
	for _, w := range s.Waypoints {
		out.Waypoints = append(out.Waypoints, apiSystemWaypoint{w.Symbol, w.Type, w.X, w.Y, orbitals(w), w.Orbits})
	}
	return out
}

type apiChart struct {
	WaypointSymbol string `json:"waypointSymbol"`
	SubmittedBy    string `json:"submittedBy"`
	SubmittedOn    string `json:"submittedOn"`
}

type apiWaypoint struct {
	Symbol              string              `json:"symbol"`
	Type                string              `json:"type"`
	SystemSymbol        string              `json:"systemSymbol"`
	X                   int                 `json:"x"`
	Y                   int                 `json:"y"`
	Orbitals            []apiSymbol         `json:"orbitals"`
	Orbits              string              `json:"orbits,omitempty"`
	Faction             *apiSymbol          `json:"faction,omitempty"`
	Traits              []apiSymbolNameDesc `json:"traits"`
	Modifiers           []apiSymbolNameDesc `json:"modifiers"`
	Chart               *apiChart           `json:"chart,omitempty"`
	IsUnderConstruction bool                `json:"isUnderConstruction"`
}

// visibleTraits hides what an uncharted waypoint holds until someone charts it.
func visibleTraits(w *waypoint) []string {
	if w.Uncharted && w.ChartedBy == "" {
		return []string{"UNCHARTED"}
	}
	return w.Traits
}

func (u *Universe) renderWaypoint(w *waypoint) apiWaypoint {
	out := apiWaypoint{Symbol: w.Symbol, Type: w.Type, SystemSymbol: w.System, X: w.X, Y: w.Y,
		Orbitals: orbitals(w), Orbits: w.Orbits, Traits: []apiSymbolNameDesc{}, Modifiers: []apiSymbolNameDesc{}}
	if w.Faction != "" {
		out.Faction = &apiSymbol{w.Faction}
	}
	for _, t := range visibleTraits(w) {
		out.Traits = append(out.Traits, apiSymbolNameDesc{t, titleCase(t), traitDescription(t)})
	}
	if w.ChartedBy != "" {
		out.Chart = &apiChart{w.Symbol, w.ChartedBy, ts(w.ChartedOn)}
	} else if !w.Uncharted {
		// Charted from the start: the local faction (or the first explorers) charted it.
		by := w.Faction
		if by == "" {
			by = factions[0].symbol
		}
		out.Chart = &apiChart{w.Symbol, by, ts(u.st.Created)}
	}
	return out
}

type apiShipNavRouteWaypoint struct {
	Symbol       string `json:"symbol"`
	Type         string `json:"type"`
	SystemSymbol string `json:"systemSymbol"`
	X            int    `json:"x"`
	Y            int    `json:"y"`
}

type apiShipNavRoute struct {
	Destination   apiShipNavRouteWaypoint `json:"destination"`
	Origin        apiShipNavRouteWaypoint `json:"origin"`
	Departure     apiShipNavRouteWaypoint `json:"departure"` // deprecated, still required by the spec
	DepartureTime string                  `json:"departureTime"`
	Arrival       string                  `json:"arrival"`
}

type apiShipNav struct {
	SystemSymbol   string          `json:"systemSymbol"`
	WaypointSymbol string          `json:"waypointSymbol"`
	Route          apiShipNavRoute `json:"route"`
	Status         string          `json:"status"`
	FlightMode     string          `json:"flightMode"`
}

func (u *Universe) routeWaypoint(symbol string) apiShipNavRouteWaypoint {
	w := u.waypoints[symbol]
	return apiShipNavRouteWaypoint{w.Symbol, w.Type, w.System, w.X, w.Y}
}

func (u *Universe) renderNav(s *ship) apiShipNav {
	origin := u.routeWaypoint(s.Origin)
	return apiShipNav{
		SystemSymbol: s.System, WaypointSymbol: s.Waypoint, Status: s.Status, FlightMode: s.FlightMode,
		Route: apiShipNavRoute{
			Destination: u.routeWaypoint(s.Destination), Origin: origin, Departure: origin,
			DepartureTime: ts(s.Departure), Arrival: ts(s.Arrival),
		},
	}
}

type apiRequirements struct {
	Power int `json:"power"`
	Crew  int `json:"crew"`
	Slots int `json:"slots"`
}

type apiFrame struct {
	Symbol         string          `json:"symbol"`
	Name           string          `json:"name"`
	Description    string          `json:"description"`
	Condition      float64         `json:"condition"`
	Integrity      float64         `json:"integrity"`
	ModuleSlots    int             `json:"moduleSlots"`
	MountingPoints int             `json:"mountingPoints"`
	FuelCapacity   int             `json:"fuelCapacity"`
	Requirements   apiRequirements `json:"requirements"`
	Quality        int             `json:"quality"`
}

type apiReactor struct {
	Symbol       string          `json:"symbol"`
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	Condition    float64         `json:"condition"`
	Integrity    float64         `json:"integrity"`
	PowerOutput  int             `json:"powerOutput"`
	Requirements apiRequirements `json:"requirements"`
	Quality      int             `json:"quality"`
}

type apiEngine struct {
	Symbol       string          `json:"symbol"`
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	Condition    float64         `json:"condition"`
	Integrity    float64         `json:"integrity"`
	Speed        int             `json:"speed"`
	Requirements apiRequirements `json:"requirements"`
	Quality      int             `json:"quality"`
}

type apiModule struct {
	Symbol       string          `json:"symbol"`
	Capacity     int             `json:"capacity,omitempty"`
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	Requirements apiRequirements `json:"requirements"`
}

type apiMount struct {
	Symbol       string          `json:"symbol"`
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	Strength     int             `json:"strength,omitempty"`
	Deposits     []string        `json:"deposits,omitempty"`
	Requirements apiRequirements `json:"requirements"`
}

type apiCrew struct {
	Current  int    `json:"current"`
	Required int    `json:"required"`
	Capacity int    `json:"capacity"`
	Rotation string `json:"rotation"`
	Morale   int    `json:"morale"`
	Wages    int    `json:"wages"`
}

type apiCooldown struct {
	ShipSymbol       string `json:"shipSymbol"`
	TotalSeconds     int    `json:"totalSeconds"`
	RemainingSeconds int    `json:"remainingSeconds"`
	Expiration       string `json:"expiration,omitempty"`
}

type apiCargoItem struct {
	Symbol      string `json:"symbol"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Units       int    `json:"units"`
}

type apiCargo struct {
	Capacity  int            `json:"capacity"`
	Units     int            `json:"units"`
	Inventory []apiCargoItem `json:"inventory"`
}

type apiFuelConsumed struct {
	Amount    int    `json:"amount"`
	Timestamp string `json:"timestamp"`
}

type apiFuel struct {
	Current  int              `json:"current"`
	Capacity int              `json:"capacity"`
	Consumed *apiFuelConsumed `json:"consumed,omitempty"`
}

type apiRegistration struct {
	Name          string `json:"name"`
	FactionSymbol string `json:"factionSymbol"`
	Role          string `json:"role"`
}

type apiShip struct {
	Symbol       string          `json:"symbol"`
	Registration apiRegistration `json:"registration"`
	Nav          apiShipNav      `json:"nav"`
	Crew         apiCrew         `json:"crew"`
	Frame        apiFrame        `json:"frame"`
	Reactor      apiReactor      `json:"reactor"`
	Engine       apiEngine       `json:"engine"`
	Cooldown     apiCooldown     `json:"cooldown"`
	Modules      []apiModule     `json:"modules"`
	Mounts       []apiMount      `json:"mounts"`
	Cargo        apiCargo        `json:"cargo"`
	Fuel         apiFuel         `json:"fuel"`
}

func renderFrame(sym string) apiFrame {
	f := frames[sym]
	return apiFrame{sym, f.name, "A " + f.name + " frame.", 1, 1, f.moduleSlots, f.mounts, f.fuelCap,
		apiRequirements{Power: f.power, Crew: f.crew}, 4}
}

func renderReactor(sym string) apiReactor {
	r := reactors[sym]
	return apiReactor{sym, r.name, "A " + r.name + " powering the ship.", 1, 1, r.power, apiRequirements{Crew: 1}, 4}
}

func renderEngine(sym string) apiEngine {
	e := engines[sym]
	return apiEngine{sym, e.name, "An " + e.name + " propelling the ship.", 1, 1, e.speed, apiRequirements{Power: e.power}, 4}
}

func renderModules(syms []string) []apiModule {
	out := []apiModule{}
	for _, sym := range syms {
		m := modules[sym]
		out = append(out, apiModule{sym, m.capacity, m.name, "A " + m.name + " module.", apiRequirements{Power: m.power, Crew: m.crew, Slots: 1}})
	}
	return out
}

func renderMounts(syms []string) []apiMount {
	out := []apiMount{}
	for _, sym := range syms {
		m := mounts[sym]
		out = append(out, apiMount{sym, m.name, "A " + m.name + " mount.", m.strength, m.deposits, apiRequirements{Power: m.power, Crew: m.crew}})
	}
	return out
}

func (u *Universe) renderCooldown(s *ship) apiCooldown {
	c := apiCooldown{ShipSymbol: s.Symbol, TotalSeconds: s.CooldownTotal}
	if rem := s.CooldownUntil.Sub(u.now); rem > 0 {
		c.RemainingSeconds = int((rem + time.Second - 1) / time.Second)
		c.Expiration = ts(s.CooldownUntil)
	} else {
		c.TotalSeconds = 0
	}
	return c
}

func renderCargo(s *ship) apiCargo {
	out := apiCargo{Capacity: cargoCapacity(s), Inventory: []apiCargoItem{}}
	for _, it := range s.Cargo {
		out.Units += it.Units
		out.Inventory = append(out.Inventory, apiCargoItem{it.Symbol, titleCase(it.Symbol), goodDescription(it.Symbol), it.Units})
	}
	return out
}

func renderFuel(s *ship) apiFuel {
	f := apiFuel{Current: s.Fuel, Capacity: frames[shipTypes[s.Type].frame].fuelCap}
	f.Consumed = &apiFuelConsumed{Amount: s.FuelConsumed, Timestamp: ts(s.FuelUsedAt)}
	return f
}

func (u *Universe) renderShip(s *ship) apiShip {
	spec := shipTypes[s.Type]
	return apiShip{
		Symbol:       s.Symbol,
		Registration: apiRegistration{s.Symbol, s.Faction, spec.role},
		Nav:          u.renderNav(s),
		Crew:         apiCrew{spec.crewRequired, spec.crewRequired, spec.crewCap, "STRICT", 100, 0},
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

type apiContractPayment struct {
	OnAccepted  int `json:"onAccepted"`
	OnFulfilled int `json:"onFulfilled"`
}

type apiDeliverGood struct {
	TradeSymbol       string `json:"tradeSymbol"`
	DestinationSymbol string `json:"destinationSymbol"`
	UnitsRequired     int    `json:"unitsRequired"`
	UnitsFulfilled    int    `json:"unitsFulfilled"`
}

type apiContractTerms struct {
	Deadline string             `json:"deadline"`
	Payment  apiContractPayment `json:"payment"`
	Deliver  []apiDeliverGood   `json:"deliver"`
}

type apiContract struct {
	ID               string           `json:"id"`
	FactionSymbol    string           `json:"factionSymbol"`
	Type             string           `json:"type"`
	Terms            apiContractTerms `json:"terms"`
	Accepted         bool             `json:"accepted"`
	Fulfilled        bool             `json:"fulfilled"`
	Expiration       string           `json:"expiration"`
	DeadlineToAccept string           `json:"deadlineToAccept"`
}

func renderContract(c *contract) apiContract {
	out := apiContract{ID: c.ID, FactionSymbol: c.Faction, Type: c.Type, Accepted: c.Accepted, Fulfilled: c.Fulfilled,
		Expiration: ts(c.DeadlineToAccept), DeadlineToAccept: ts(c.DeadlineToAccept),
		Terms: apiContractTerms{Deadline: ts(c.Deadline), Payment: apiContractPayment{c.OnAccepted, c.OnFulfilled}, Deliver: []apiDeliverGood{}}}
	for _, d := range c.Deliver {
		out.Terms.Deliver = append(out.Terms.Deliver, apiDeliverGood{d.Good, d.Destination, d.Required, d.Fulfilled})
	}
	return out
}

type apiTradeGood struct {
	Symbol      string `json:"symbol"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

type apiMarketTradeGood struct {
	Symbol        string `json:"symbol"`
	Type          string `json:"type"`
	TradeVolume   int    `json:"tradeVolume"`
	Supply        string `json:"supply"`
	Activity      string `json:"activity,omitempty"`
	PurchasePrice int    `json:"purchasePrice"`
	SellPrice     int    `json:"sellPrice"`
}

type apiMarketTransaction struct {
	WaypointSymbol string `json:"waypointSymbol"`
	ShipSymbol     string `json:"shipSymbol"`
	TradeSymbol    string `json:"tradeSymbol"`
	Type           string `json:"type"`
	Units          int    `json:"units"`
	PricePerUnit   int    `json:"pricePerUnit"`
	TotalPrice     int    `json:"totalPrice"`
	Timestamp      string `json:"timestamp"`
}

type apiMarket struct {
	Symbol       string                 `json:"symbol"`
	Exports      []apiTradeGood         `json:"exports"`
	Imports      []apiTradeGood         `json:"imports"`
	Exchange     []apiTradeGood         `json:"exchange"`
	Transactions []apiMarketTransaction `json:"transactions,omitempty"`
	TradeGoods   []apiMarketTradeGood   `json:"tradeGoods,omitempty"`
}

func renderTransaction(waypoint string, t *transaction) apiMarketTransaction {
	return apiMarketTransaction{waypoint, t.Ship, t.Good, t.Type, t.Units, t.Price, t.Units * t.Price, ts(t.Timestamp)}
}

// renderMarket shows prices and recent trades only to an agent with a ship present, as the
// real server does.
func (u *Universe) renderMarket(w *waypoint, present bool) apiMarket {
	out := apiMarket{Symbol: w.Symbol, Exports: []apiTradeGood{}, Imports: []apiTradeGood{}, Exchange: []apiTradeGood{}}
	for _, g := range w.Market.Goods {
		tg := apiTradeGood{g.Symbol, titleCase(g.Symbol), goodDescription(g.Symbol)}
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
	out.TradeGoods = []apiMarketTradeGood{}
	out.Transactions = []apiMarketTransaction{}
	for _, g := range w.Market.Goods {
		u.drift(g)
		buy, sell := prices(g)
		out.TradeGoods = append(out.TradeGoods, apiMarketTradeGood{g.Symbol, g.Kind, goods[g.Symbol].volume,
			supplyLevel(g.Supply), g.Activity, buy, sell})
	}
	for _, t := range slices.Backward(w.Market.Transactions) {
		out.Transactions = append(out.Transactions, renderTransaction(w.Symbol, t))
	}
	return out
}

type apiShipyardShip struct {
	Type          string      `json:"type"`
	Symbol        string      `json:"symbol"` // not in the spec's properties, but listed as required
	Name          string      `json:"name"`
	Description   string      `json:"description"`
	Supply        string      `json:"supply"`
	Activity      string      `json:"activity"`
	PurchasePrice int         `json:"purchasePrice"`
	Frame         apiFrame    `json:"frame"`
	Reactor       apiReactor  `json:"reactor"`
	Engine        apiEngine   `json:"engine"`
	Modules       []apiModule `json:"modules"`
	Mounts        []apiMount  `json:"mounts"`
	Crew          struct {
		Required int `json:"required"`
		Capacity int `json:"capacity"`
	} `json:"crew"`
}

type apiShipType struct {
	Type string `json:"type"`
}

type apiShipyard struct {
	Symbol           string            `json:"symbol"`
	ShipTypes        []apiShipType     `json:"shipTypes"`
	Ships            []apiShipyardShip `json:"ships,omitempty"`
	ModificationsFee int               `json:"modificationsFee"`
}

func renderShipyard(w *waypoint, present bool) apiShipyard {
	out := apiShipyard{Symbol: w.Symbol, ShipTypes: []apiShipType{}, ModificationsFee: 100}
	for _, t := range w.Shipyard {
		out.ShipTypes = append(out.ShipTypes, apiShipType{t})
	}
	if !present {
		return out
	}
	out.Ships = []apiShipyardShip{}
	for _, t := range w.Shipyard {
		spec := shipTypes[t]
		s := apiShipyardShip{Type: t, Symbol: t, Name: spec.name, Description: "A " + spec.name + ".",
			Supply: "MODERATE", Activity: "GROWING", PurchasePrice: spec.price,
			Frame: renderFrame(spec.frame), Reactor: renderReactor(spec.reactor), Engine: renderEngine(spec.engine),
			Modules: renderModules(spec.modules), Mounts: renderMounts(spec.mounts)}
		s.Crew.Required, s.Crew.Capacity = spec.crewRequired, spec.crewCap
		out.Ships = append(out.Ships, s)
	}
	return out
}
