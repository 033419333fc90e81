package universe

import (
	"slices"
	"testing"
	"time"
)

// playthrough plays a new agent through the starting contract over HTTP, touching every
// supported operation on the way: it mines and buys the contract good, delivers it,
// fulfils the contract, negotiates the next one, and sends the probe through jump gates to
// chart an uncharted waypoint. It returns the agent's credits at the start and the end.
func playthrough(c *client) (start, end int64) {
	t := c.t
	t.Helper()
	c.must(200, "get-status", "GET", "/v2", nil)
	reg := c.must(201, "register", "POST", "/v2/register", map[string]any{"symbol": "conformer", "faction": "COSMIC"})
	c.token = str(reg, "data.token")
	agent := str(reg, "data.agent.symbol")
	hq := str(reg, "data.agent.headquarters")
	start = int64(num(reg, "data.agent.credits"))
	if agent != "CONFORMER" || c.token == "" || start <= 0 {
		t.Fatalf("register: agent %q token %q credits %d", agent, c.token, start)
	}
	cmd := str(reg, "data.ships.0.symbol")
	probe := str(reg, "data.ships.1.symbol")
	home := str(reg, "data.ships.0.nav.systemSymbol")

	c.must(200, "get-my-agent", "GET", "/v2/my/agent", nil)
	c.must(200, "get-agents", "GET", "/v2/agents?page=1&limit=20", nil)
	c.must(200, "get-agent", "GET", "/v2/agents/"+agent, nil)
	c.must(200, "get-factions", "GET", "/v2/factions", nil)
	c.must(200, "get-faction", "GET", "/v2/factions/COSMIC", nil)
	c.must(200, "get-systems", "GET", "/v2/systems?limit=20", nil)
	c.must(200, "get-system", "GET", "/v2/systems/"+home, nil)
	c.must(200, "get-waypoint", "GET", "/v2/systems/"+home+"/waypoints/"+hq, nil)
	c.must(200, "get-market", "GET", "/v2/systems/"+home+"/waypoints/"+hq+"/market", nil)
	c.must(200, "get-shipyard", "GET", "/v2/systems/"+home+"/waypoints/"+hq+"/shipyard", nil)
	gates := c.must(200, "get-system-waypoints", "GET", "/v2/systems/"+home+"/waypoints?type=JUMP_GATE", nil)
	gate := str(gates, "data.0.symbol")
	c.must(200, "get-jump-gate", "GET", "/v2/systems/"+home+"/waypoints/"+gate+"/jump-gate", nil)
	mines := c.must(200, "get-system-waypoints", "GET", "/v2/systems/"+home+"/waypoints?type=ENGINEERED_ASTEROID&traits=MARKETPLACE", nil)
	mine := str(mines, "data.0.symbol")
	if gate == "" || mine == "" {
		t.Fatalf("home system %s lacks a jump gate (%q) or an engineered asteroid with a market (%q)", home, gate, mine)
	}

	contracts := c.must(200, "get-contracts", "GET", "/v2/my/contracts", nil)
	id := str(contracts, "data.0.id")
	c.must(200, "get-contract", "GET", "/v2/my/contracts/"+id, nil)
	acc := c.must(200, "accept-contract", "POST", "/v2/my/contracts/"+id+"/accept", nil)
	good := str(acc, "data.contract.terms.deliver.0.tradeSymbol")
	dest := str(acc, "data.contract.terms.deliver.0.destinationSymbol")
	need := int(num(acc, "data.contract.terms.deliver.0.unitsRequired"))

	c.must(200, "get-my-ships", "GET", "/v2/my/ships", nil)
	c.must(200, "get-my-ship", "GET", "/v2/my/ships/"+cmd, nil)
	c.must(200, "get-my-ship-cargo", "GET", "/v2/my/ships/"+cmd+"/cargo", nil)
	c.must(200, "get-ship-nav", "GET", "/v2/my/ships/"+cmd+"/nav", nil)

	// Fly to the engineered asteroid, survey and mine.
	c.must(200, "orbit-ship", "POST", "/v2/my/ships/"+cmd+"/orbit", nil)
	c.must(200, "patch-ship-nav", "PATCH", "/v2/my/ships/"+cmd+"/nav", map[string]any{"flightMode": "CRUISE"})
	c.fly(cmd, mine)
	sv := c.must(201, "create-survey", "POST", "/v2/my/ships/"+cmd+"/survey", nil)
	survey := dig(sv, "data.surveys.0")
	c.must(200, "get-ship-cooldown", "GET", "/v2/my/ships/"+cmd+"/cooldown", nil)
	c.waitFor(str(sv, "data.cooldown.expiration"))
	delivered := 0
	for trip := 0; delivered < need; trip++ {
		if trip > 5 {
			t.Fatalf("contract not done after %d trips: %d of %d %s delivered", trip, delivered, need, good)
		}
		have := c.mine(cmd, good, survey, need-delivered)
		// Top up by buying at the asteroid's exchange.
		c.must(200, "dock-ship", "POST", "/v2/my/ships/"+cmd+"/dock", nil)
		cargo := c.must(200, "get-my-ship-cargo", "GET", "/v2/my/ships/"+cmd+"/cargo", nil)
		free := int(num(cargo, "data.capacity") - num(cargo, "data.units"))
		if buy := min(free, need-delivered-have); buy > 0 {
			c.must(201, "purchase-cargo", "POST", "/v2/my/ships/"+cmd+"/purchase", map[string]any{"symbol": good, "units": buy})
			have += buy
		}
		c.must(200, "refuel-ship", "POST", "/v2/my/ships/"+cmd+"/refuel", nil)
		c.must(200, "orbit-ship", "POST", "/v2/my/ships/"+cmd+"/orbit", nil)
		c.fly(cmd, dest)
		c.must(200, "dock-ship", "POST", "/v2/my/ships/"+cmd+"/dock", nil)
		c.must(200, "deliver-contract", "POST", "/v2/my/contracts/"+id+"/deliver", map[string]any{"shipSymbol": cmd, "tradeSymbol": good, "units": have})
		delivered += have
		if delivered < need {
			c.must(200, "orbit-ship", "POST", "/v2/my/ships/"+cmd+"/orbit", nil)
			c.fly(cmd, mine)
		}
	}
	done := c.must(200, "fulfill-contract", "POST", "/v2/my/contracts/"+id+"/fulfill", nil)
	end = int64(num(done, "data.agent.credits"))
	c.must(201, "negotiateContract", "POST", "/v2/my/ships/"+cmd+"/negotiate/contract", nil)
	c.must(200, "orbit-ship", "POST", "/v2/my/ships/"+cmd+"/orbit", nil)
	if dest != hq {
		c.fly(cmd, hq)
	}
	c.must(200, "dock-ship", "POST", "/v2/my/ships/"+cmd+"/dock", nil)
	// After the contract: a drone to trade cargo with, and a little trade at headquarters.
	bought := c.must(201, "purchase-ship", "POST", "/v2/my/ships", map[string]any{"shipType": "SHIP_MINING_DRONE", "waypointSymbol": hq})
	drone := str(bought, "data.ship.symbol")
	mkt := c.must(200, "get-market", "GET", "/v2/systems/"+home+"/waypoints/"+hq+"/market", nil)
	food := str(mkt, "data.exports.0.symbol")
	c.must(201, "purchase-cargo", "POST", "/v2/my/ships/"+cmd+"/purchase", map[string]any{"symbol": food, "units": 2})
	c.must(200, "transfer-cargo", "POST", "/v2/my/ships/"+cmd+"/transfer", map[string]any{"tradeSymbol": food, "units": 1, "shipSymbol": drone})
	c.must(201, "sell-cargo", "POST", "/v2/my/ships/"+cmd+"/sell", map[string]any{"symbol": food, "units": 1})

	c.explore(probe, home, gate)
	return start, end
}

// fly navigates an orbiting ship and waits until it arrives.
func (c *client) fly(ship, dest string) {
	c.t.Helper()
	nav := c.must(200, "navigate-ship", "POST", "/v2/my/ships/"+ship+"/navigate", map[string]any{"waypointSymbol": dest})
	c.must(200, "get-ship-nav", "GET", "/v2/my/ships/"+ship+"/nav", nil)
	c.waitFor(str(nav, "data.nav.route.arrival"))
	got := c.must(200, "get-my-ship", "GET", "/v2/my/ships/"+ship, nil)
	if s, w := str(got, "data.nav.status"), str(got, "data.nav.waypointSymbol"); s != "IN_ORBIT" || w != dest {
		c.t.Fatalf("after arrival %s is %s at %s, want IN_ORBIT at %s", ship, s, w, dest)
	}
}

// mine extracts until the hold is full, keeping only good (jettisoning the rest), and
// stops early once it holds want units. It returns the units of good held.
func (c *client) mine(ship, good string, survey any, want int) int {
	c.t.Helper()
	for i := 0; ; i++ {
		var res map[string]any
		if i == 0 && survey != nil {
			res = c.must(201, "extract-resources-with-survey", "POST", "/v2/my/ships/"+ship+"/extract/survey", survey)
		} else {
			res = c.must(201, "extract-resources", "POST", "/v2/my/ships/"+ship+"/extract", nil)
		}
		y := str(res, "data.extraction.yield.symbol")
		if y != good {
			c.must(200, "jettison", "POST", "/v2/my/ships/"+ship+"/jettison",
				map[string]any{"symbol": y, "units": int(num(res, "data.extraction.yield.units"))})
		}
		c.waitFor(str(res, "data.cooldown.expiration"))
		cargo := c.must(200, "get-my-ship-cargo", "GET", "/v2/my/ships/"+ship+"/cargo", nil)
		have := 0
		for _, it := range list(cargo, "data.inventory") {
			if str(it, "symbol") == good {
				have = int(num(it, "units"))
			}
		}
		if have >= want || num(cargo, "data.capacity")-num(cargo, "data.units") < 10 || i >= 4 {
			if have > want {
				c.must(200, "jettison", "POST", "/v2/my/ships/"+ship+"/jettison", map[string]any{"symbol": good, "units": have - want})
				have = want
			}
			return have
		}
	}
}

// explore sends the probe through jump gates to the nearest system with an uncharted
// waypoint and charts it.
func (c *client) explore(probe, home, gate string) {
	t := c.t
	t.Helper()
	path := c.u.pathToUncharted(gate)
	if path == nil {
		t.Fatalf("no uncharted waypoint reachable from %s", gate)
	}
	c.must(200, "orbit-ship", "POST", "/v2/my/ships/"+probe+"/orbit", nil)
	c.fly(probe, gate)
	for _, next := range path[1:] {
		j := c.must(200, "jump-ship", "POST", "/v2/my/ships/"+probe+"/jump", map[string]any{"waypointSymbol": next})
		c.waitFor(str(j, "data.cooldown.expiration"))
	}
	sys := str(c.must(200, "get-ship-nav", "GET", "/v2/my/ships/"+probe+"/nav", nil), "data.systemSymbol")
	wps := c.must(200, "get-system-waypoints", "GET", "/v2/systems/"+sys+"/waypoints?traits=UNCHARTED&limit=20", nil)
	target := str(wps, "data.0.symbol")
	if target == "" {
		t.Fatalf("system %s has no uncharted waypoint", sys)
	}
	c.fly(probe, target)
	ch := c.must(201, "create-chart", "POST", "/v2/my/ships/"+probe+"/chart", nil)
	if slices.ContainsFunc(list(ch, "data.waypoint.traits"), func(t any) bool { return str(t, "symbol") == "UNCHARTED" }) {
		t.Fatalf("charted waypoint %s still shows UNCHARTED", target)
	}
}

// pathToUncharted finds the shortest chain of jump gates from gate to a system holding an
// uncharted waypoint (a test helper reading the generated galaxy directly).
func (u *Universe) pathToUncharted(gate string) []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	prev := map[string]string{gate: ""}
	queue := []string{gate}
	for len(queue) > 0 {
		g := queue[0]
		queue = queue[1:]
		for _, w := range u.systems[u.waypoints[g].System].Waypoints {
			if w.Uncharted && w.ChartedBy == "" {
				var path []string
				for at := g; at != ""; at = prev[at] {
					path = append([]string{at}, path...)
				}
				return path
			}
		}
		for _, n := range u.waypoints[g].Gate {
			if _, seen := prev[n]; !seen {
				prev[n] = g
				queue = append(queue, n)
			}
		}
	}
	return nil
}

func TestStartingContractEndToEnd(t *testing.T) {
	c := newTestClient(t, 42, false)
	start, end := playthrough(c)
	if end <= start {
		t.Errorf("credits after the starting contract = %d, want more than the %d at the start", end, start)
	}
	ops := map[string]bool{}
	for _, e := range c.log {
		ops[e.op] = true
	}
	for _, op := range supportedOps {
		if !ops[op] {
			t.Errorf("playthrough never called %s", op)
		}
	}
	t.Logf("%d requests, credits %d -> %d, game clock advanced %v", len(c.log), start, end, c.clock.Now().Sub(testStart).Round(time.Second))
}

// supportedOps are the operation ids of the spec that the universe serves.
var supportedOps = []string{"get-status", "register", "get-my-agent", "get-agent", "get-agents", "get-factions",
	"get-faction", "get-systems", "get-system", "get-system-waypoints", "get-waypoint", "get-market", "get-shipyard",
	"get-jump-gate", "get-contracts", "get-contract", "accept-contract", "deliver-contract", "fulfill-contract",
	"negotiateContract", "get-my-ships", "get-my-ship", "get-my-ship-cargo", "purchase-ship", "orbit-ship",
	"dock-ship", "navigate-ship", "patch-ship-nav", "get-ship-nav", "refuel-ship", "purchase-cargo", "sell-cargo",
	"jettison", "transfer-cargo", "create-survey", "extract-resources", "extract-resources-with-survey",
	"get-ship-cooldown", "create-chart", "jump-ship"}
