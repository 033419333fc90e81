package spacetraders

import "github.com/coplayhq/coplay/game/spacetraders/wire"

// The API's JSON shapes are package wire's, shared with the offline universe; these
// names let the client and its users say spacetraders.Ship.
type (
	Agent                = wire.Agent
	Ship                 = wire.Ship
	ShipRegistration     = wire.ShipRegistration
	ShipCrew             = wire.ShipCrew
	ShipFrame            = wire.ShipFrame
	ShipReactor          = wire.ShipReactor
	ShipEngine           = wire.ShipEngine
	ShipRequirements     = wire.ShipRequirements
	ShipModule           = wire.ShipModule
	ShipMount            = wire.ShipMount
	ShipNav              = wire.ShipNav
	ShipNavRoute         = wire.ShipNavRoute
	ShipNavRouteWaypoint = wire.ShipNavRouteWaypoint
	ShipFuel             = wire.ShipFuel
	FuelConsumed         = wire.FuelConsumed
	ShipCargo            = wire.ShipCargo
	ShipCargoItem        = wire.ShipCargoItem
	Cooldown             = wire.Cooldown
	Contract             = wire.Contract
	ContractTerms        = wire.ContractTerms
	ContractPayment      = wire.ContractPayment
	ContractDeliverGood  = wire.ContractDeliverGood
	Market               = wire.Market
	TradeGood            = wire.TradeGood
	MarketTradeGood      = wire.MarketTradeGood
	MarketTransaction    = wire.MarketTransaction
	System               = wire.System
	SystemFaction        = wire.SystemFaction
	SystemWaypoint       = wire.SystemWaypoint
	Waypoint             = wire.Waypoint
	WaypointOrbital      = wire.WaypointOrbital
	WaypointFaction      = wire.WaypointFaction
	WaypointTrait        = wire.WaypointTrait
	WaypointModifier     = wire.WaypointModifier
	Chart                = wire.Chart
	Shipyard             = wire.Shipyard
	ShipyardShipType     = wire.ShipyardShipType
	ShipyardShip         = wire.ShipyardShip
	ShipyardCrew         = wire.ShipyardCrew
	ShipyardTransaction  = wire.ShipyardTransaction
	JumpGate             = wire.JumpGate
	Survey               = wire.Survey
	SurveyDeposit        = wire.SurveyDeposit
	Extraction           = wire.Extraction
	ExtractionYield      = wire.ExtractionYield
	ShipConditionEvent   = wire.ShipConditionEvent
	NavResult            = wire.NavResult
	TradeResult          = wire.TradeResult
	CargoResult          = wire.CargoResult
	SurveyResult         = wire.SurveyResult
	ExtractResult        = wire.ExtractResult
	ContractResult       = wire.ContractResult
	PurchaseShipResult   = wire.PurchaseShipResult
	ChartResult          = wire.ChartResult
	JumpResult           = wire.JumpResult
	Meta                 = wire.Meta
)

// A ship's nav status (models/ShipNavStatus.json).
const (
	InTransit = wire.InTransit
	InOrbit   = wire.InOrbit
	Docked    = wire.Docked
)
