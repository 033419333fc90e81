package universe

import "time"

// The types in this file are the universe's whole mutable state. They are saved as JSON,
// so every field that matters is exported and nothing is derived from map order.

type state struct {
	Seed      int64     `json:"seed"`
	Created   time.Time `json:"created"`
	RNG       []byte    `json:"rng"` // math/rand/v2 PCG state
	Systems   []*system `json:"systems"`
	Agents    []*agent  `json:"agents"`
	Surveys   []*survey `json:"surveys"`
	NextShips int       `json:"nextShips"`
}

type system struct {
	Symbol        string      `json:"symbol"`
	Name          string      `json:"name"`
	Constellation string      `json:"constellation"`
	Type          string      `json:"type"`
	X             int         `json:"x"`
	Y             int         `json:"y"`
	Faction       string      `json:"faction,omitempty"`
	Waypoints     []*waypoint `json:"waypoints"`
}

type waypoint struct {
	Symbol    string    `json:"symbol"`
	System    string    `json:"system"`
	Type      string    `json:"type"`
	X         int       `json:"x"`
	Y         int       `json:"y"`
	Orbits    string    `json:"orbits,omitempty"`
	Orbitals  []string  `json:"orbitals,omitempty"`
	Faction   string    `json:"faction,omitempty"`
	Traits    []string  `json:"traits"`
	Uncharted bool      `json:"uncharted,omitempty"`
	ChartedBy string    `json:"chartedBy,omitempty"`
	ChartedOn time.Time `json:"chartedOn"`
	Market    *market   `json:"market,omitempty"`
	Shipyard  []string  `json:"shipyard,omitempty"` // ship types sold
	Gate      []string  `json:"gate,omitempty"`     // connected jump gate waypoints
	IsGate    bool      `json:"isGate,omitempty"`
}

type market struct {
	Goods        []*marketGood  `json:"goods"`
	Transactions []*transaction `json:"transactions,omitempty"`
}

// marketGood keeps supply as a continuous level from 0 (SCARCE) to 4 (ABUNDANT); trades
// push it and time pulls it back to Equilibrium.
type marketGood struct {
	Symbol      string    `json:"symbol"`
	Kind        string    `json:"kind"` // EXPORT, IMPORT, EXCHANGE
	Supply      float64   `json:"supply"`
	Equilibrium float64   `json:"equilibrium"`
	Activity    string    `json:"activity,omitempty"`
	Updated     time.Time `json:"updated"`
}

type transaction struct {
	Ship      string    `json:"ship"`
	Good      string    `json:"good"`
	Type      string    `json:"type"`
	Units     int       `json:"units"`
	Price     int       `json:"price"`
	Timestamp time.Time `json:"timestamp"`
}

type agent struct {
	Symbol    string      `json:"symbol"`
	AccountID string      `json:"accountId"`
	Token     string      `json:"-"` // derived from the seed, never saved: see Universe.tokenFor
	Faction   string      `json:"faction"`
	HQ        string      `json:"hq"`
	Credits   int64       `json:"credits"`
	Ships     []*ship     `json:"ships"`
	Contracts []*contract `json:"contracts"`
}

type ship struct {
	Symbol  string   `json:"symbol"`
	Type    string   `json:"type"`
	Agent   string   `json:"agent"`
	Faction string   `json:"faction"`
	Modules []string `json:"modules"`
	Mounts  []string `json:"mounts"`

	System      string    `json:"system"`
	Waypoint    string    `json:"waypoint"`
	Status      string    `json:"status"`
	FlightMode  string    `json:"flightMode"`
	Origin      string    `json:"origin"`
	Destination string    `json:"destination"`
	Departure   time.Time `json:"departure"`
	Arrival     time.Time `json:"arrival"`

	Fuel         int       `json:"fuel"`
	FuelConsumed int       `json:"fuelConsumed"`
	FuelUsedAt   time.Time `json:"fuelUsedAt"`

	Cargo []cargoItem `json:"cargo"`

	CooldownTotal int       `json:"cooldownTotal"`
	CooldownUntil time.Time `json:"cooldownUntil"`
}

type cargoItem struct {
	Symbol string `json:"symbol"`
	Units  int    `json:"units"`
}

type contract struct {
	ID               string         `json:"id"`
	Faction          string         `json:"faction"`
	Type             string         `json:"type"`
	Deadline         time.Time      `json:"deadline"`
	DeadlineToAccept time.Time      `json:"deadlineToAccept"`
	OnAccepted       int            `json:"onAccepted"`
	OnFulfilled      int            `json:"onFulfilled"`
	Deliver          []*deliverGood `json:"deliver"`
	Accepted         bool           `json:"accepted"`
	Fulfilled        bool           `json:"fulfilled"`
}

type deliverGood struct {
	Good        string `json:"good"`
	Destination string `json:"destination"`
	Required    int    `json:"required"`
	Fulfilled   int    `json:"fulfilled"`
}

type survey struct {
	Signature string    `json:"signature"`
	Waypoint  string    `json:"waypoint"`
	Deposits  []string  `json:"deposits"`
	Size      string    `json:"size"`
	Expires   time.Time `json:"expires"`
	UsesLeft  int       `json:"usesLeft"`
}
