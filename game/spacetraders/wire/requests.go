package wire

// The bodies of the requests both sides know: the client sends them and the universe
// decodes them. Field names and order are the spec's.

// NavigateRequest is the body of navigate and jump: where the ship goes.
type NavigateRequest struct {
	WaypointSymbol string `json:"waypointSymbol"`
}

// FlightModeRequest is the body of a PATCH of a ship's nav.
type FlightModeRequest struct {
	FlightMode string `json:"flightMode"`
}

// RefuelRequest is the body of a refuel. Units 0 fills the tank.
type RefuelRequest struct {
	Units     int  `json:"units,omitempty"`
	FromCargo bool `json:"fromCargo,omitempty"`
}

// CargoRequest is the body of purchase, sell and jettison: which good, how many units.
type CargoRequest struct {
	Symbol string `json:"symbol"`
	Units  int    `json:"units"`
}

// TransferRequest is the body of a cargo transfer; ShipSymbol is the receiving ship.
type TransferRequest struct {
	TradeSymbol string `json:"tradeSymbol"`
	Units       int    `json:"units"`
	ShipSymbol  string `json:"shipSymbol"`
}

// DeliverRequest is the body of a delivery on a contract.
type DeliverRequest struct {
	ShipSymbol  string `json:"shipSymbol"`
	TradeSymbol string `json:"tradeSymbol"`
	Units       int    `json:"units"`
}

// PurchaseShipRequest is the body of buying a ship.
type PurchaseShipRequest struct {
	ShipType       string `json:"shipType"`
	WaypointSymbol string `json:"waypointSymbol"`
}
