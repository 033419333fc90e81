package spacetraders

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/coplayhq/coplay/game"
	"github.com/google/jsonschema-go/jsonschema"
)

// Names of the tools other packages refer to (the autopilot). Every other tool is named
// only in its definition in catalog.
const (
	ToolOrbitShip         = "orbit_ship"
	ToolDockShip          = "dock_ship"
	ToolNavigateShip      = "navigate_ship"
	ToolSetFlightMode     = "set_flight_mode"
	ToolRefuelShip        = "refuel_ship"
	ToolPurchaseCargo     = "purchase_cargo"
	ToolSellCargo         = "sell_cargo"
	ToolJettisonCargo     = "jettison_cargo"
	ToolCreateSurvey      = "create_survey"
	ToolExtractResources  = "extract_resources"
	ToolAcceptContract    = "accept_contract"
	ToolDeliverContract   = "deliver_contract"
	ToolFulfillContract   = "fulfill_contract"
	ToolNegotiateContract = "negotiate_contract"
)

// Effects are the named numbers a SpaceTraders dry run that predicts success reports in
// game.Simulation.Effects, for approval rules ("allow purchase_cargo if cost <= 5000"):
//
//   - cost: credits spent (purchase_cargo, refuel_ship)
//   - income: credits earned (sell_cargo, accept_contract, fulfill_contract)
//   - fuel: fuel the trip uses (navigate_ship)
//   - fuel_added: fuel units put into the tank (refuel_ship)
//   - units: units of cargo bought or sold (purchase_cargo, sell_cargo)
//   - seconds: travel time (navigate_ship), 0 for orbit_ship and dock_ship
//
// A dry run that predicts failure, or cannot say, reports none.
const (
	EffectCost      = "cost"
	EffectIncome    = "income"
	EffectFuel      = "fuel"
	EffectFuelAdded = "fuel_added"
	EffectUnits     = "units"
	EffectSeconds   = "seconds"
)

// tool is one SpaceTraders tool defined in one place: game.ToolDef's parts, with a
// handler that returns the text the model reads, plus the spec operation it calls (for
// the conformance test). Arguments whose type has a check method are checked by it
// during validation (game.Tool.Check), before anyone is asked and before anything is sent.
type tool[T any] struct {
	name, desc string
	kind       game.Kind
	// op is the spec's operationId of the call an Act tool makes. extract_resources calls
	// extract-resources-with-survey when given a survey.
	op     string
	opts   []game.SchemaOption
	adjust func(*jsonschema.Schema) *jsonschema.Schema
	run    func(g *Game, ctx context.Context, a T) (string, error)
	dry    func(g *Game, ctx context.Context, a T) (game.Simulation, bool, error)
	// effects are the Effect names dry reports when it predicts success.
	effects []string
}

// checker is an argument type with the game's own checks (see checks.go).
type checker interface{ check() []game.Problem }

// entry is a built tool and the operation it calls.
type entry struct {
	tool game.Tool
	op   string
}

// build turns a definition into a game.Tool bound to g: Run reports refusals as Results
// and marks what a failed action may have changed as no longer trusted; Simulate turns a
// refused read (no such ship) into a predicted failure.
func (d tool[T]) build(g *Game) entry {
	def := game.ToolDef[T]{Name: d.name, Description: d.desc, Kind: d.kind, SchemaOptions: d.opts, Adjust: d.adjust}
	def.Run = func(ctx context.Context, a T) (game.Result, error) {
		out, err := d.run(g, ctx, a)
		if err != nil && d.kind == game.Act {
			// A look that fails says nothing about the world; an action's failure may.
			g.distrustAfter(d.name, a, err)
		}
		return g.result(d.name, out, err)
	}
	var zero T
	if _, ok := any(zero).(checker); ok {
		def.Check = func(a T) []game.Problem { return any(a).(checker).check() }
	}
	if d.dry != nil {
		def.Effects = d.effects
		def.DryRun = func(ctx context.Context, a T) (game.Simulation, bool, error) {
			sim, ok, err := d.dry(g, ctx, a)
			var ae *APIError
			if errors.As(err, &ae) && ae.Status != 429 {
				// Reading the ship or market was refused (no such ship): the call would be too.
				return game.Simulation{Summary: fmt.Sprintf("would fail: game error %d: %s", ae.Code, ae.Message), Fails: true}, true, nil
			}
			if sim.Fails || !ok {
				sim.Effects = nil // a predicted failure, or no prediction, has no effects
			}
			return sim, ok, err
		}
	}
	return entry{tool: game.NewTool(def), op: d.op}
}

// Enum options for the argument types' closed sets.
var enums = []game.SchemaOption{
	game.WithEnum("flight mode: CRUISE normal, BURN 2x fuel and faster, DRIFT 1 fuel and very slow, STEALTH", flightModes...),
	game.WithEnum("ship type", shipTypes...),
	game.WithEnum("waypoint type", waypointTypes...),
	game.WithEnum("survey size", surveySizes...),
	game.WithEnum("what to look at", detailViews...),
}

func units1(s *jsonschema.Schema) *jsonschema.Schema { return game.Min(s, "units", 1) }

// catalog defines every tool, in the order the model reads them.
func catalog(g *Game) []entry {
	return []entry{
		tool[noArgs]{name: "observe_game", kind: game.Read, run: (*Game).observeGame,
			desc: "Agent, credits, every ship (where, status, route, fuel, cargo, cooldown) and contracts. Same text as the observation you get each step."}.build(g),
		tool[detailArgs]{name: "observe_detail", kind: game.Read, opts: enums, run: (*Game).observeDetail,
			desc: "Look closer: a waypoint (traits), a system's waypoints (optionally filtered), a market (goods, prices; live only with a ship there), a shipyard, a jump gate's connections, a contract, or a ship in full."}.build(g),
		tool[shipArgs]{name: ToolOrbitShip, kind: game.Act, op: "orbit-ship", run: (*Game).orbit, dry: (*Game).simOrbit, effects: []string{EffectSeconds},
			desc: "Undock a ship into orbit (needed to navigate, extract, survey, jump)."}.build(g),
		tool[shipArgs]{name: ToolDockShip, kind: game.Act, op: "dock-ship", run: (*Game).dock, dry: (*Game).simDock, effects: []string{EffectSeconds},
			desc: "Dock a ship in orbit (needed to trade, refuel, deliver, negotiate)."}.build(g),
		tool[navigateArgs]{name: ToolNavigateShip, kind: game.Act, op: "navigate-ship", run: (*Game).navigate, dry: (*Game).simNavigate, effects: []string{EffectFuel, EffectSeconds},
			desc: "Fly a ship in orbit to a waypoint of its system; uses fuel by distance and flight mode."}.build(g),
		tool[flightModeArgs]{name: ToolSetFlightMode, kind: game.Act, op: "patch-ship-nav", opts: enums, run: (*Game).setFlightMode,
			desc: "Set a ship's flight mode for its next trips."}.build(g),
		tool[refuelArgs]{name: ToolRefuelShip, kind: game.Act, op: "refuel-ship", adjust: units1, run: (*Game).refuel, dry: (*Game).simRefuel, effects: []string{EffectCost, EffectFuelAdded},
			desc: "Buy fuel for a docked ship."}.build(g),
		tool[cargoArgs]{name: ToolPurchaseCargo, kind: game.Act, op: "purchase-cargo", adjust: units1, run: (*Game).purchase, dry: (*Game).simPurchase, effects: []string{EffectCost, EffectUnits},
			desc: "Buy goods at the docked ship's market (units up to the good's trade volume)."}.build(g),
		tool[cargoArgs]{name: ToolSellCargo, kind: game.Act, op: "sell-cargo", adjust: units1, run: (*Game).sell, dry: (*Game).simSell, effects: []string{EffectIncome, EffectUnits},
			desc: "Sell goods from the docked ship's cargo at its market."}.build(g),
		tool[cargoArgs]{name: ToolJettisonCargo, kind: game.Act, op: "jettison", adjust: units1, run: (*Game).jettison,
			desc: "Dump cargo into space (lost)."}.build(g),
		tool[transferArgs]{name: "transfer_cargo", kind: game.Act, op: "transfer-cargo", adjust: units1, run: (*Game).transfer,
			desc: "Move cargo to another of your ships at the same waypoint."}.build(g),
		tool[shipArgs]{name: ToolCreateSurvey, kind: game.Act, op: "create-survey", run: (*Game).survey,
			desc: "Survey the ship's waypoint for deposits (needs a surveyor mount, in orbit; starts a cooldown)."}.build(g),
		tool[extractArgs]{name: ToolExtractResources, kind: game.Act, op: "extract-resources", opts: enums, run: (*Game).extract,
			desc: "Mine the ship's asteroid (in orbit, mining laser, no cooldown, cargo space); starts a cooldown."}.build(g),
		tool[contractArgs]{name: ToolAcceptContract, kind: game.Act, op: "accept-contract", run: (*Game).accept, dry: (*Game).simAccept, effects: []string{EffectIncome},
			desc: "Accept a contract; pays its onAccepted part now."}.build(g),
		tool[deliverArgs]{name: ToolDeliverContract, kind: game.Act, op: "deliver-contract", adjust: units1, run: (*Game).deliver,
			desc: "Deliver contract goods from a ship docked at the delivery waypoint."}.build(g),
		tool[contractArgs]{name: ToolFulfillContract, kind: game.Act, op: "fulfill-contract", run: (*Game).fulfill, dry: (*Game).simFulfill, effects: []string{EffectIncome},
			desc: "Complete a contract whose deliveries are done; pays onFulfilled."}.build(g),
		tool[shipArgs]{name: ToolNegotiateContract, kind: game.Act, op: "negotiateContract", run: (*Game).negotiate,
			desc: "Ask the faction at the docked ship's waypoint for a new contract (only one open at a time)."}.build(g),
		tool[purchaseShipArgs]{name: "purchase_ship", kind: game.Act, op: "purchase-ship", opts: enums, run: (*Game).purchaseShip,
			desc: "Buy a ship at a shipyard where one of your ships is."}.build(g),
		tool[shipArgs]{name: "create_chart", kind: game.Act, op: "create-chart", run: (*Game).chart,
			desc: "Chart the uncharted waypoint the ship is at."}.build(g),
		tool[jumpArgs]{name: "jump_ship", kind: game.Act, op: "jump-ship", run: (*Game).jump,
			desc: "Jump a ship in orbit at a jump gate to a connected gate in another system."}.build(g),
	}
}

// Catalog returns the tool catalogue. It needs no connection, so it can be listed
// (coplay tools) without starting anything.
func Catalog() []game.Tool { return New(Config{}).Tools() }

// distrustAfter marks what a failed call may have left different from the world model.
func (g *Game) distrustAfter(tool string, args any, err error) {
	var a struct {
		Ship   string `json:"shipSymbol"`
		Target string `json:"toShipSymbol"`
	}
	if b, jerr := json.Marshal(args); jerr == nil {
		_ = json.Unmarshal(b, &a) // missing fields stay empty
	}
	var ae *APIError
	var uo *UnknownOutcomeError
	switch {
	case errors.As(err, &uo):
		g.distrust(tool, a.Ship, a.Target, 0, true)
	case errors.As(err, &ae):
		g.distrust(tool, a.Ship, a.Target, ae.Code, false)
	}
}
