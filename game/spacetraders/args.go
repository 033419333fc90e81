package spacetraders

// Enumerated argument types, so the schemas list the spec's values.
type (
	flightMode   string // models/ShipNavFlightMode.json
	shipType     string // models/ShipType.json
	waypointType string // models/WaypointType.json
	surveySize   string // models/Survey.json size
	detailView   string // observe_detail's views
)

// Argument types of the tools. Names are the spec's path parameters and request body
// fields, flattened into one object; the only rename is transfer_cargo's receiving ship
// (see transferArgs). Trade goods are plain strings checked against the spec's
// TradeSymbol list during validation (see checks.go): repeating that 145-value enum in
// every tool would be most of the catalogue.

type noArgs struct{}

type shipArgs struct {
	ShipSymbol string `json:"shipSymbol" jsonschema:"your ship, e.g. COPLAY-1"`
}

type contractArgs struct {
	ContractID string `json:"contractId" jsonschema:"contract id from observe_game"`
}

type navigateArgs struct {
	ShipSymbol     string `json:"shipSymbol" jsonschema:"your ship, in orbit"`
	WaypointSymbol string `json:"waypointSymbol" jsonschema:"destination in the same system"`
}

type flightModeArgs struct {
	ShipSymbol string     `json:"shipSymbol" jsonschema:"your ship"`
	FlightMode flightMode `json:"flightMode"`
}

type refuelArgs struct {
	ShipSymbol string `json:"shipSymbol" jsonschema:"your ship, docked at a market selling FUEL"`
	Units      int    `json:"units,omitempty" jsonschema:"ship fuel units to add (omit to fill the tank); 1 market unit = 100 fuel"`
	FromCargo  bool   `json:"fromCargo,omitempty" jsonschema:"use FUEL from the ship's cargo instead of the market"`
}

type cargoArgs struct {
	ShipSymbol string `json:"shipSymbol" jsonschema:"your ship"`
	Symbol     string `json:"symbol" jsonschema:"trade good symbol as listed in a market or cargo, e.g. IRON_ORE"`
	Units      int    `json:"units" jsonschema:"number of units"`
}

// transferArgs flattens transfer-cargo: the path's shipSymbol (the sender) and the body's
// shipSymbol (the receiver) share a name in the spec, so the receiver is toShipSymbol here.
type transferArgs struct {
	ShipSymbol   string `json:"shipSymbol" jsonschema:"ship giving the cargo"`
	TradeSymbol  string `json:"tradeSymbol" jsonschema:"trade good symbol, e.g. IRON_ORE"`
	Units        int    `json:"units" jsonschema:"number of units"`
	ToShipSymbol string `json:"toShipSymbol" jsonschema:"ship receiving it, at the same waypoint (the spec's body shipSymbol)"`
}

type surveyArg struct {
	Signature  string          `json:"signature"`
	Symbol     string          `json:"symbol" jsonschema:"the surveyed waypoint"`
	Deposits   []SurveyDeposit `json:"deposits"`
	Expiration string          `json:"expiration" jsonschema:"RFC 3339 time"`
	Size       surveySize      `json:"size"`
}

type extractArgs struct {
	ShipSymbol string     `json:"shipSymbol" jsonschema:"your ship with a mining laser, in orbit"`
	Survey     *surveyArg `json:"survey,omitempty" jsonschema:"a survey from create_survey, copied whole, to target its deposits"`
}

type deliverArgs struct {
	ContractID  string `json:"contractId" jsonschema:"contract id"`
	ShipSymbol  string `json:"shipSymbol" jsonschema:"ship docked at the delivery waypoint, carrying the good"`
	TradeSymbol string `json:"tradeSymbol" jsonschema:"good the contract asks for"`
	Units       int    `json:"units" jsonschema:"number of units"`
}

type purchaseShipArgs struct {
	ShipType       shipType `json:"shipType"`
	WaypointSymbol string   `json:"waypointSymbol" jsonschema:"shipyard where one of your ships is"`
}

type jumpArgs struct {
	ShipSymbol     string `json:"shipSymbol" jsonschema:"your ship, in orbit at a jump gate"`
	WaypointSymbol string `json:"waypointSymbol" jsonschema:"a connected jump gate"`
}

type detailArgs struct {
	View           detailView   `json:"view"`
	WaypointSymbol string       `json:"waypointSymbol,omitempty" jsonschema:"for waypoint, market, shipyard, jump_gate"`
	SystemSymbol   string       `json:"systemSymbol,omitempty" jsonschema:"for system_waypoints (default: your first ship's system)"`
	Type           waypointType `json:"type,omitempty" jsonschema:"system_waypoints filter"`
	Traits         []string     `json:"traits,omitempty" jsonschema:"system_waypoints filter, all must match, e.g. MARKETPLACE, SHIPYARD, COMMON_METAL_DEPOSITS"`
	ContractID     string       `json:"contractId,omitempty" jsonschema:"for contract"`
	ShipSymbol     string       `json:"shipSymbol,omitempty" jsonschema:"for ship"`
}

// Enum values, from the spec's models.
var (
	flightModes   = []flightMode{"DRIFT", "STEALTH", "CRUISE", "BURN"}
	shipTypes     = []shipType{"SHIP_PROBE", "SHIP_MINING_DRONE", "SHIP_SIPHON_DRONE", "SHIP_INTERCEPTOR", "SHIP_LIGHT_HAULER", "SHIP_COMMAND_FRIGATE", "SHIP_EXPLORER", "SHIP_HEAVY_FREIGHTER", "SHIP_LIGHT_SHUTTLE", "SHIP_ORE_HOUND", "SHIP_REFINING_FREIGHTER", "SHIP_SURVEYOR", "SHIP_BULK_FREIGHTER"}
	waypointTypes = []waypointType{"PLANET", "GAS_GIANT", "MOON", "ORBITAL_STATION", "JUMP_GATE", "ASTEROID_FIELD", "ASTEROID", "ENGINEERED_ASTEROID", "ASTEROID_BASE", "NEBULA", "DEBRIS_FIELD", "GRAVITY_WELL", "ARTIFICIAL_GRAVITY_WELL", "FUEL_STATION"}
	surveySizes   = []surveySize{"SMALL", "MODERATE", "LARGE"}
	detailViews   = []detailView{"waypoint", "system_waypoints", "market", "shipyard", "jump_gate", "contract", "ship"}
)
