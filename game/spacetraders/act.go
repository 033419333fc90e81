package spacetraders

import (
	"context"
	"fmt"
	"strings"
	"time"
)

func (g *Game) orbit(ctx context.Context, a shipArgs) (string, error) {
	return g.setStatus(ctx, a, g.c.Orbit)
}

func (g *Game) dock(ctx context.Context, a shipArgs) (string, error) {
	return g.setStatus(ctx, a, g.c.Dock)
}

// setStatus orbits or docks a ship with set (the client's Orbit or Dock) and says where
// it is now.
func (g *Game) setStatus(ctx context.Context, a shipArgs, set func(context.Context, string) (*NavResult, error)) (string, error) {
	r, err := set(ctx, a.ShipSymbol)
	if err != nil {
		return "", err
	}
	g.noteNav(a.ShipSymbol, r.Nav, r.Fuel)
	return fmt.Sprintf("%s is %s.", a.ShipSymbol, g.navText(r.Nav)), nil
}

func (g *Game) navigate(ctx context.Context, a navigateArgs) (string, error) {
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

func (g *Game) setFlightMode(ctx context.Context, a flightModeArgs) (string, error) {
	r, err := g.c.SetFlightMode(ctx, a.ShipSymbol, string(a.FlightMode))
	if err != nil {
		return "", err
	}
	g.noteNav(a.ShipSymbol, r.Nav, r.Fuel)
	return fmt.Sprintf("%s flight mode is now %s; %s.", a.ShipSymbol, r.Nav.FlightMode, g.navText(r.Nav)), nil
}

func (g *Game) refuel(ctx context.Context, a refuelArgs) (string, error) {
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

func (g *Game) trade(ctx context.Context, tool string, a cargoArgs, do func(ctx context.Context, ship, good string, units int) (*TradeResult, error), verb string) (string, error) {
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

func (g *Game) purchase(ctx context.Context, a cargoArgs) (string, error) {
	return g.trade(ctx, ToolPurchaseCargo, a, g.c.Purchase, "Bought")
}

func (g *Game) sell(ctx context.Context, a cargoArgs) (string, error) {
	return g.trade(ctx, ToolSellCargo, a, g.c.Sell, "Sold")
}

func (g *Game) jettison(ctx context.Context, a cargoArgs) (string, error) {
	r, err := g.c.Jettison(ctx, a.ShipSymbol, a.Symbol, a.Units)
	if err != nil {
		return "", err
	}
	g.noteCargo(a.ShipSymbol, r.Cargo)
	return fmt.Sprintf("Jettisoned %d %s; %s %s.", a.Units, a.Symbol, a.ShipSymbol, cargoText(r.Cargo)), nil
}

func (g *Game) transfer(ctx context.Context, a transferArgs) (string, error) {
	r, err := g.c.Transfer(ctx, a.ShipSymbol, a.ToShipSymbol, a.TradeSymbol, a.Units)
	if err != nil {
		return "", err
	}
	g.noteCargo(a.ShipSymbol, r.Cargo)
	if r.TargetCargo != nil {
		g.noteCargo(a.ToShipSymbol, *r.TargetCargo)
	} else {
		g.distrust("transfer_cargo", a.ToShipSymbol, "", 4219, false) // the spec's answer does not say
	}
	return fmt.Sprintf("Transferred %d %s from %s to %s; %s %s.", a.Units, a.TradeSymbol, a.ShipSymbol, a.ToShipSymbol, a.ShipSymbol, cargoText(r.Cargo)), nil
}

func (g *Game) survey(ctx context.Context, a shipArgs) (string, error) {
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

func (g *Game) extract(ctx context.Context, a extractArgs) (string, error) {
	var sv *Survey
	if a.Survey != nil {
		exp, err := time.Parse(time.RFC3339, a.Survey.Expiration)
		if err != nil {
			return "", fmt.Errorf("extract_resources: survey expiration %q is not an RFC 3339 time: %w", a.Survey.Expiration, err) // refused by validation first
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

func (g *Game) accept(ctx context.Context, a contractArgs) (string, error) {
	return g.contractPaid(ctx, a, g.c.Accept, "Accepted", ToolAcceptContract)
}

// contractPaid accepts or fulfils a contract with pay (the client's Accept or Fulfill),
// and notes and says (as verb, by tool) the contract and the credits it paid.
func (g *Game) contractPaid(ctx context.Context, a contractArgs, pay func(context.Context, string) (*ContractResult, error), verb, tool string) (string, error) {
	r, err := pay(ctx, a.ContractID)
	if err != nil {
		return "", err
	}
	g.noteContract(r.Contract)
	s := verb + " " + g.contractLine(&r.Contract) + "."
	if r.Agent != nil {
		g.noteAgent(*r.Agent)
		s += " Credits now " + credits(r.Agent.Credits) + "."
	} else {
		g.distrust(tool, "", "", 4600, false) // paid, but the answer did not say the credits
	}
	return s, nil
}

func (g *Game) deliver(ctx context.Context, a deliverArgs) (string, error) {
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

func (g *Game) fulfill(ctx context.Context, a contractArgs) (string, error) {
	return g.contractPaid(ctx, a, g.c.Fulfill, "Fulfilled", ToolFulfillContract)
}

func (g *Game) negotiate(ctx context.Context, a shipArgs) (string, error) {
	k, err := g.c.Negotiate(ctx, a.ShipSymbol)
	if err != nil {
		return "", err
	}
	g.noteContract(*k)
	return "New contract offered: " + g.contractLine(k) + ".", nil
}

func (g *Game) purchaseShip(ctx context.Context, a purchaseShipArgs) (string, error) {
	r, err := g.c.PurchaseShip(ctx, string(a.ShipType), a.WaypointSymbol)
	if err != nil {
		return "", err
	}
	g.noteAgent(r.Agent)
	g.noteShip(r.Ship)
	return fmt.Sprintf("Bought %s as %s for %s credits; credits now %s. %s", a.ShipType, r.Ship.Symbol, credits(r.Transaction.Price), credits(r.Agent.Credits), g.shipLine(&r.Ship)), nil
}

func (g *Game) chart(ctx context.Context, a shipArgs) (string, error) {
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

func (g *Game) jump(ctx context.Context, a jumpArgs) (string, error) {
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
