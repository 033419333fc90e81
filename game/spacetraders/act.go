package spacetraders

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/coplayhq/coplay/game"
)

func init() {
	handlers = map[string]handler{
		ToolObserveGame:       (*Game).observeGame,
		ToolObserveDetail:     (*Game).observeDetail,
		ToolOrbitShip:         (*Game).orbit,
		ToolDockShip:          (*Game).dock,
		ToolNavigateShip:      (*Game).navigate,
		ToolSetFlightMode:     (*Game).setFlightMode,
		ToolRefuelShip:        (*Game).refuel,
		ToolPurchaseCargo:     (*Game).purchase,
		ToolSellCargo:         (*Game).sell,
		ToolJettisonCargo:     (*Game).jettison,
		ToolTransferCargo:     (*Game).transfer,
		ToolCreateSurvey:      (*Game).survey,
		ToolExtractResources:  (*Game).extract,
		ToolAcceptContract:    (*Game).accept,
		ToolDeliverContract:   (*Game).deliver,
		ToolFulfillContract:   (*Game).fulfill,
		ToolNegotiateContract: (*Game).negotiate,
		ToolPurchaseShip:      (*Game).purchaseShip,
		ToolCreateChart:       (*Game).chart,
		ToolJumpShip:          (*Game).jump,
	}
}

// decodeArgs reads validated arguments into the tool's argument type.
func decodeArgs[T any](tool string, raw json.RawMessage) (T, error) {
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, fmt.Errorf("spacetraders: %s: decode arguments: %w", tool, err)
	}
	return v, nil
}

// checkGood refuses a trade symbol that is not one of the spec's, with the closest
// ones, the way the schema validator refuses a bad enum value. Nothing is sent.
func checkGood(tool, path, symbol string) error {
	if tradeSet[symbol] {
		return nil
	}
	p := game.Problem{Path: "arguments." + path, Expected: "a trade good symbol (as listed in markets and cargo)", Got: fmt.Sprintf("string %q", symbol)}
	if near := nearest(symbol, TradeSymbols); len(near) > 0 {
		p.Hint = "did you mean " + strings.Join(near, " or ") + "?"
	}
	return &game.ValidationError{Tool: tool, Problems: []game.Problem{p}}
}

func (g *Game) orbit(ctx context.Context, raw json.RawMessage) (string, error) {
	a, err := decodeArgs[shipArgs](ToolOrbitShip, raw)
	if err != nil {
		return "", err
	}
	r, err := g.c.Orbit(ctx, a.ShipSymbol)
	if err != nil {
		return "", err
	}
	g.noteNav(a.ShipSymbol, r.Nav, r.Fuel)
	return fmt.Sprintf("%s is %s.", a.ShipSymbol, g.navText(r.Nav)), nil
}

func (g *Game) dock(ctx context.Context, raw json.RawMessage) (string, error) {
	a, err := decodeArgs[shipArgs](ToolDockShip, raw)
	if err != nil {
		return "", err
	}
	r, err := g.c.Dock(ctx, a.ShipSymbol)
	if err != nil {
		return "", err
	}
	g.noteNav(a.ShipSymbol, r.Nav, r.Fuel)
	return fmt.Sprintf("%s is %s.", a.ShipSymbol, g.navText(r.Nav)), nil
}

func (g *Game) navigate(ctx context.Context, raw json.RawMessage) (string, error) {
	a, err := decodeArgs[navigateArgs](ToolNavigateShip, raw)
	if err != nil {
		return "", err
	}
	r, err := g.c.Navigate(ctx, a.ShipSymbol, a.WaypointSymbol)
	if err != nil {
		return "", err
	}
	g.noteNav(a.ShipSymbol, r.Nav, r.Fuel)
	s := fmt.Sprintf("%s is %s, %s.", a.ShipSymbol, g.navText(r.Nav), r.Nav.FlightMode)
	if r.Fuel != nil {
		s += " " + fuelText(*r.Fuel)
		if r.Fuel.Consumed != nil {
			s += fmt.Sprintf(" (used %d)", r.Fuel.Consumed.Amount)
		}
		s += "."
	}
	return s, nil
}

func (g *Game) setFlightMode(ctx context.Context, raw json.RawMessage) (string, error) {
	a, err := decodeArgs[flightModeArgs](ToolSetFlightMode, raw)
	if err != nil {
		return "", err
	}
	r, err := g.c.SetFlightMode(ctx, a.ShipSymbol, string(a.FlightMode))
	if err != nil {
		return "", err
	}
	g.noteNav(a.ShipSymbol, r.Nav, r.Fuel)
	return fmt.Sprintf("%s flight mode is now %s; %s.", a.ShipSymbol, r.Nav.FlightMode, g.navText(r.Nav)), nil
}

func (g *Game) refuel(ctx context.Context, raw json.RawMessage) (string, error) {
	a, err := decodeArgs[refuelArgs](ToolRefuelShip, raw)
	if err != nil {
		return "", err
	}
	r, err := g.c.Refuel(ctx, a.ShipSymbol, RefuelRequest{Units: a.Units, FromCargo: a.FromCargo})
	if err != nil {
		return "", err
	}
	g.noteAgent(r.Agent)
	g.noteTrade(r.Transaction)
	if r.Fuel != nil {
		fuel := *r.Fuel
		g.updateShip(a.ShipSymbol, func(s *Ship) { s.Fuel = fuel })
	}
	if r.Cargo != nil {
		g.noteCargo(a.ShipSymbol, *r.Cargo)
	} else if a.FromCargo {
		g.distrust(ToolRefuelShip, a.ShipSymbol, "", 4219, false) // the hold changed; the answer did not say how
	}
	s := fmt.Sprintf("%s refuelled: ", a.ShipSymbol)
	if r.Fuel != nil {
		s += fuelText(*r.Fuel) + "; "
	}
	t := r.Transaction
	s += fmt.Sprintf("%d FUEL for %s credits; credits now %s.", t.Units, credits(t.TotalPrice), credits(r.Agent.Credits))
	return s, nil
}

func (g *Game) trade(ctx context.Context, tool string, raw json.RawMessage, do func(ctx context.Context, ship, good string, units int) (*TradeResult, error), verb string) (string, error) {
	a, err := decodeArgs[cargoArgs](tool, raw)
	if err != nil {
		return "", err
	}
	if err := checkGood(tool, "symbol", a.Symbol); err != nil {
		return "", err
	}
	r, err := do(ctx, a.ShipSymbol, a.Symbol, a.Units)
	if err != nil {
		return "", err
	}
	g.noteAgent(r.Agent)
	g.noteTrade(r.Transaction)
	if r.Cargo != nil {
		g.noteCargo(a.ShipSymbol, *r.Cargo)
	} else {
		g.distrust(tool, a.ShipSymbol, "", 4219, false)
	}
	t := r.Transaction
	s := fmt.Sprintf("%s %d %s at %s each = %s credits; credits now %s.", verb, t.Units, t.TradeSymbol, credits(t.PricePerUnit), credits(t.TotalPrice), credits(r.Agent.Credits))
	if r.Cargo != nil {
		s += fmt.Sprintf(" %s %s.", a.ShipSymbol, cargoText(*r.Cargo))
	}
	return s, nil
}

func (g *Game) purchase(ctx context.Context, raw json.RawMessage) (string, error) {
	return g.trade(ctx, ToolPurchaseCargo, raw, g.c.Purchase, "Bought")
}

func (g *Game) sell(ctx context.Context, raw json.RawMessage) (string, error) {
	return g.trade(ctx, ToolSellCargo, raw, g.c.Sell, "Sold")
}

func (g *Game) jettison(ctx context.Context, raw json.RawMessage) (string, error) {
	a, err := decodeArgs[cargoArgs](ToolJettisonCargo, raw)
	if err != nil {
		return "", err
	}
	if err := checkGood(ToolJettisonCargo, "symbol", a.Symbol); err != nil {
		return "", err
	}
	r, err := g.c.Jettison(ctx, a.ShipSymbol, a.Symbol, a.Units)
	if err != nil {
		return "", err
	}
	g.noteCargo(a.ShipSymbol, r.Cargo)
	return fmt.Sprintf("Jettisoned %d %s; %s %s.", a.Units, a.Symbol, a.ShipSymbol, cargoText(r.Cargo)), nil
}

func (g *Game) transfer(ctx context.Context, raw json.RawMessage) (string, error) {
	a, err := decodeArgs[transferArgs](ToolTransferCargo, raw)
	if err != nil {
		return "", err
	}
	if err := checkGood(ToolTransferCargo, "tradeSymbol", a.TradeSymbol); err != nil {
		return "", err
	}
	r, err := g.c.Transfer(ctx, a.ShipSymbol, a.ToShipSymbol, a.TradeSymbol, a.Units)
	if err != nil {
		return "", err
	}
	g.noteCargo(a.ShipSymbol, r.Cargo)
	if r.TargetCargo != nil {
		g.noteCargo(a.ToShipSymbol, *r.TargetCargo)
	} else {
		g.distrust(ToolTransferCargo, a.ToShipSymbol, "", 4219, false) // the spec's answer does not say
	}
	return fmt.Sprintf("Transferred %d %s from %s to %s; %s %s.", a.Units, a.TradeSymbol, a.ShipSymbol, a.ToShipSymbol, a.ShipSymbol, cargoText(r.Cargo)), nil
}

func (g *Game) survey(ctx context.Context, raw json.RawMessage) (string, error) {
	a, err := decodeArgs[shipArgs](ToolCreateSurvey, raw)
	if err != nil {
		return "", err
	}
	r, err := g.c.Survey(ctx, a.ShipSymbol)
	if err != nil {
		return "", err
	}
	g.noteCooldown(a.ShipSymbol, r.Cooldown)
	var b strings.Builder
	fmt.Fprintf(&b, "%d surveys of %s; %s. To mine one, pass it whole as extract_resources' survey:", len(r.Surveys), a.ShipSymbol, g.cooldownText(r.Cooldown))
	for _, s := range r.Surveys {
		b.WriteString("\n" + surveyJSON(s))
	}
	return b.String(), nil
}

func (g *Game) extract(ctx context.Context, raw json.RawMessage) (string, error) {
	a, err := decodeArgs[extractArgs](ToolExtractResources, raw)
	if err != nil {
		return "", err
	}
	var sv *Survey
	if a.Survey != nil {
		exp, err := time.Parse(time.RFC3339, a.Survey.Expiration)
		if err != nil {
			return "", &game.ValidationError{Tool: ToolExtractResources, Problems: []game.Problem{{
				Path: "arguments.survey.expiration", Expected: "an RFC 3339 time as create_survey gave it", Got: fmt.Sprintf("string %q", a.Survey.Expiration)}}}
		}
		sv = &Survey{Signature: a.Survey.Signature, Symbol: a.Survey.Symbol, Deposits: a.Survey.Deposits, Expiration: exp, Size: string(a.Survey.Size)}
	}
	r, err := g.c.Extract(ctx, a.ShipSymbol, sv)
	if err != nil {
		return "", err
	}
	g.noteCooldown(a.ShipSymbol, r.Cooldown)
	g.noteCargo(a.ShipSymbol, r.Cargo)
	y := r.Extraction.Yield
	s := fmt.Sprintf("%s extracted %d %s; %s; %s.", a.ShipSymbol, y.Units, y.Symbol, cargoText(r.Cargo), g.cooldownText(r.Cooldown))
	for _, e := range r.Events {
		s += fmt.Sprintf(" Event: %s (%s).", e.Name, e.Component)
	}
	return s, nil
}

func (g *Game) accept(ctx context.Context, raw json.RawMessage) (string, error) {
	a, err := decodeArgs[contractArgs](ToolAcceptContract, raw)
	if err != nil {
		return "", err
	}
	r, err := g.c.Accept(ctx, a.ContractID)
	if err != nil {
		return "", err
	}
	g.noteContract(r.Contract)
	s := "Accepted " + g.contractLine(&r.Contract) + "."
	if r.Agent != nil {
		g.noteAgent(*r.Agent)
		s += " Credits now " + credits(r.Agent.Credits) + "."
	} else {
		g.distrust(ToolAcceptContract, "", "", 4600, false) // paid, but the answer did not say the credits
	}
	return s, nil
}

func (g *Game) deliver(ctx context.Context, raw json.RawMessage) (string, error) {
	a, err := decodeArgs[deliverArgs](ToolDeliverContract, raw)
	if err != nil {
		return "", err
	}
	if err := checkGood(ToolDeliverContract, "tradeSymbol", a.TradeSymbol); err != nil {
		return "", err
	}
	r, err := g.c.Deliver(ctx, a.ContractID, a.ShipSymbol, a.TradeSymbol, a.Units)
	if err != nil {
		return "", err
	}
	g.noteContract(r.Contract)
	if r.Cargo != nil {
		g.noteCargo(a.ShipSymbol, *r.Cargo)
	} else {
		g.distrust(ToolDeliverContract, a.ShipSymbol, "", 4219, false)
	}
	s := fmt.Sprintf("Delivered %d %s. Contract %s.", a.Units, a.TradeSymbol, g.contractLine(&r.Contract))
	if r.Cargo != nil {
		s += fmt.Sprintf(" %s %s.", a.ShipSymbol, cargoText(*r.Cargo))
	}
	return s, nil
}

func (g *Game) fulfill(ctx context.Context, raw json.RawMessage) (string, error) {
	a, err := decodeArgs[contractArgs](ToolFulfillContract, raw)
	if err != nil {
		return "", err
	}
	r, err := g.c.Fulfill(ctx, a.ContractID)
	if err != nil {
		return "", err
	}
	g.noteContract(r.Contract)
	s := "Fulfilled " + g.contractLine(&r.Contract) + "."
	if r.Agent != nil {
		g.noteAgent(*r.Agent)
		s += " Credits now " + credits(r.Agent.Credits) + "."
	} else {
		g.distrust(ToolFulfillContract, "", "", 4600, false)
	}
	return s, nil
}

func (g *Game) negotiate(ctx context.Context, raw json.RawMessage) (string, error) {
	a, err := decodeArgs[shipArgs](ToolNegotiateContract, raw)
	if err != nil {
		return "", err
	}
	k, err := g.c.Negotiate(ctx, a.ShipSymbol)
	if err != nil {
		return "", err
	}
	g.noteContract(*k)
	return "New contract offered: " + g.contractLine(k) + ".", nil
}

func (g *Game) purchaseShip(ctx context.Context, raw json.RawMessage) (string, error) {
	a, err := decodeArgs[purchaseShipArgs](ToolPurchaseShip, raw)
	if err != nil {
		return "", err
	}
	r, err := g.c.PurchaseShip(ctx, string(a.ShipType), a.WaypointSymbol)
	if err != nil {
		return "", err
	}
	g.noteAgent(r.Agent)
	g.noteShip(r.Ship)
	return fmt.Sprintf("Bought %s as %s for %s credits; credits now %s. %s", a.ShipType, r.Ship.Symbol, credits(r.Transaction.Price), credits(r.Agent.Credits), g.shipLine(&r.Ship)), nil
}

func (g *Game) chart(ctx context.Context, raw json.RawMessage) (string, error) {
	a, err := decodeArgs[shipArgs](ToolCreateChart, raw)
	if err != nil {
		return "", err
	}
	r, err := g.c.Chart(ctx, a.ShipSymbol)
	if err != nil {
		return "", err
	}
	g.noteWaypoint(r.Waypoint)
	s := "Charted " + waypointLine(&r.Waypoint) + "."
	if r.Agent != nil {
		g.noteAgent(*r.Agent)
		s += " Credits now " + credits(r.Agent.Credits) + "."
	}
	return s, nil
}

func (g *Game) jump(ctx context.Context, raw json.RawMessage) (string, error) {
	a, err := decodeArgs[jumpArgs](ToolJumpShip, raw)
	if err != nil {
		return "", err
	}
	r, err := g.c.Jump(ctx, a.ShipSymbol, a.WaypointSymbol)
	if err != nil {
		return "", err
	}
	g.noteAgent(r.Agent)
	g.noteNav(a.ShipSymbol, r.Nav, nil)
	g.noteCooldown(a.ShipSymbol, r.Cooldown)
	s := fmt.Sprintf("%s jumped: %s", a.ShipSymbol, g.navText(r.Nav))
	if cd := g.cooldownText(r.Cooldown); cd != "" {
		s += "; " + cd
	}
	if r.Transaction.TotalPrice > 0 {
		s += fmt.Sprintf("; paid %s credits (%d %s)", credits(r.Transaction.TotalPrice), r.Transaction.Units, r.Transaction.TradeSymbol)
	}
	return s + "; credits now " + credits(r.Agent.Credits) + ".", nil
}
