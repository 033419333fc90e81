package spacetraders

import (
	"fmt"
	"strings"
	"time"

	"github.com/coplayhq/coplay/game"
)

// The game's own checks of validated arguments (game.Tool.Check): every symbol that
// becomes a URL path segment (or names a ship or waypoint in a body) through
// game.PathSegment, trade goods and traits against the spec's lists with "did you mean",
// and what a view needs. They run once, before the person is asked; nothing is sent for
// arguments that fail them.

// problems collects the problems found, skipping nils.
func problems(ps ...*game.Problem) []game.Problem {
	var out []game.Problem
	for _, p := range ps {
		if p != nil {
			out = append(out, *p)
		}
	}
	return out
}

// seg checks a symbol argument named field.
func seg(field, value string) *game.Problem { return game.PathSegment("arguments."+field, value) }

// optSeg checks a symbol argument that may be left out.
func optSeg(field, value string) *game.Problem {
	if value == "" {
		return nil
	}
	return seg(field, value)
}

// inList refuses a value not in set, with the closest values of list.
func inList(path, what, value string, set map[string]bool, list []string) *game.Problem {
	if set[value] {
		return nil
	}
	p := &game.Problem{Path: path, Expected: what, Got: fmt.Sprintf("string %q", value)}
	if near := nearest(value, list); len(near) > 0 {
		p.Hint = "did you mean " + strings.Join(near, " or ") + "?"
	}
	return p
}

// good refuses a trade symbol that is not one of the spec's, with the closest ones, the
// way the schema validator refuses a bad enum value.
func good(field, symbol string) *game.Problem {
	return inList("arguments."+field, "a trade good symbol (as listed in markets and cargo)", symbol, tradeSet, TradeSymbols)
}

func (a shipArgs) check() []game.Problem     { return problems(seg("shipSymbol", a.ShipSymbol)) }
func (a contractArgs) check() []game.Problem { return problems(seg("contractId", a.ContractID)) }
func (a flightModeArgs) check() []game.Problem {
	return problems(seg("shipSymbol", a.ShipSymbol))
}
func (a refuelArgs) check() []game.Problem { return problems(seg("shipSymbol", a.ShipSymbol)) }

func (a navigateArgs) check() []game.Problem {
	return problems(seg("shipSymbol", a.ShipSymbol), seg("waypointSymbol", a.WaypointSymbol))
}

func (a jumpArgs) check() []game.Problem {
	return problems(seg("shipSymbol", a.ShipSymbol), seg("waypointSymbol", a.WaypointSymbol))
}

func (a cargoArgs) check() []game.Problem {
	return problems(seg("shipSymbol", a.ShipSymbol), good("symbol", a.Symbol))
}

func (a transferArgs) check() []game.Problem {
	return problems(seg("shipSymbol", a.ShipSymbol), good("tradeSymbol", a.TradeSymbol), seg("toShipSymbol", a.ToShipSymbol))
}

func (a deliverArgs) check() []game.Problem {
	return problems(seg("contractId", a.ContractID), seg("shipSymbol", a.ShipSymbol), good("tradeSymbol", a.TradeSymbol))
}

func (a purchaseShipArgs) check() []game.Problem {
	return problems(seg("waypointSymbol", a.WaypointSymbol))
}

func (a extractArgs) check() []game.Problem {
	ps := problems(seg("shipSymbol", a.ShipSymbol))
	if a.Survey != nil {
		if _, err := time.Parse(time.RFC3339, a.Survey.Expiration); err != nil {
			ps = append(ps, game.Problem{Path: "arguments.survey.expiration", Expected: "an RFC 3339 time as create_survey gave it", Got: fmt.Sprintf("string %q", a.Survey.Expiration)})
		}
	}
	return ps
}

// check refuses what a view needs and does not have, symbols that cannot be path
// segments, and unknown traits.
func (a detailArgs) check() []game.Problem {
	var ps []game.Problem
	need := func(field, value string) {
		if value == "" {
			ps = append(ps, game.Problem{Path: "arguments." + field, Expected: fmt.Sprintf("required string for view %q", a.View), Got: "nothing (missing)"})
		}
	}
	switch a.View {
	case "waypoint", "market", "shipyard", "jump_gate":
		need("waypointSymbol", a.WaypointSymbol)
	case "contract":
		need("contractId", a.ContractID)
	case "ship":
		need("shipSymbol", a.ShipSymbol)
	}
	ps = append(ps, problems(optSeg("waypointSymbol", a.WaypointSymbol), optSeg("systemSymbol", a.SystemSymbol),
		optSeg("contractId", a.ContractID), optSeg("shipSymbol", a.ShipSymbol))...)
	for i, t := range a.Traits {
		if p := inList(fmt.Sprintf("arguments.traits[%d]", i), "a waypoint trait symbol", t, traitSet, WaypointTraits); p != nil {
			ps = append(ps, *p)
		}
	}
	return ps
}
