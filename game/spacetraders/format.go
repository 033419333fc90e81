package spacetraders

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// This file writes the compact text a model reads: one line per ship or contract, the
// numbers that matter, times both relative ("in 1m20s") and absolute.

func (g *Game) until(t time.Time) string {
	d := t.Sub(g.now()).Round(time.Second)
	if d <= 0 {
		return "now (" + clock(t) + ")"
	}
	return "in " + d.String() + " (" + clock(t) + ")"
}

func credits(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func cargoText(c ShipCargo) string {
	s := fmt.Sprintf("cargo %d/%d", c.Units, c.Capacity)
	if len(c.Inventory) == 0 {
		return s
	}
	items := make([]string, 0, len(c.Inventory))
	for _, it := range c.Inventory {
		items = append(items, fmt.Sprintf("%s×%d", it.Symbol, it.Units))
	}
	sort.Strings(items)
	return s + " (" + strings.Join(items, ", ") + ")"
}

func fuelText(f ShipFuel) string {
	if f.Capacity == 0 {
		return "no fuel needed"
	}
	return fmt.Sprintf("fuel %d/%d", f.Current, f.Capacity)
}

// shipLine is one ship in a line: where, status, fuel, cargo, cooldown, with times
// relative to now (for a tool's answer, read at once).
func (g *Game) shipLine(s *Ship) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s)", s.Symbol, s.Registration.Role)
	b.WriteString(" " + g.navText(s.Nav))
	fmt.Fprintf(&b, " · %s · %s · %s", s.Nav.FlightMode, fuelText(s.Fuel), cargoText(s.Cargo))
	if cd := g.cooldownText(s.Cooldown); cd != "" {
		b.WriteString(" · " + cd)
	}
	return b.String()
}

// shipLineAt is shipLine for a summary read later than now: clock times only.
func (g *Game) shipLineAt(s *Ship, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s) ", s.Symbol, s.Registration.Role)
	if n := s.Nav; n.Status == InTransit && n.Route.Arrival.After(now) {
		fmt.Fprintf(&b, "IN_TRANSIT %s → %s (%s), arrives at %s", n.Route.Origin.Symbol, n.Route.Destination.Symbol, n.Route.Destination.Type, clock(n.Route.Arrival))
	} else {
		b.WriteString(g.navText(n))
	}
	fmt.Fprintf(&b, " · %s · %s · %s", s.Nav.FlightMode, fuelText(s.Fuel), cargoText(s.Cargo))
	if c := s.Cooldown; c.Expiration.After(now) {
		b.WriteString(" · cooldown ends at " + clock(c.Expiration))
	}
	return b.String()
}

func (g *Game) navText(n ShipNav) string {
	if n.Status == InTransit && n.Route.Arrival.After(g.now()) {
		return fmt.Sprintf("IN_TRANSIT %s → %s (%s), arrives %s", n.Route.Origin.Symbol, n.Route.Destination.Symbol, n.Route.Destination.Type, g.until(n.Route.Arrival))
	}
	status := n.Status
	if status == InTransit {
		status = InOrbit // arrived since the server last looked
	}
	typ := ""
	if n.Route.Destination.Symbol == n.WaypointSymbol && n.Route.Destination.Type != "" {
		typ = " (" + n.Route.Destination.Type + ")"
	}
	return fmt.Sprintf("%s at %s%s", status, n.WaypointSymbol, typ)
}

func (g *Game) cooldownText(c Cooldown) string {
	if c.Expiration.IsZero() || !c.Expiration.After(g.now()) {
		return ""
	}
	return "cooldown ends " + g.until(c.Expiration)
}

// contractLine is one contract in a line: id, state, what to deliver where, pay.
func (g *Game) contractLine(k *Contract) string {
	var b strings.Builder
	state := "offered"
	switch {
	case k.Fulfilled:
		state = "fulfilled"
	case k.Accepted:
		state = "accepted"
	}
	fmt.Fprintf(&b, "%s %s for %s, %s:", k.ID, k.Type, k.FactionSymbol, state)
	for i, d := range k.Terms.Deliver {
		if i > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " deliver %s %d/%d to %s", d.TradeSymbol, d.UnitsFulfilled, d.UnitsRequired, d.DestinationSymbol)
	}
	fmt.Fprintf(&b, "; pays %s on accept + %s on fulfil", credits(k.Terms.Payment.OnAccepted), credits(k.Terms.Payment.OnFulfilled))
	if !k.Fulfilled {
		if !k.Accepted && !k.DeadlineToAccept.IsZero() {
			fmt.Fprintf(&b, "; accept by %s", k.DeadlineToAccept.UTC().Format(time.RFC3339))
		}
		fmt.Fprintf(&b, "; deadline %s", k.Terms.Deadline.UTC().Format(time.RFC3339))
	}
	return b.String()
}

func surveyJSON(s Survey) string {
	deps := make([]string, len(s.Deposits))
	for i, d := range s.Deposits {
		deps[i] = fmt.Sprintf(`{"symbol":%q}`, d.Symbol)
	}
	return fmt.Sprintf(`{"signature":%q,"symbol":%q,"deposits":[%s],"expiration":%q,"size":%q}`,
		s.Signature, s.Symbol, strings.Join(deps, ","), s.Expiration.UTC().Format(time.RFC3339), s.Size)
}

func waypointLine(w *Waypoint) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s (%d,%d)", w.Symbol, w.Type, w.X, w.Y)
	if len(w.Traits) > 0 {
		t := make([]string, len(w.Traits))
		for i, tr := range w.Traits {
			t[i] = tr.Symbol
		}
		b.WriteString(" traits: " + strings.Join(t, ", "))
	}
	if w.IsUnderConstruction {
		b.WriteString(" · under construction")
	}
	if w.Faction != nil {
		b.WriteString(" · faction " + w.Faction.Symbol)
	}
	if w.Orbits != "" {
		b.WriteString(" · orbits " + w.Orbits)
	}
	if len(w.Modifiers) > 0 {
		m := make([]string, len(w.Modifiers))
		for i, x := range w.Modifiers {
			m[i] = x.Symbol
		}
		b.WriteString(" · modifiers: " + strings.Join(m, ", "))
	}
	return b.String()
}

func goodsList(goods []TradeGood) string {
	if len(goods) == 0 {
		return "none"
	}
	s := make([]string, len(goods))
	for i, g := range goods {
		s[i] = g.Symbol
	}
	return strings.Join(s, ", ")
}

// marketText writes a market with its prices, saying how old they are when they were
// not read just now (seen: when they were read; zero when there are none).
func (g *Game) marketText(m *Market, seen time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Market %s\nexports: %s\nimports: %s\nexchange: %s\n", m.Symbol, goodsList(m.Exports), goodsList(m.Imports), goodsList(m.Exchange))
	goods, note := m.TradeGoods, ""
	if age := g.now().Sub(seen).Round(time.Second); len(goods) > 0 && age >= time.Second {
		note = fmt.Sprintf(" (prices seen at %s, %s ago)", clock(seen), age)
	}
	if len(goods) == 0 {
		b.WriteString("No live prices: send a ship here to see them.")
		return b.String()
	}
	b.WriteString("good type buy-at sell-at volume supply activity" + note + "\n")
	for _, t := range goods {
		fmt.Fprintf(&b, "%s %s %d %d %d %s %s\n", t.Symbol, t.Type, t.PurchasePrice, t.SellPrice, t.TradeVolume, t.Supply, t.Activity)
	}
	return strings.TrimRight(b.String(), "\n")
}
