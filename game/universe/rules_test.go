package universe

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// start is a freshly registered agent and the landmarks of its home system.
type start struct {
	cmd, probe, hq, home, mine, gate, contract, good, dest string
}

func register(c *client, symbol string) start {
	c.t.Helper()
	c.token = ""
	reg := c.must(201, "register", "POST", "/v2/register", map[string]any{"symbol": symbol, "faction": "COSMIC"})
	c.token = str(reg, "data.token")
	s := start{
		cmd: str(reg, "data.ships.0.symbol"), probe: str(reg, "data.ships.1.symbol"),
		hq: str(reg, "data.agent.headquarters"), home: str(reg, "data.ships.0.nav.systemSymbol"),
		contract: str(reg, "data.contract.id"), good: str(reg, "data.contract.terms.deliver.0.tradeSymbol"),
		dest: str(reg, "data.contract.terms.deliver.0.destinationSymbol"),
	}
	s.mine = str(c.must(200, "get-system-waypoints", "GET", "/v2/systems/"+s.home+"/waypoints?type=ENGINEERED_ASTEROID", nil), "data.0.symbol")
	s.gate = str(c.must(200, "get-system-waypoints", "GET", "/v2/systems/"+s.home+"/waypoints?type=JUMP_GATE", nil), "data.0.symbol")
	return s
}

// edit changes a ship's state directly, for rules that would take long to reach by play.
func (c *client) edit(symbol string, f func(*ship, *agent)) {
	c.u.mu.Lock()
	defer c.u.mu.Unlock()
	s := c.u.ships[symbol]
	f(s, c.u.bySymbol[s.Agent])
}

func TestAuthErrors(t *testing.T) {
	c := newTestClient(t, 1, false)
	c.wantError(codeMissingToken, "get-my-agent", "GET", "/v2/my/agent", nil)
	c.token = "not-a-token"
	c.wantError(codeInvalidToken, "get-my-agent", "GET", "/v2/my/agent", nil)
	register(c, "AUTHER")
	c.must(200, "get-my-agent", "GET", "/v2/my/agent", nil)
	c.token = ""
	c.wantError(codeSymbolTaken, "register", "POST", "/v2/register", map[string]any{"symbol": "auther", "faction": "COSMIC"})
	c.wantError(422, "register", "POST", "/v2/register", map[string]any{"symbol": "OTHER", "faction": "NOPE"})
	c.wantError(422, "register", "POST", "/v2/register", map[string]any{"symbol": "AB", "faction": "COSMIC"})
	// Register in Go gives the same kind of token.
	tok, err := c.u.Register("GOAGENT", "VOID")
	if err != nil || tok == "" {
		t.Fatalf("Register = %q, %v", tok, err)
	}
	c.token = tok
	if got := str(c.must(200, "get-my-agent", "GET", "/v2/my/agent", nil), "data.symbol"); got != "GOAGENT" {
		t.Errorf("token from Register belongs to %q, want GOAGENT", got)
	}
	if _, err := c.u.Register("GOAGENT", "VOID"); err == nil || !strings.Contains(err.Error(), "4111") {
		t.Errorf("second Register of GOAGENT: err = %v, want code 4111", err)
	}
}

func TestNavigationRules(t *testing.T) {
	c := newTestClient(t, 2, false)
	s := register(c, "NAVIGATOR")
	p := "/v2/my/ships/" + s.cmd
	c.wantError(codeNotInOrbit, "navigate-ship", "POST", p+"/navigate", map[string]any{"waypointSymbol": s.mine})
	c.must(200, "orbit-ship", "POST", p+"/orbit", nil)
	c.wantError(codeNavSameDest, "navigate-ship", "POST", p+"/navigate", map[string]any{"waypointSymbol": s.hq})
	c.wantError(codeNavInvalidDest, "navigate-ship", "POST", p+"/navigate", map[string]any{"waypointSymbol": "X1-NOPE-A1"})
	var elsewhere string
	for _, sys := range c.u.st.Systems {
		if sys.Symbol != s.home {
			elsewhere = sys.Waypoints[0].Symbol
			break
		}
	}
	c.wantError(codeNavOutsideSystem, "navigate-ship", "POST", p+"/navigate", map[string]any{"waypointSymbol": elsewhere})
	c.wantError(422, "patch-ship-nav", "PATCH", p+"/nav", map[string]any{"flightMode": "WARP"})

	c.edit(s.cmd, func(sh *ship, _ *agent) { sh.Fuel = 1 })
	e := c.wantError(codeNavNoFuel, "navigate-ship", "POST", p+"/navigate", map[string]any{"waypointSymbol": s.mine})
	if num(e, "error.data.fuelAvailable") != 1 {
		t.Errorf("4203 data = %v, want fuelAvailable 1", dig(e, "error.data"))
	}
	// DRIFT costs one fuel whatever the distance, and takes longer than CRUISE.
	c.must(200, "patch-ship-nav", "PATCH", p+"/nav", map[string]any{"flightMode": "DRIFT"})
	nav := c.must(200, "navigate-ship", "POST", p+"/navigate", map[string]any{"waypointSymbol": s.mine})
	if got := num(nav, "data.fuel.current"); got != 0 {
		t.Errorf("fuel after a DRIFT hop = %v, want 0", got)
	}
	if str(nav, "data.nav.status") != "IN_TRANSIT" || str(nav, "data.nav.route.origin.symbol") != s.hq {
		t.Errorf("nav after navigate = %v", dig(nav, "data.nav"))
	}
	c.wantError(codeNavInTransit, "navigate-ship", "POST", p+"/navigate", map[string]any{"waypointSymbol": s.hq})
	c.wantError(codeInTransit, "dock-ship", "POST", p+"/dock", nil)
	c.wantError(codeInTransit, "orbit-ship", "POST", p+"/orbit", nil)
	c.wantError(codeInTransit, "extract-resources", "POST", p+"/extract", nil)
	c.waitFor(str(nav, "data.nav.route.arrival"))
	if got := str(c.must(200, "get-ship-nav", "GET", p+"/nav", nil), "data.status"); got != "IN_ORBIT" {
		t.Errorf("status after arrival = %s, want IN_ORBIT", got)
	}
}

func TestTravelTimeByFlightMode(t *testing.T) {
	c := newTestClient(t, 3, false)
	s := register(c, "TIMER")
	from, to := c.u.waypoints[s.hq], c.u.waypoints[s.mine]
	sh := c.u.ships[s.cmd]
	cruise, cruiseFuel := travel(sh, from, to, "CRUISE")
	burn, burnFuel := travel(sh, from, to, "BURN")
	drift, driftFuel := travel(sh, from, to, "DRIFT")
	if !(burn < cruise && cruise < drift) {
		t.Errorf("times burn %v cruise %v drift %v, want burn < cruise < drift", burn, cruise, drift)
	}
	if burnFuel != 2*cruiseFuel || driftFuel != 1 || cruiseFuel != distance(from, to) {
		t.Errorf("fuel burn %d cruise %d drift %d for distance %d", burnFuel, cruiseFuel, driftFuel, distance(from, to))
	}
	// The response's arrival is the game time divided by the speed.
	c.must(200, "orbit-ship", "POST", "/v2/my/ships/"+s.cmd+"/orbit", nil)
	nav := c.must(200, "navigate-ship", "POST", "/v2/my/ships/"+s.cmd+"/navigate", map[string]any{"waypointSymbol": s.mine})
	arrival, _ := time.Parse(time.RFC3339Nano, str(nav, "data.nav.route.arrival"))
	if got, want := arrival.Sub(testStart), cruise/DefaultSpeed; got != want {
		t.Errorf("arrival after %v, want %v (game %v at speed %d)", got, want, cruise, DefaultSpeed)
	}
}

func TestMarketRules(t *testing.T) {
	c := newTestClient(t, 4, false)
	s := register(c, "TRADER")
	p := "/v2/my/ships/" + s.cmd
	buy := func(sym string, units int) map[string]any {
		return map[string]any{"symbol": sym, "units": units}
	}
	c.must(200, "orbit-ship", "POST", p+"/orbit", nil)
	c.wantError(codeNotDocked, "purchase-cargo", "POST", p+"/purchase", buy("FOOD", 1))
	c.wantError(codeRefuelDocked, "refuel-ship", "POST", p+"/refuel", nil)
	c.fly(s.cmd, s.mine)
	c.must(200, "dock-ship", "POST", p+"/dock", nil)
	c.wantError(codeNotSold, "purchase-cargo", "POST", p+"/purchase", buy("JEWELRY", 1))
	c.wantError(codeNotBought, "sell-cargo", "POST", p+"/sell", buy("JEWELRY", 1))
	c.wantError(codeTradeVolume, "purchase-cargo", "POST", p+"/purchase", buy("IRON_ORE", 61))
	c.wantError(codeCargoExceeds, "purchase-cargo", "POST", p+"/purchase", buy("IRON_ORE", 41))
	c.wantError(codeCargoMissing, "sell-cargo", "POST", p+"/sell", buy("IRON_ORE", 1))

	// Buying raises the price; the market drifts back with time.
	market := "/v2/systems/" + s.home + "/waypoints/" + s.mine + "/market"
	price := func() float64 {
		for _, g := range list(c.must(200, "get-market", "GET", market, nil), "data.tradeGoods") {
			if str(g, "symbol") == "IRON_ORE" {
				return num(g, "purchasePrice")
			}
		}
		t.Fatal("IRON_ORE missing from the market's trade goods")
		return 0
	}
	before := price()
	c.must(201, "purchase-cargo", "POST", p+"/purchase", buy("IRON_ORE", 40))
	after := price()
	if after <= before {
		t.Errorf("IRON_ORE price after buying 40 = %v, want above %v", after, before)
	}
	c.clock.Advance(c.u.game(4 * marketDriftTime))
	if back := price(); back >= after || back > before+1 {
		t.Errorf("IRON_ORE price after drifting = %v, want back near %v (was %v)", back, before, after)
	}
	c.wantError(codeCargoUnits, "sell-cargo", "POST", p+"/sell", buy("IRON_ORE", 41))
	c.must(200, "orbit-ship", "POST", p+"/orbit", nil)
	c.wantError(codeCargoFull, "extract-resources", "POST", p+"/extract", nil)
	c.must(200, "dock-ship", "POST", p+"/dock", nil)

	c.must(201, "sell-cargo", "POST", p+"/sell", buy("IRON_ORE", 40))
	c.edit(s.cmd, func(_ *ship, a *agent) { a.Credits = 10 })
	c.wantError(codeCredits, "purchase-cargo", "POST", p+"/purchase", buy("FUEL", 1))
	c.wantError(codeShipCredits, "purchase-ship", "POST", "/v2/my/ships", map[string]any{"shipType": "SHIP_PROBE", "waypointSymbol": s.hq})
	c.wantError(codeShipTypeNotSold, "purchase-ship", "POST", "/v2/my/ships", map[string]any{"shipType": "SHIP_COMMAND_FRIGATE", "waypointSymbol": s.hq})
	c.wantError(codeShipTypeNotSold, "purchase-ship", "POST", "/v2/my/ships", map[string]any{"shipType": "SHIP_BULK_FREIGHTER", "waypointSymbol": s.hq})
	c.wantError(422, "purchase-ship", "POST", "/v2/my/ships", map[string]any{"shipType": "SHIP_NOPE", "waypointSymbol": s.hq})

	c.wantError(codeTransferSameShip, "transfer-cargo", "POST", p+"/transfer", map[string]any{"tradeSymbol": "IRON_ORE", "units": 1, "shipSymbol": s.cmd})
	c.wantError(codeTransferLocation, "transfer-cargo", "POST", p+"/transfer", map[string]any{"tradeSymbol": "IRON_ORE", "units": 1, "shipSymbol": s.probe})
	c.wantError(codeTransferNotFound, "transfer-cargo", "POST", p+"/transfer", map[string]any{"tradeSymbol": "IRON_ORE", "units": 1, "shipSymbol": "NOBODY-1"})
	c.wantError(codeCargoMissing, "jettison", "POST", p+"/jettison", buy("GOLD_ORE", 1))
	c.wantError(404, "get-my-ship", "GET", "/v2/my/ships/NOBODY-1", nil)
}

func TestMiningRules(t *testing.T) {
	c := newTestClient(t, 5, false)
	s := register(c, "MINER")
	p := "/v2/my/ships/" + s.cmd
	c.must(200, "orbit-ship", "POST", p+"/orbit", nil)
	c.wantError(codeExtractInvalid, "extract-resources", "POST", p+"/extract", nil)
	c.wantError(codeSurveyWaypointType, "create-survey", "POST", p+"/survey", nil)
	c.wantError(codeMissingLaser, "extract-resources", "POST", "/v2/my/ships/"+s.probe+"/extract", nil)
	c.wantError(codeMissingSurveyor, "create-survey", "POST", "/v2/my/ships/"+s.probe+"/survey", nil)
	c.fly(s.cmd, s.mine)
	sv := c.must(201, "create-survey", "POST", p+"/survey", nil)
	survey := dig(sv, "data.surveys.0").(map[string]any)
	c.wantError(codeCooldown, "extract-resources", "POST", p+"/extract", nil)
	c.waitFor(str(sv, "data.cooldown.expiration"))
	res := c.must(201, "extract-resources", "POST", p+"/extract", nil)
	if u := num(res, "data.extraction.yield.units"); u < 10 {
		t.Errorf("a Mining Laser II yielded %v units, want at least 10", u)
	}
	e := c.wantError(codeCooldown, "extract-resources", "POST", p+"/extract", nil)
	if num(e, "error.data.cooldown.remainingSeconds") <= 0 {
		t.Errorf("cooldown error data = %v, want remaining seconds", dig(e, "error.data"))
	}
	c.waitFor(str(res, "data.cooldown.expiration"))

	forged := map[string]any{}
	for k, v := range survey {
		forged[k] = v
	}
	forged["deposits"] = []map[string]any{{"symbol": "DIAMONDS"}, {"symbol": "DIAMONDS"}, {"symbol": "DIAMONDS"}}
	c.wantError(codeSurveyVerification, "extract-resources-with-survey", "POST", p+"/extract/survey", forged)

	c.u.mu.Lock()
	c.u.surveys[str(survey, "signature")].UsesLeft = 0
	c.u.mu.Unlock()
	c.wantError(codeSurveyExhausted, "extract-resources-with-survey", "POST", p+"/extract/survey", survey)
	c.u.mu.Lock()
	c.u.surveys[str(survey, "signature")].UsesLeft = 5
	c.u.mu.Unlock()
	c.waitFor(str(survey, "expiration"))
	c.wantError(codeSurveyExpired, "extract-resources-with-survey", "POST", p+"/extract/survey", survey)
	c.must(200, "dock-ship", "POST", p+"/dock", nil)
	c.wantError(codeNotInOrbit, "extract-resources", "POST", p+"/extract", nil)
	c.wantError(codeAlreadyCharted, "create-chart", "POST", p+"/chart", nil)
}

func TestContractRules(t *testing.T) {
	c := newTestClient(t, 6, false)
	s := register(c, "CONTRACTOR")
	k := "/v2/my/contracts/" + s.contract
	deliver := map[string]any{"shipSymbol": s.cmd, "tradeSymbol": s.good, "units": 1}
	c.wantError(codeContractNotAccepted, "deliver-contract", "POST", k+"/deliver", deliver)
	c.wantError(codeContractNotAccepted, "fulfill-contract", "POST", k+"/fulfill", nil)
	c.wantError(codeContractOpen, "negotiateContract", "POST", "/v2/my/ships/"+s.cmd+"/negotiate/contract", nil)
	acc := c.must(200, "accept-contract", "POST", k+"/accept", nil)
	if got, want := num(acc, "data.agent.credits"), float64(startingCredits)+num(acc, "data.contract.terms.payment.onAccepted"); got != want {
		t.Errorf("credits after accepting = %v, want %v (paid on accept)", got, want)
	}
	c.wantError(codeContractAccepted, "accept-contract", "POST", k+"/accept", nil)
	c.wantError(codeContractIncomplete, "fulfill-contract", "POST", k+"/fulfill", nil)
	c.wantError(codeDeliverMismatch, "deliver-contract", "POST", k+"/deliver", map[string]any{"shipSymbol": s.cmd, "tradeSymbol": "GOLD_ORE", "units": 1})
	c.edit(s.cmd, func(sh *ship, _ *agent) { addCargo(sh, s.good, 5) })
	if s.dest != s.hq {
		c.wantError(codeDeliverWrongWaypoint, "deliver-contract", "POST", k+"/deliver", deliver)
	}
	c.wantError(404, "get-contract", "GET", "/v2/my/contracts/nope", nil)

	// An offer not accepted in time cannot be accepted.
	late := register(c, "LATECOMER")
	c.clock.Advance(acceptDeadline + time.Minute)
	c.wantError(codeContractDeadline, "accept-contract", "POST", "/v2/my/contracts/"+late.contract+"/accept", nil)
	// With the offer lapsed, a docked ship at a faction waypoint can negotiate a new one.
	c.must(201, "negotiateContract", "POST", "/v2/my/ships/"+late.cmd+"/negotiate/contract", nil)
}

func TestJumpRules(t *testing.T) {
	c := newTestClient(t, 8, false)
	s := register(c, "JUMPER")
	p := "/v2/my/ships/" + s.probe
	c.must(200, "orbit-ship", "POST", p+"/orbit", nil)
	c.wantError(codeJumpNoValidWaypoint, "jump-ship", "POST", p+"/jump", map[string]any{"waypointSymbol": s.gate})
	c.fly(s.probe, s.gate)
	c.wantError(codeJumpSameSystem, "jump-ship", "POST", p+"/jump", map[string]any{"waypointSymbol": s.hq})
	gate := c.u.waypoints[s.gate]
	var far string
	for _, sys := range c.u.st.Systems {
		for _, w := range sys.Waypoints {
			if w.IsGate && w != gate && !strings.Contains(strings.Join(gate.Gate, " "), w.Symbol) {
				far = w.Symbol
			}
		}
	}
	c.wantError(codeJumpDestInvalid, "jump-ship", "POST", p+"/jump", map[string]any{"waypointSymbol": far})
	j := c.must(200, "jump-ship", "POST", p+"/jump", map[string]any{"waypointSymbol": gate.Gate[0]})
	if got := str(j, "data.nav.waypointSymbol"); got != gate.Gate[0] {
		t.Errorf("after the jump the probe is at %s, want %s", got, gate.Gate[0])
	}
	c.wantError(codeCooldown, "jump-ship", "POST", p+"/jump", map[string]any{"waypointSymbol": s.gate})
}

func TestUnsupportedOperations(t *testing.T) {
	c := newTestClient(t, 9, false)
	s := register(c, "ASKER")
	for _, tc := range []struct{ method, path string }{
		{"POST", "/v2/my/ships/" + s.cmd + "/refine"},
		{"POST", "/v2/my/ships/" + s.cmd + "/scan/ships"},
		{"GET", "/v2/market/supply-chain"},
	} {
		status, m := c.do("unsupported", tc.method, tc.path, nil)
		if status != http.StatusNotImplemented || !strings.Contains(str(m, "error.message"), "not available in the offline universe") {
			t.Errorf("%s %s = %d %v, want 501 saying it is not available offline", tc.method, tc.path, status, m)
		}
	}
	status, m := c.do("unknown", "GET", "/v2/nothing/here", nil)
	if status != http.StatusNotFound || num(m, "error.code") != 404 {
		t.Errorf("unknown path = %d %v, want 404 in the error shape", status, m)
	}
}

func TestPagination(t *testing.T) {
	c := newTestClient(t, 10, false)
	m := c.must(200, "get-systems", "GET", "/v2/systems?page=2&limit=7", nil)
	if len(list(m, "data")) != 7 || num(m, "meta.total") != galaxySize || num(m, "meta.page") != 2 || num(m, "meta.limit") != 7 {
		t.Errorf("page 2 of 7: %d items, meta %v", len(list(m, "data")), dig(m, "meta"))
	}
	if got := str(m, "data.0.symbol"); got != c.u.st.Systems[7].Symbol {
		t.Errorf("page 2 starts with %s, want %s", got, c.u.st.Systems[7].Symbol)
	}
	c.wantError(422, "get-systems", "GET", "/v2/systems?limit=21", nil)
	m = c.must(200, "get-systems", "GET", "/v2/systems?page=99", nil)
	if len(list(m, "data")) != 0 {
		t.Errorf("page past the end has %d items, want 0", len(list(m, "data")))
	}
}
