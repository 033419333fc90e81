package wire

// The data of the answers to actions, as the spec's operations define them. Parts the
// real server does not always send are pointers (or omitted when nil); the universe
// sends them all.

// NavResult is what orbit, dock, navigate and set-flight-mode return.
type NavResult struct {
	Nav    ShipNav              `json:"nav"`
	Fuel   *ShipFuel            `json:"fuel,omitempty"`
	Events []ShipConditionEvent `json:"events,omitzero"`
}

// TradeResult is what purchase, sell and refuel return.
type TradeResult struct {
	Agent       Agent             `json:"agent"`
	Cargo       *ShipCargo        `json:"cargo,omitempty"`
	Fuel        *ShipFuel         `json:"fuel,omitempty"`
	Transaction MarketTransaction `json:"transaction"`
}

// CargoResult is what jettison and transfer return. TargetCargo is the receiving ship's
// hold after a transfer, when the server says it (the offline universe does; the spec
// does not promise it).
type CargoResult struct {
	Cargo       ShipCargo  `json:"cargo"`
	TargetCargo *ShipCargo `json:"targetCargo,omitempty"`
}

// SurveyResult is what a survey returns.
type SurveyResult struct {
	Cooldown Cooldown `json:"cooldown"`
	Surveys  []Survey `json:"surveys"`
}

// ExtractResult is what an extraction returns.
type ExtractResult struct {
	Cooldown   Cooldown             `json:"cooldown"`
	Extraction Extraction           `json:"extraction"`
	Cargo      ShipCargo            `json:"cargo"`
	Modifiers  []WaypointModifier   `json:"modifiers,omitzero"`
	Events     []ShipConditionEvent `json:"events,omitzero"`
}

// ContractResult is what accept, fulfil and deliver return.
type ContractResult struct {
	Agent    *Agent     `json:"agent,omitempty"`
	Contract Contract   `json:"contract"`
	Cargo    *ShipCargo `json:"cargo,omitempty"`
}

// PurchaseShipResult is what buying a ship returns.
type PurchaseShipResult struct {
	Agent       Agent               `json:"agent"`
	Ship        Ship                `json:"ship"`
	Transaction ShipyardTransaction `json:"transaction"`
}

// ChartResult is what charting returns.
type ChartResult struct {
	Chart    Chart    `json:"chart"`
	Waypoint Waypoint `json:"waypoint"`
	Agent    *Agent   `json:"agent,omitempty"`
}

// JumpResult is what a jump returns.
type JumpResult struct {
	Nav         ShipNav           `json:"nav"`
	Cooldown    Cooldown          `json:"cooldown"`
	Transaction MarketTransaction `json:"transaction"`
	Agent       Agent             `json:"agent"`
}
