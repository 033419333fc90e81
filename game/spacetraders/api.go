package spacetraders

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/coplayhq/coplay/game/spacetraders/wire"
)

// This file holds one method per API operation the game uses, named after it. Paths and
// bodies are the spec's; responses are its data objects.

func esc(s string) string { return url.PathEscape(s) }

// SystemOf returns the system symbol of a waypoint symbol ("X1-DF55-A2" → "X1-DF55").
func SystemOf(waypoint string) string {
	n := 0
	for i := 0; i < len(waypoint); i++ {
		if waypoint[i] == '-' {
			n++
			if n == 2 {
				return waypoint[:i]
			}
		}
	}
	return waypoint
}

// Agent returns the player's agent (GET /my/agent).
func (c *Client) Agent(ctx context.Context) (*Agent, error) {
	return call[Agent](ctx, c, http.MethodGet, "/my/agent", nil)
}

// pageAll fetches every page of a list, 20 at a time.
func pageAll[T any](ctx context.Context, c *Client, path string, q url.Values) ([]T, error) {
	var all []T
	for page := 1; ; page++ {
		qq := url.Values{}
		for k, v := range q {
			qq[k] = v
		}
		qq.Set("limit", "20")
		qq.Set("page", strconv.Itoa(page))
		var items []T
		meta, err := c.do(ctx, http.MethodGet, path, qq, nil, &items)
		if err != nil {
			return nil, err
		}
		all = append(all, items...)
		if meta == nil || len(items) == 0 || page*meta.Limit >= meta.Total {
			return all, nil
		}
	}
}

// Ships returns every ship of the agent (GET /my/ships, all pages).
func (c *Client) Ships(ctx context.Context) ([]Ship, error) {
	return pageAll[Ship](ctx, c, "/my/ships", nil)
}

// Ship returns one ship (GET /my/ships/{shipSymbol}).
func (c *Client) Ship(ctx context.Context, ship string) (*Ship, error) {
	return call[Ship](ctx, c, http.MethodGet, "/my/ships/"+esc(ship), nil)
}

// Contracts returns every contract of the agent (GET /my/contracts, all pages).
func (c *Client) Contracts(ctx context.Context) ([]Contract, error) {
	return pageAll[Contract](ctx, c, "/my/contracts", nil)
}

// Contract returns one contract (GET /my/contracts/{contractId}).
func (c *Client) Contract(ctx context.Context, id string) (*Contract, error) {
	return call[Contract](ctx, c, http.MethodGet, "/my/contracts/"+esc(id), nil)
}

// System returns a system with its waypoints' positions (GET /systems/{systemSymbol}).
func (c *Client) System(ctx context.Context, system string) (*System, error) {
	return call[System](ctx, c, http.MethodGet, "/systems/"+esc(system), nil)
}

// WaypointFilter narrows Waypoints. Empty fields do not filter.
type WaypointFilter struct {
	Type   string   // a WaypointType, e.g. ASTEROID
	Traits []string // WaypointTraitSymbols, all of which must be present
}

// Waypoints returns a system's waypoints with traits (GET /systems/{systemSymbol}/waypoints,
// all pages).
func (c *Client) Waypoints(ctx context.Context, system string, f WaypointFilter) ([]Waypoint, error) {
	q := url.Values{}
	if f.Type != "" {
		q.Set("type", f.Type)
	}
	for _, t := range f.Traits {
		q.Add("traits", t)
	}
	return pageAll[Waypoint](ctx, c, "/systems/"+esc(system)+"/waypoints", q)
}

// Waypoint returns one waypoint (GET /systems/{systemSymbol}/waypoints/{waypointSymbol}).
func (c *Client) Waypoint(ctx context.Context, waypoint string) (*Waypoint, error) {
	return call[Waypoint](ctx, c, http.MethodGet, "/systems/"+esc(SystemOf(waypoint))+"/waypoints/"+esc(waypoint), nil)
}

// Market returns a waypoint's market (GET …/waypoints/{waypointSymbol}/market).
func (c *Client) Market(ctx context.Context, system, waypoint string) (*Market, error) {
	return call[Market](ctx, c, http.MethodGet, "/systems/"+esc(system)+"/waypoints/"+esc(waypoint)+"/market", nil)
}

// Shipyard returns a waypoint's shipyard (GET …/waypoints/{waypointSymbol}/shipyard).
func (c *Client) Shipyard(ctx context.Context, system, waypoint string) (*Shipyard, error) {
	return call[Shipyard](ctx, c, http.MethodGet, "/systems/"+esc(system)+"/waypoints/"+esc(waypoint)+"/shipyard", nil)
}

// JumpGate returns a jump gate's connections (GET …/waypoints/{waypointSymbol}/jump-gate).
func (c *Client) JumpGate(ctx context.Context, system, waypoint string) (*JumpGate, error) {
	return call[JumpGate](ctx, c, http.MethodGet, "/systems/"+esc(system)+"/waypoints/"+esc(waypoint)+"/jump-gate", nil)
}

// Orbit moves a docked ship into orbit (POST /my/ships/{shipSymbol}/orbit).
func (c *Client) Orbit(ctx context.Context, ship string) (*NavResult, error) {
	return call[NavResult](ctx, c, http.MethodPost, "/my/ships/"+esc(ship)+"/orbit", nil)
}

// call sends a request and decodes its data as a T.
func call[T any](ctx context.Context, c *Client, method, path string, body any) (*T, error) {
	var v T
	_, err := c.do(ctx, method, path, nil, body, &v)
	return ptr(&v, err)
}

func ptr[T any](v *T, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	return v, nil
}

// Dock docks a ship in orbit (POST /my/ships/{shipSymbol}/dock).
func (c *Client) Dock(ctx context.Context, ship string) (*NavResult, error) {
	return call[NavResult](ctx, c, http.MethodPost, "/my/ships/"+esc(ship)+"/dock", nil)
}

// Navigate sends a ship in orbit to a waypoint of its system (POST …/navigate).
func (c *Client) Navigate(ctx context.Context, ship, waypoint string) (*NavResult, error) {
	return call[NavResult](ctx, c, http.MethodPost, "/my/ships/"+esc(ship)+"/navigate", wire.NavigateRequest{WaypointSymbol: waypoint})
}

// SetFlightMode changes a ship's flight mode (PATCH /my/ships/{shipSymbol}/nav).
func (c *Client) SetFlightMode(ctx context.Context, ship, mode string) (*NavResult, error) {
	return call[NavResult](ctx, c, http.MethodPatch, "/my/ships/"+esc(ship)+"/nav", wire.FlightModeRequest{FlightMode: mode})
}

// RefuelRequest is the body of a refuel. Units 0 fills the tank.
type RefuelRequest = wire.RefuelRequest

// Refuel buys fuel for a docked ship (POST /my/ships/{shipSymbol}/refuel).
func (c *Client) Refuel(ctx context.Context, ship string, r RefuelRequest) (*TradeResult, error) {
	return call[TradeResult](ctx, c, http.MethodPost, "/my/ships/"+esc(ship)+"/refuel", r)
}

// Purchase buys cargo at the docked ship's market (POST /my/ships/{shipSymbol}/purchase).
func (c *Client) Purchase(ctx context.Context, ship, good string, units int) (*TradeResult, error) {
	return call[TradeResult](ctx, c, http.MethodPost, "/my/ships/"+esc(ship)+"/purchase", wire.CargoRequest{Symbol: good, Units: units})
}

// Sell sells cargo at the docked ship's market (POST /my/ships/{shipSymbol}/sell).
func (c *Client) Sell(ctx context.Context, ship, good string, units int) (*TradeResult, error) {
	return call[TradeResult](ctx, c, http.MethodPost, "/my/ships/"+esc(ship)+"/sell", wire.CargoRequest{Symbol: good, Units: units})
}

// Jettison dumps cargo into space (POST /my/ships/{shipSymbol}/jettison).
func (c *Client) Jettison(ctx context.Context, ship, good string, units int) (*CargoResult, error) {
	return call[CargoResult](ctx, c, http.MethodPost, "/my/ships/"+esc(ship)+"/jettison", wire.CargoRequest{Symbol: good, Units: units})
}

// Transfer moves cargo to another ship at the same waypoint (POST …/transfer). The
// result is the sending ship's cargo.
func (c *Client) Transfer(ctx context.Context, from, to, good string, units int) (*CargoResult, error) {
	body := wire.TransferRequest{TradeSymbol: good, Units: units, ShipSymbol: to}
	return call[CargoResult](ctx, c, http.MethodPost, "/my/ships/"+esc(from)+"/transfer", body)
}

// Survey surveys the ship's waypoint for deposits (POST /my/ships/{shipSymbol}/survey).
func (c *Client) Survey(ctx context.Context, ship string) (*SurveyResult, error) {
	return call[SurveyResult](ctx, c, http.MethodPost, "/my/ships/"+esc(ship)+"/survey", nil)
}

// Extract mines the ship's waypoint (POST …/extract), or targets a survey's deposits
// when survey is not nil (POST …/extract/survey).
func (c *Client) Extract(ctx context.Context, ship string, survey *Survey) (*ExtractResult, error) {
	if survey != nil {
		return call[ExtractResult](ctx, c, http.MethodPost, "/my/ships/"+esc(ship)+"/extract/survey", survey)
	}
	return call[ExtractResult](ctx, c, http.MethodPost, "/my/ships/"+esc(ship)+"/extract", nil)
}

// Accept accepts a contract (POST /my/contracts/{contractId}/accept).
func (c *Client) Accept(ctx context.Context, contract string) (*ContractResult, error) {
	return call[ContractResult](ctx, c, http.MethodPost, "/my/contracts/"+esc(contract)+"/accept", nil)
}

// Deliver delivers cargo from a ship at the destination (POST …/deliver).
func (c *Client) Deliver(ctx context.Context, contract, ship, good string, units int) (*ContractResult, error) {
	body := wire.DeliverRequest{ShipSymbol: ship, TradeSymbol: good, Units: units}
	return call[ContractResult](ctx, c, http.MethodPost, "/my/contracts/"+esc(contract)+"/deliver", body)
}

// Fulfill completes a contract whose deliveries are done (POST …/fulfill).
func (c *Client) Fulfill(ctx context.Context, contract string) (*ContractResult, error) {
	return call[ContractResult](ctx, c, http.MethodPost, "/my/contracts/"+esc(contract)+"/fulfill", nil)
}

// Negotiate asks the faction at the docked ship's waypoint for a new contract
// (POST /my/ships/{shipSymbol}/negotiate/contract).
func (c *Client) Negotiate(ctx context.Context, ship string) (*Contract, error) {
	r, err := call[ContractResult](ctx, c, http.MethodPost, "/my/ships/"+esc(ship)+"/negotiate/contract", nil)
	if err != nil {
		return nil, err
	}
	return &r.Contract, nil
}

// PurchaseShip buys a ship at a shipyard where one of the agent's ships is (POST /my/ships).
func (c *Client) PurchaseShip(ctx context.Context, shipType, waypoint string) (*PurchaseShipResult, error) {
	body := wire.PurchaseShipRequest{ShipType: shipType, WaypointSymbol: waypoint}
	return call[PurchaseShipResult](ctx, c, http.MethodPost, "/my/ships", body)
}

// Chart charts the ship's uncharted waypoint (POST /my/ships/{shipSymbol}/chart).
func (c *Client) Chart(ctx context.Context, ship string) (*ChartResult, error) {
	return call[ChartResult](ctx, c, http.MethodPost, "/my/ships/"+esc(ship)+"/chart", nil)
}

// Jump jumps a ship at a jump gate to a connected gate (POST /my/ships/{shipSymbol}/jump).
func (c *Client) Jump(ctx context.Context, ship, waypoint string) (*JumpResult, error) {
	return call[JumpResult](ctx, c, http.MethodPost, "/my/ships/"+esc(ship)+"/jump", wire.NavigateRequest{WaypointSymbol: waypoint})
}

// RegisterResult is what registering an agent returns.
type RegisterResult struct {
	Token    string   `json:"token"`
	Agent    Agent    `json:"agent"`
	Contract Contract `json:"contract"`
	Ships    []Ship   `json:"ships"`
	Faction  struct {
		Symbol string `json:"symbol"`
	} `json:"faction"`
}

// Register creates an agent on the server at baseURL ("" = DefaultBaseURL) with an
// account token and returns the new agent's token (POST /register). hc nil means a
// default client. The token is returned only; it is not kept or written anywhere.
func Register(ctx context.Context, baseURL, accountToken, symbol, faction string, hc *http.Client) (agentToken string, err error) {
	c := NewClient(baseURL, accountToken, hc, RateLimit{})
	r, err := call[RegisterResult](ctx, c, http.MethodPost, "/register", map[string]string{"symbol": symbol, "faction": faction})
	if err != nil {
		return "", err
	}
	return r.Token, nil
}
