package autopilot

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/coplayhq/coplay/game/spacetraders"
)

// action is one proposed tool call, or a wait when tool is empty. Decisions return them
// as ordered alternatives: the first one that is not blocked is taken.
type action struct {
	tool  string
	args  map[string]any
	why   string    // one line for the person
	until time.Time // waits: when the ship can act again (zero: no known time)
	next  *action   // a call that follows in the same step (undock, then navigate)
}

// then returns a followed by b in the same step: the runner runs a batch in order, so
// preparations (dock, orbit, flight mode) need not cost a step each.
func then(a, b action) action {
	a.next = &b
	return a
}

// calls flattens a chain into its calls, in order.
func (a action) calls() []action {
	var out []action
	for c := &a; c != nil; c = c.next {
		out = append(out, *c)
	}
	return out
}

func (a action) isWait() bool { return a.tool == "" }

func wait(until time.Time, format string, args ...any) action {
	return action{until: until, why: fmt.Sprintf(format, args...)}
}

func call(tool string, args map[string]any, format string, a ...any) action {
	return action{tool: tool, args: args, why: fmt.Sprintf(format, a...)}
}

// keyOf names what a call tries to do, for remembering vetoes and failures: the tool,
// the ship, and the target (destination, good, contract, mode), not the unit counts, so
// that "buy 40" vetoed is not simply retried as "buy 39".
func keyOf(tool string, args map[string]any) (ship, key string) {
	str := func(k string) string { s, _ := args[k].(string); return s }
	ship = str("shipSymbol")
	target := ""
	switch tool {
	case spacetraders.ToolNavigateShip:
		target = str("waypointSymbol")
	case spacetraders.ToolSetFlightMode:
		target = str("flightMode")
	case spacetraders.ToolPurchaseCargo, spacetraders.ToolSellCargo, spacetraders.ToolJettisonCargo:
		target = str("symbol")
	case spacetraders.ToolDeliverContract:
		target = str("contractId") + "/" + str("tradeSymbol")
	case spacetraders.ToolAcceptContract, spacetraders.ToolFulfillContract:
		target = str("contractId")
	}
	return ship, tool + "|" + ship + "|" + target
}

func (a action) key() (ship, key string) { return keyOf(a.tool, a.args) }

// argsJSON encodes the arguments; map keys come out sorted, so equal calls encode alike.
func (a action) argsJSON() json.RawMessage {
	data, err := json.Marshal(a.args)
	if err != nil {
		// Only numbers, strings, bools and the survey model go in: this cannot fail.
		panic(fmt.Sprintf("autopilot: encoding arguments of %s: %v", a.tool, err))
	}
	return data
}

// Constructors of the game's calls, with the spec's argument names.

func shipCall(tool, ship, format string, a ...any) action {
	return call(tool, map[string]any{"shipSymbol": ship}, format, a...)
}

func tradeCall(tool, ship, good string, units int, format string, a ...any) action {
	return call(tool, map[string]any{"shipSymbol": ship, "symbol": good, "units": units}, format, a...)
}

func contractCall(tool, id, format string, a ...any) action {
	return call(tool, map[string]any{"contractId": id}, format, a...)
}
