package spacetraders

import (
	"github.com/coplayhq/coplay/game"
	"github.com/google/jsonschema-go/jsonschema"
)

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
// TradeSymbol list before sending (see tradesymbols.go): repeating that 145-value enum in
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

// Tool names.
const (
	ToolObserveGame       = "observe_game"
	ToolObserveDetail     = "observe_detail"
	ToolOrbitShip         = "orbit_ship"
	ToolDockShip          = "dock_ship"
	ToolNavigateShip      = "navigate_ship"
	ToolSetFlightMode     = "set_flight_mode"
	ToolRefuelShip        = "refuel_ship"
	ToolPurchaseCargo     = "purchase_cargo"
	ToolSellCargo         = "sell_cargo"
	ToolJettisonCargo     = "jettison_cargo"
	ToolTransferCargo     = "transfer_cargo"
	ToolCreateSurvey      = "create_survey"
	ToolExtractResources  = "extract_resources"
	ToolAcceptContract    = "accept_contract"
	ToolDeliverContract   = "deliver_contract"
	ToolFulfillContract   = "fulfill_contract"
	ToolNegotiateContract = "negotiate_contract"
	ToolPurchaseShip      = "purchase_ship"
	ToolCreateChart       = "create_chart"
	ToolJumpShip          = "jump_ship"
)

// Operations maps each Act tool to the spec operation it calls (its operationId). The
// extract tool calls extract-resources-with-survey when a survey is given.
var Operations = map[string]string{
	ToolOrbitShip:         "orbit-ship",
	ToolDockShip:          "dock-ship",
	ToolNavigateShip:      "navigate-ship",
	ToolSetFlightMode:     "patch-ship-nav",
	ToolRefuelShip:        "refuel-ship",
	ToolPurchaseCargo:     "purchase-cargo",
	ToolSellCargo:         "sell-cargo",
	ToolJettisonCargo:     "jettison",
	ToolTransferCargo:     "transfer-cargo",
	ToolCreateSurvey:      "create-survey",
	ToolExtractResources:  "extract-resources",
	ToolAcceptContract:    "accept-contract",
	ToolDeliverContract:   "deliver-contract",
	ToolFulfillContract:   "fulfill-contract",
	ToolNegotiateContract: "negotiateContract",
	ToolPurchaseShip:      "purchase-ship",
	ToolCreateChart:       "create-chart",
	ToolJumpShip:          "jump-ship",
}

func units1(s *jsonschema.Schema) *jsonschema.Schema { return game.Min(s, "units", 1) }

// Catalog returns the tool catalogue. It needs no connection, so it can be listed
// (coplay tools) without starting anything.
func Catalog() []game.Tool {
	enums := []game.SchemaOption{
		game.WithEnum("flight mode: CRUISE normal, BURN 2x fuel and faster, DRIFT 1 fuel and very slow, STEALTH", flightModes...),
		game.WithEnum("ship type", shipTypes...),
		game.WithEnum("waypoint type", waypointTypes...),
		game.WithEnum("survey size", surveySizes...),
		game.WithEnum("what to look at", detailViews...),
	}
	act := func(name, desc string, s *jsonschema.Schema, dry bool) game.Tool {
		return game.Tool{Name: name, Description: desc, Kind: game.Act, Schema: s, DryRun: dry}
	}
	return []game.Tool{
		{Name: ToolObserveGame, Kind: game.Read, Schema: game.SchemaFor[noArgs](),
			Description: "Agent, credits, every ship (where, status, route, fuel, cargo, cooldown) and contracts. Same text as the observation you get each step."},
		{Name: ToolObserveDetail, Kind: game.Read, Schema: game.SchemaFor[detailArgs](enums...),
			Description: "Look closer: a waypoint (traits), a system's waypoints (optionally filtered), a market (goods, prices; live only with a ship there), a shipyard, a jump gate's connections, a contract, or a ship in full."},
		act(ToolOrbitShip, "Undock a ship into orbit (needed to navigate, extract, survey, jump).", game.SchemaFor[shipArgs](), false),
		act(ToolDockShip, "Dock a ship in orbit (needed to trade, refuel, deliver, negotiate).", game.SchemaFor[shipArgs](), false),
		act(ToolNavigateShip, "Fly a ship in orbit to a waypoint of its system; uses fuel by distance and flight mode.", game.SchemaFor[navigateArgs](), true),
		act(ToolSetFlightMode, "Set a ship's flight mode for its next trips.", game.SchemaFor[flightModeArgs](enums...), false),
		act(ToolRefuelShip, "Buy fuel for a docked ship.", units1(game.SchemaFor[refuelArgs]()), true),
		act(ToolPurchaseCargo, "Buy goods at the docked ship's market (units up to the good's trade volume).", units1(game.SchemaFor[cargoArgs]()), true),
		act(ToolSellCargo, "Sell goods from the docked ship's cargo at its market.", units1(game.SchemaFor[cargoArgs]()), true),
		act(ToolJettisonCargo, "Dump cargo into space (lost).", units1(game.SchemaFor[cargoArgs]()), false),
		act(ToolTransferCargo, "Move cargo to another of your ships at the same waypoint.", units1(game.SchemaFor[transferArgs]()), false),
		act(ToolCreateSurvey, "Survey the ship's waypoint for deposits (needs a surveyor mount, in orbit; starts a cooldown).", game.SchemaFor[shipArgs](), false),
		act(ToolExtractResources, "Mine the ship's asteroid (in orbit, mining laser, no cooldown, cargo space); starts a cooldown.", game.SchemaFor[extractArgs](enums...), false),
		act(ToolAcceptContract, "Accept a contract; pays its onAccepted part now.", game.SchemaFor[contractArgs](), false),
		act(ToolDeliverContract, "Deliver contract goods from a ship docked at the delivery waypoint.", units1(game.SchemaFor[deliverArgs]()), false),
		act(ToolFulfillContract, "Complete a contract whose deliveries are done; pays onFulfilled.", game.SchemaFor[contractArgs](), false),
		act(ToolNegotiateContract, "Ask the faction at the docked ship's waypoint for a new contract (only one open at a time).", game.SchemaFor[shipArgs](), false),
		act(ToolPurchaseShip, "Buy a ship at a shipyard where one of your ships is.", game.SchemaFor[purchaseShipArgs](enums...), false),
		act(ToolCreateChart, "Chart the uncharted waypoint the ship is at.", game.SchemaFor[shipArgs](), false),
		act(ToolJumpShip, "Jump a ship in orbit at a jump gate to a connected gate in another system.", game.SchemaFor[jumpArgs](), false),
	}
}
