// Package wire holds the SpaceTraders v2 JSON shapes (the models of the OpenAPI spec,
// models/*.json) that the client (game/spacetraders) decodes and the offline universe
// (game/universe) renders, and the bodies of the requests both know (requests.go): one
// set of types for both, so they cannot drift apart.
//
// Fields the spec requires have no omitempty (the universe always sends them); optional
// ones do. Times are time.Time: the universe sets them in UTC, so they encode as the
// spec's RFC 3339 date-times. Field names are the spec's.
package wire

import "time"

// Agent is the player's agent (models/Agent.json).
type Agent struct {
	AccountID       string `json:"accountId,omitempty"`
	Symbol          string `json:"symbol"`
	Headquarters    string `json:"headquarters"`
	Credits         int64  `json:"credits"`
	StartingFaction string `json:"startingFaction"`
	ShipCount       int    `json:"shipCount"`
}

// Ship is one of the agent's ships (models/Ship.json).
type Ship struct {
	Symbol       string           `json:"symbol"`
	Registration ShipRegistration `json:"registration"`
	Nav          ShipNav          `json:"nav"`
	Crew         ShipCrew         `json:"crew"`
	Frame        ShipFrame        `json:"frame"`
	Reactor      ShipReactor      `json:"reactor"`
	Engine       ShipEngine       `json:"engine"`
	Cooldown     Cooldown         `json:"cooldown"`
	Modules      []ShipModule     `json:"modules"`
	Mounts       []ShipMount      `json:"mounts"`
	Cargo        ShipCargo        `json:"cargo"`
	Fuel         ShipFuel         `json:"fuel"`
}

// HasMount reports whether the ship carries a mount whose symbol starts with prefix
// (e.g. "MOUNT_MINING_LASER", "MOUNT_SURVEYOR").
func (s *Ship) HasMount(prefix string) bool {
	for _, m := range s.Mounts {
		if len(m.Symbol) >= len(prefix) && m.Symbol[:len(prefix)] == prefix {
			return true
		}
	}
	return false
}

// ShipRegistration is a ship's public registration (models/ShipRegistration.json).
type ShipRegistration struct {
	Name          string `json:"name"`
	FactionSymbol string `json:"factionSymbol"`
	Role          string `json:"role"`
}

// ShipCrew is a ship's crew (models/ShipCrew.json).
type ShipCrew struct {
	Current  int    `json:"current"`
	Required int    `json:"required"`
	Capacity int    `json:"capacity"`
	Rotation string `json:"rotation"`
	Morale   int    `json:"morale"`
	Wages    int    `json:"wages"`
}

// ShipFrame is a ship's hull (models/ShipFrame.json).
type ShipFrame struct {
	Symbol         string           `json:"symbol"`
	Name           string           `json:"name"`
	Description    string           `json:"description"`
	Condition      float64          `json:"condition"`
	Integrity      float64          `json:"integrity"`
	ModuleSlots    int              `json:"moduleSlots"`
	MountingPoints int              `json:"mountingPoints"`
	FuelCapacity   int              `json:"fuelCapacity"`
	Requirements   ShipRequirements `json:"requirements"`
	Quality        float64          `json:"quality"`
}

// ShipReactor powers a ship (models/ShipReactor.json).
type ShipReactor struct {
	Symbol       string           `json:"symbol"`
	Name         string           `json:"name"`
	Description  string           `json:"description"`
	Condition    float64          `json:"condition"`
	Integrity    float64          `json:"integrity"`
	PowerOutput  int              `json:"powerOutput"`
	Requirements ShipRequirements `json:"requirements"`
	Quality      float64          `json:"quality"`
}

// ShipEngine moves a ship (models/ShipEngine.json).
type ShipEngine struct {
	Symbol       string           `json:"symbol"`
	Name         string           `json:"name"`
	Description  string           `json:"description"`
	Condition    float64          `json:"condition"`
	Integrity    float64          `json:"integrity"`
	Speed        int              `json:"speed"`
	Requirements ShipRequirements `json:"requirements"`
	Quality      float64          `json:"quality"`
}

// ShipRequirements are what a component needs (models/ShipRequirements.json).
type ShipRequirements struct {
	Power int `json:"power"`
	Crew  int `json:"crew"`
	Slots int `json:"slots"`
}

// ShipModule is an installed module (models/ShipModule.json).
type ShipModule struct {
	Symbol       string           `json:"symbol"`
	Capacity     int              `json:"capacity,omitempty"`
	Range        int              `json:"range,omitempty"`
	Name         string           `json:"name"`
	Description  string           `json:"description"`
	Requirements ShipRequirements `json:"requirements"`
}

// ShipMount is an installed mount (models/ShipMount.json).
type ShipMount struct {
	Symbol       string           `json:"symbol"`
	Name         string           `json:"name"`
	Description  string           `json:"description,omitempty"`
	Strength     int              `json:"strength,omitempty"`
	Deposits     []string         `json:"deposits,omitempty"`
	Requirements ShipRequirements `json:"requirements"`
}

// Nav statuses (models/ShipNavStatus.json).
const (
	InTransit = "IN_TRANSIT"
	InOrbit   = "IN_ORBIT"
	Docked    = "DOCKED"
)

// ShipNav is where a ship is and where it is going (models/ShipNav.json).
type ShipNav struct {
	SystemSymbol   string       `json:"systemSymbol"`
	WaypointSymbol string       `json:"waypointSymbol"`
	Route          ShipNavRoute `json:"route"`
	Status         string       `json:"status"`
	FlightMode     string       `json:"flightMode"`
}

// ShipNavRoute is a ship's last or current route (models/ShipNavRoute.json).
type ShipNavRoute struct {
	Destination ShipNavRouteWaypoint `json:"destination"`
	Origin      ShipNavRouteWaypoint `json:"origin"`
	// Departure is not among the spec's properties but is listed as required (the
	// deprecated name of Origin); the universe sends it.
	Departure     *ShipNavRouteWaypoint `json:"departure,omitempty"`
	DepartureTime time.Time             `json:"departureTime"`
	Arrival       time.Time             `json:"arrival"`
}

// ShipNavRouteWaypoint is one end of a route (models/ShipNavRouteWaypoint.json).
type ShipNavRouteWaypoint struct {
	Symbol       string `json:"symbol"`
	Type         string `json:"type"`
	SystemSymbol string `json:"systemSymbol"`
	X            int    `json:"x"`
	Y            int    `json:"y"`
}

// ShipFuel is a ship's tank (models/ShipFuel.json).
type ShipFuel struct {
	Current  int           `json:"current"`
	Capacity int           `json:"capacity"`
	Consumed *FuelConsumed `json:"consumed,omitempty"`
}

// FuelConsumed is the fuel the last action used.
type FuelConsumed struct {
	Amount    int       `json:"amount"`
	Timestamp time.Time `json:"timestamp"`
}

// ShipCargo is a ship's hold (models/ShipCargo.json).
type ShipCargo struct {
	Capacity  int             `json:"capacity"`
	Units     int             `json:"units"`
	Inventory []ShipCargoItem `json:"inventory"`
}

// Count returns how many units of the good the hold carries.
func (c *ShipCargo) Count(symbol string) int {
	for _, it := range c.Inventory {
		if it.Symbol == symbol {
			return it.Units
		}
	}
	return 0
}

// ShipCargoItem is one good in a hold (models/ShipCargoItem.json).
type ShipCargoItem struct {
	Symbol      string `json:"symbol"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Units       int    `json:"units"`
}

// Cooldown is a ship's reactor cooldown (models/Cooldown.json). Expiration is zero when
// the ship is not cooling down.
type Cooldown struct {
	ShipSymbol       string    `json:"shipSymbol"`
	TotalSeconds     int       `json:"totalSeconds"`
	RemainingSeconds int       `json:"remainingSeconds"`
	Expiration       time.Time `json:"expiration,omitzero"`
}

// Contract is a faction contract (models/Contract.json).
type Contract struct {
	ID               string        `json:"id"`
	FactionSymbol    string        `json:"factionSymbol"`
	Type             string        `json:"type"`
	Terms            ContractTerms `json:"terms"`
	Accepted         bool          `json:"accepted"`
	Fulfilled        bool          `json:"fulfilled"`
	Expiration       time.Time     `json:"expiration"`
	DeadlineToAccept time.Time     `json:"deadlineToAccept,omitzero"`
}

// ContractTerms are what a contract asks and pays (models/ContractTerms.json).
type ContractTerms struct {
	Deadline time.Time             `json:"deadline"`
	Payment  ContractPayment       `json:"payment"`
	Deliver  []ContractDeliverGood `json:"deliver"`
}

// ContractPayment is paid on accepting and on fulfilling (models/ContractPayment.json).
type ContractPayment struct {
	OnAccepted  int64 `json:"onAccepted"`
	OnFulfilled int64 `json:"onFulfilled"`
}

// ContractDeliverGood is one delivery term (models/ContractDeliverGood.json).
type ContractDeliverGood struct {
	TradeSymbol       string `json:"tradeSymbol"`
	DestinationSymbol string `json:"destinationSymbol"`
	UnitsRequired     int    `json:"unitsRequired"`
	UnitsFulfilled    int    `json:"unitsFulfilled"`
}

// Market is a marketplace (models/Market.json). TradeGoods and Transactions are only
// present when one of the agent's ships is at the waypoint.
type Market struct {
	Symbol       string              `json:"symbol"`
	Exports      []TradeGood         `json:"exports"`
	Imports      []TradeGood         `json:"imports"`
	Exchange     []TradeGood         `json:"exchange"`
	Transactions []MarketTransaction `json:"transactions,omitempty"`
	TradeGoods   []MarketTradeGood   `json:"tradeGoods,omitempty"`
}

// Good returns the market's live listing of a good, or nil.
func (m *Market) Good(symbol string) *MarketTradeGood {
	for i := range m.TradeGoods {
		if m.TradeGoods[i].Symbol == symbol {
			return &m.TradeGoods[i]
		}
	}
	return nil
}

// TradeGood names a good (models/TradeGood.json).
type TradeGood struct {
	Symbol      string `json:"symbol"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// MarketTradeGood is a good's live listing (models/MarketTradeGood.json). PurchasePrice
// is what the agent pays to buy, SellPrice what it gets to sell.
type MarketTradeGood struct {
	Symbol        string `json:"symbol"`
	Type          string `json:"type"`
	TradeVolume   int    `json:"tradeVolume"`
	Supply        string `json:"supply"`
	Activity      string `json:"activity,omitempty"`
	PurchasePrice int64  `json:"purchasePrice"`
	SellPrice     int64  `json:"sellPrice"`
}

// MarketTransaction is a purchase or a sale (models/MarketTransaction.json).
type MarketTransaction struct {
	WaypointSymbol string    `json:"waypointSymbol"`
	ShipSymbol     string    `json:"shipSymbol"`
	TradeSymbol    string    `json:"tradeSymbol"`
	Type           string    `json:"type"`
	Units          int       `json:"units"`
	PricePerUnit   int64     `json:"pricePerUnit"`
	TotalPrice     int64     `json:"totalPrice"`
	Timestamp      time.Time `json:"timestamp"`
}

// System is a star system (models/System.json).
type System struct {
	Symbol        string           `json:"symbol"`
	SectorSymbol  string           `json:"sectorSymbol"`
	Constellation string           `json:"constellation,omitempty"`
	Name          string           `json:"name,omitempty"`
	Type          string           `json:"type"`
	X             int              `json:"x"`
	Y             int              `json:"y"`
	Waypoints     []SystemWaypoint `json:"waypoints"`
	Factions      []SystemFaction  `json:"factions"`
}

// SystemFaction is a faction present in a system (models/SystemFaction.json).
type SystemFaction struct {
	Symbol string `json:"symbol"`
}

// SystemWaypoint is a waypoint as listed in its system (models/SystemWaypoint.json).
type SystemWaypoint struct {
	Symbol   string            `json:"symbol"`
	Type     string            `json:"type"`
	X        int               `json:"x"`
	Y        int               `json:"y"`
	Orbitals []WaypointOrbital `json:"orbitals"`
	Orbits   string            `json:"orbits,omitempty"`
}

// Waypoint is a waypoint with its traits (models/Waypoint.json).
type Waypoint struct {
	Symbol              string             `json:"symbol"`
	Type                string             `json:"type"`
	SystemSymbol        string             `json:"systemSymbol"`
	X                   int                `json:"x"`
	Y                   int                `json:"y"`
	Orbitals            []WaypointOrbital  `json:"orbitals"`
	Orbits              string             `json:"orbits,omitempty"`
	Faction             *WaypointFaction   `json:"faction,omitempty"`
	Traits              []WaypointTrait    `json:"traits"`
	Modifiers           []WaypointModifier `json:"modifiers"`
	Chart               *Chart             `json:"chart,omitempty"`
	IsUnderConstruction bool               `json:"isUnderConstruction"`
}

// HasTrait reports whether the waypoint has the trait (e.g. "MARKETPLACE").
func (w *Waypoint) HasTrait(symbol string) bool {
	for _, t := range w.Traits {
		if t.Symbol == symbol {
			return true
		}
	}
	return false
}

// WaypointOrbital is a waypoint orbiting another (models/WaypointOrbital.json).
type WaypointOrbital struct {
	Symbol string `json:"symbol"`
}

// WaypointFaction is the faction that controls a waypoint (models/WaypointFaction.json).
type WaypointFaction struct {
	Symbol string `json:"symbol"`
}

// WaypointTrait is a waypoint trait (models/WaypointTrait.json).
type WaypointTrait struct {
	Symbol      string `json:"symbol"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// WaypointModifier is a temporary waypoint condition (models/WaypointModifier.json).
type WaypointModifier struct {
	Symbol      string `json:"symbol"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// Chart says who charted a waypoint (models/Chart.json).
type Chart struct {
	WaypointSymbol string    `json:"waypointSymbol,omitempty"`
	SubmittedBy    string    `json:"submittedBy,omitempty"`
	SubmittedOn    time.Time `json:"submittedOn,omitzero"`
}

// Shipyard sells ships (models/Shipyard.json). Ships and Transactions are only present
// when one of the agent's ships is at the waypoint.
type Shipyard struct {
	Symbol           string                `json:"symbol"`
	ShipTypes        []ShipyardShipType    `json:"shipTypes"`
	Transactions     []ShipyardTransaction `json:"transactions,omitempty"`
	Ships            []ShipyardShip        `json:"ships,omitempty"`
	ModificationsFee int64                 `json:"modificationsFee"`
}

// ShipyardShipType is a type of ship a shipyard sells.
type ShipyardShipType struct {
	Type string `json:"type"`
}

// ShipyardShip is a ship for sale (models/ShipyardShip.json).
type ShipyardShip struct {
	Type string `json:"type"`
	// Symbol is not among the spec's properties but is listed as required; the universe
	// sends the type.
	Symbol        string       `json:"symbol,omitempty"`
	Name          string       `json:"name"`
	Description   string       `json:"description"`
	Supply        string       `json:"supply"`
	Activity      string       `json:"activity,omitempty"`
	PurchasePrice int64        `json:"purchasePrice"`
	Frame         ShipFrame    `json:"frame"`
	Reactor       ShipReactor  `json:"reactor"`
	Engine        ShipEngine   `json:"engine"`
	Modules       []ShipModule `json:"modules"`
	Mounts        []ShipMount  `json:"mounts"`
	Crew          ShipyardCrew `json:"crew"`
}

// ShipyardCrew is the crew a ship for sale needs and holds.
type ShipyardCrew struct {
	Required int `json:"required"`
	Capacity int `json:"capacity"`
}

// ShipyardTransaction is a ship purchase (models/ShipyardTransaction.json).
type ShipyardTransaction struct {
	WaypointSymbol string    `json:"waypointSymbol"`
	ShipSymbol     string    `json:"shipSymbol"`
	ShipType       string    `json:"shipType"`
	Price          int64     `json:"price"`
	AgentSymbol    string    `json:"agentSymbol"`
	Timestamp      time.Time `json:"timestamp"`
}

// JumpGate lists the gates a jump gate connects to (models/JumpGate.json).
type JumpGate struct {
	Symbol      string   `json:"symbol"`
	Connections []string `json:"connections"`
}

// Survey is a survey of a waypoint's deposits (models/Survey.json). Pass it whole to
// Extract to target its deposits.
type Survey struct {
	Signature  string          `json:"signature"`
	Symbol     string          `json:"symbol"`
	Deposits   []SurveyDeposit `json:"deposits"`
	Expiration time.Time       `json:"expiration"`
	Size       string          `json:"size"`
}

// SurveyDeposit is one deposit a survey found (models/SurveyDeposit.json).
type SurveyDeposit struct {
	Symbol string `json:"symbol"`
}

// Extraction is what an extraction yielded (models/Extraction.json).
type Extraction struct {
	ShipSymbol string          `json:"shipSymbol"`
	Yield      ExtractionYield `json:"yield"`
}

// ExtractionYield is the good and units an extraction gave (models/ExtractionYield.json).
type ExtractionYield struct {
	Symbol string `json:"symbol"`
	Units  int    `json:"units"`
}

// ShipConditionEvent is wear from an action (models/ShipConditionEvent.json).
type ShipConditionEvent struct {
	Symbol      string `json:"symbol"`
	Component   string `json:"component"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// Meta is a page of a list (models/Meta.json).
type Meta struct {
	Total int `json:"total"`
	Page  int `json:"page"`
	Limit int `json:"limit"`
}
