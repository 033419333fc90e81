package autopilot

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	st "github.com/coplayhq/coplay/game/spacetraders"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// fakeSource is a constructed world: a home system with HQ (fuel market), an engineered
// asteroid with a market selling IRON_ORE, and a plain asteroid far away.
type fakeSource struct {
	agent     st.Agent
	ships     []st.Ship
	contracts []st.Contract
	waypoints []st.Waypoint
	markets   map[string]st.Market
}

func (f *fakeSource) Snapshot(context.Context) (st.Snapshot, error) {
	return st.Snapshot{Time: t0, Agent: f.agent, Ships: f.ships, Contracts: f.contracts}, nil
}
func (f *fakeSource) SystemWaypoints(context.Context, string) ([]st.Waypoint, error) {
	return f.waypoints, nil
}

// Market shows prices as seen now where a ship is, and none elsewhere, as the game does.
func (f *fakeSource) Market(_ context.Context, wp string, _ time.Duration) (*st.Market, time.Time, error) {
	m := f.markets[wp]
	for _, s := range f.ships {
		if s.Nav.WaypointSymbol == wp && s.Nav.Status != st.InTransit {
			return &m, t0, nil
		}
	}
	return &m, time.Time{}, nil
}

func traits(names ...string) []st.WaypointTrait {
	var out []st.WaypointTrait
	for _, n := range names {
		out = append(out, st.WaypointTrait{Symbol: n})
	}
	return out
}

func goods(names ...string) []st.TradeGood {
	var out []st.TradeGood
	for _, n := range names {
		out = append(out, st.TradeGood{Symbol: n})
	}
	return out
}

// oreAtB1 puts the first ship at X1-T-B1 (in status), whose market trades IRON_ORE at
// these prices, 60 units at a time.
func (f *fakeSource) oreAtB1(status string, purchase, sell int64) {
	f.ships[0].Nav.WaypointSymbol, f.ships[0].Nav.Status = "X1-T-B1", status
	m := f.markets["X1-T-B1"]
	m.TradeGoods = []st.MarketTradeGood{{Symbol: "IRON_ORE", PurchasePrice: purchase, SellPrice: sell, TradeVolume: 60}}
	f.markets["X1-T-B1"] = m
}

func newFake() *fakeSource {
	return &fakeSource{
		agent: st.Agent{Symbol: "T", Headquarters: "X1-T-A1", Credits: 100_000},
		ships: []st.Ship{{
			Symbol: "T-1",
			Nav:    st.ShipNav{SystemSymbol: "X1-T", WaypointSymbol: "X1-T-A1", Status: st.Docked, FlightMode: "CRUISE"},
			Fuel:   st.ShipFuel{Current: 400, Capacity: 400},
			Cargo:  st.ShipCargo{Capacity: 40},
			Mounts: []st.ShipMount{{Symbol: "MOUNT_MINING_LASER_II", Strength: 10}, {Symbol: "MOUNT_SURVEYOR_I"}},
		}},
		contracts: []st.Contract{{ID: "k1", Accepted: true, Terms: st.ContractTerms{
			Deadline: t0.Add(time.Hour), Payment: st.ContractPayment{OnAccepted: 1000, OnFulfilled: 4000},
			Deliver: []st.ContractDeliverGood{{TradeSymbol: "IRON_ORE", DestinationSymbol: "X1-T-A1", UnitsRequired: 50}},
		}}},
		waypoints: []st.Waypoint{
			{Symbol: "X1-T-A1", SystemSymbol: "X1-T", Type: "PLANET", X: 0, Y: 0, Traits: traits("MARKETPLACE"), Faction: &st.WaypointFaction{Symbol: "COSMIC"}},
			{Symbol: "X1-T-B1", SystemSymbol: "X1-T", Type: "ENGINEERED_ASTEROID", X: 30, Y: 40, Traits: traits("COMMON_METAL_DEPOSITS", "MARKETPLACE")},
			{Symbol: "X1-T-C1", SystemSymbol: "X1-T", Type: "ASTEROID", X: 300, Y: 0, Traits: traits("COMMON_METAL_DEPOSITS")},
		},
		markets: map[string]st.Market{
			"X1-T-A1": {Symbol: "X1-T-A1", Imports: goods("IRON_ORE"), Exchange: goods("FUEL")},
			"X1-T-B1": {Symbol: "X1-T-B1", Exchange: goods("IRON_ORE", "COPPER_ORE", "FUEL")},
		},
	}
}

// step runs one Next over f and returns the game calls (notebook calls left out).
func step(t *testing.T, b *Brain, msgs []agent.Message) (agent.Reply, []agent.ToolCall) {
	t.Helper()
	reply, err := b.Next(context.Background(), agent.Request{Messages: msgs})
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	var game []agent.ToolCall
	for _, c := range reply.Calls {
		if !strings.HasPrefix(c.Tool, "update_") && c.Tool != agent.ToolSetPlan {
			game = append(game, c)
		}
	}
	return reply, game
}

func tools(calls []agent.ToolCall) string {
	var names []string
	for _, c := range calls {
		names = append(names, c.Tool)
	}
	return strings.Join(names, ",")
}

func args(t *testing.T, c agent.ToolCall) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(c.Args, &m); err != nil {
		t.Fatalf("args of %s: %v", c.Tool, err)
	}
	return m
}

func TestGoesToBuyThenDelivers(t *testing.T) {
	t.Parallel()
	f := newFake()
	b := newBrain(f, func() time.Time { return t0 })
	_, calls := step(t, b, nil)
	if got := tools(calls); got != "set_flight_mode,orbit_ship,navigate_ship" {
		t.Fatalf("docked at HQ with the ore sold at B1: calls %s, want set_flight_mode,orbit_ship,navigate_ship", got)
	}
	if a := args(t, calls[2]); a["waypointSymbol"] != "X1-T-B1" {
		t.Errorf("navigates to %v, want the nearest market selling IRON_ORE, X1-T-B1", a["waypointSymbol"])
	}

	// At B1, in orbit, with prices visible: dock and buy a hold's worth.
	f.oreAtB1(st.InOrbit, 42, 38)
	_, calls = step(t, b, nil)
	if got := tools(calls); got != "dock_ship,purchase_cargo" {
		t.Fatalf("at the market: calls %s, want dock_ship,purchase_cargo", got)
	}
	if a := args(t, calls[1]); a["units"] != 40.0 || a["symbol"] != "IRON_ORE" {
		t.Errorf("buys %v %v, want 40 IRON_ORE (the hold)", a["units"], a["symbol"])
	}

	// Full of ore at the destination: deliver.
	f.ships[0].Nav.WaypointSymbol, f.ships[0].Nav.Status = "X1-T-A1", st.Docked
	f.ships[0].Cargo.Units, f.ships[0].Cargo.Inventory = 40, []st.ShipCargoItem{{Symbol: "IRON_ORE", Units: 40}}
	_, calls = step(t, b, nil)
	if got := tools(calls); got != "deliver_contract" {
		t.Fatalf("docked at the destination with ore: calls %s, want deliver_contract", got)
	}
	if a := args(t, calls[0]); a["units"] != 40.0 || a["contractId"] != "k1" {
		t.Errorf("delivers %v to %v, want 40 to k1", a["units"], a["contractId"])
	}
}

func TestRefuelsBeforeLeavingWhenLow(t *testing.T) {
	t.Parallel()
	f := newFake()
	f.ships[0].Fuel.Current = 60
	b := newBrain(f, func() time.Time { return t0 })
	_, calls := step(t, b, nil)
	if got := tools(calls); !strings.HasPrefix(got, "refuel_ship,") || !strings.HasSuffix(got, "navigate_ship") {
		t.Fatalf("tank 60/400 at a fuel market: calls %s, want refuel_ship first and navigate_ship last", got)
	}
}

func TestDriftsWhenFuelIsShortAndNoFuelHere(t *testing.T) {
	t.Parallel()
	f := newFake()
	f.markets["X1-T-A1"] = st.Market{Symbol: "X1-T-A1", Imports: goods("IRON_ORE")} // no fuel here
	f.ships[0].Fuel.Current = 20                                                    // B1 is 50 away
	b := newBrain(f, func() time.Time { return t0 })
	_, calls := step(t, b, nil)
	if len(calls) == 0 || calls[0].Tool != "set_flight_mode" || args(t, calls[0])["flightMode"] != "DRIFT" {
		t.Fatalf("20 fuel for a 50-unit hop and no fuel market: calls %s (%v), want DRIFT first", tools(calls), calls)
	}
}

func TestMinesWhenBuyingIsTooDear(t *testing.T) {
	t.Parallel()
	f := newFake()
	f.oreAtB1(st.InOrbit, 500, 450)
	b := newBrain(f, func() time.Time { return t0 })
	_, calls := step(t, b, nil)
	if got := tools(calls); got != "create_survey" && got != "extract_resources" {
		t.Fatalf("ore at 500 when the contract pays 100 a unit: calls %s, want to survey or mine", got)
	}
}

func TestVetoedCallIsNotRepeated(t *testing.T) {
	t.Parallel()
	f := newFake()
	f.oreAtB1(st.Docked, 42, 38)
	b := newBrain(f, func() time.Time { return t0 })
	reply, calls := step(t, b, nil)
	if got := tools(calls); got != "purchase_cargo" {
		t.Fatalf("docked at a cheap market: calls %s, want purchase_cargo", got)
	}
	msgs := []agent.Message{{Role: agent.RoleAssistant, Content: reply.Text, ToolCalls: reply.Calls}}
	for _, c := range reply.Calls {
		text := "ok"
		if c.Tool == "purchase_cargo" {
			text = "not executed: vetoed by the person: mine it instead. Do not repeat this call unchanged."
		}
		msgs = append(msgs, agent.Message{Role: agent.RoleTool, ToolCallID: c.ID, Content: text})
	}
	reply, calls = step(t, b, msgs)
	for _, c := range calls {
		if c.Tool == "purchase_cargo" {
			t.Fatalf("the vetoed purchase came back: %s %s", c.Tool, c.Args)
		}
	}
	if got := tools(calls); got != "orbit_ship,create_survey" && got != "orbit_ship,extract_resources" {
		t.Errorf("after a vetoed purchase: calls %s, want to orbit and mine instead", got)
	}
	if !strings.Contains(reply.Text, "you vetoed purchase_cargo") {
		t.Errorf("text does not say why it changed course:\n%s", reply.Text)
	}
}

func TestFailedCallIsNotRetriedUnchanged(t *testing.T) {
	t.Parallel()
	f := newFake()
	b := newBrain(f, func() time.Time { return t0 })
	reply, _ := step(t, b, nil)
	msgs := []agent.Message{{Role: agent.RoleAssistant, ToolCalls: reply.Calls}}
	for _, c := range reply.Calls {
		text := "ok"
		if c.Tool == "navigate_ship" {
			text = "navigate_ship refused: game error 4203: Navigation failed: not enough fuel."
		}
		msgs = append(msgs, agent.Message{Role: agent.RoleTool, ToolCallID: c.ID, Content: text})
	}
	_, calls := step(t, b, msgs)
	for _, c := range calls {
		if c.Tool == "navigate_ship" && args(t, c)["waypointSymbol"] == "X1-T-B1" {
			t.Fatalf("navigation to X1-T-B1 refused by the game was proposed again at once: %s", tools(calls))
		}
	}
	if len(calls) == 0 {
		t.Fatalf("no alternative after the refusal; want another source (the asteroid X1-T-C1)")
	}
}

func TestBusyShipsMakeNoCalls(t *testing.T) {
	t.Parallel()
	f := newFake()
	f.ships[0].Nav.Status = st.InTransit
	f.ships[0].Nav.WaypointSymbol = "X1-T-B1"
	f.ships[0].Nav.Route.Arrival = t0.Add(90 * time.Second)
	b := newBrain(f, func() time.Time { return t0 })
	b.MaxInlineWait = 0
	reply, calls := step(t, b, nil)
	if len(calls) != 0 {
		t.Fatalf("every ship in transit: calls %s, want none", tools(calls))
	}
	if !strings.Contains(reply.Text, "arrives at 03:05:35Z") {
		t.Errorf("text does not say what it waits for:\n%s", reply.Text)
	}
}

func TestWaitsInlineForAShortCooldown(t *testing.T) {
	t.Parallel()
	f := newFake()
	now := t0
	f.ships[0].Nav.WaypointSymbol, f.ships[0].Nav.Status = "X1-T-C1", st.InOrbit
	f.ships[0].Cooldown.Expiration = t0.Add(10 * time.Second)
	b := newBrain(f, func() time.Time { return now })
	var slept time.Duration
	b.sleep = func(_ context.Context, d time.Duration) error { slept += d; now = now.Add(d); return nil }
	_, calls := step(t, b, nil)
	if slept < 10*time.Second || slept > 11*time.Second {
		t.Errorf("waited %s inline for a 10 s cooldown with no idle time from the game", slept)
	}
	if len(calls) == 0 {
		t.Fatalf("after the cooldown: no calls, want to survey or mine")
	}
}

func TestAdviceGoesIntoNotesAndSetsPreference(t *testing.T) {
	t.Parallel()
	f := newFake()
	b := newBrain(f, func() time.Time { return t0 })
	step(t, b, nil)
	msgs := []agent.Message{
		{Role: agent.RoleUser, Content: "# Observation (step 2)\n\n..."},
		{Role: agent.RoleUser, Content: "# Advice from the person\n\n> don't buy the ore, mine it\n\nFirst fold this advice into your notes."},
	}
	reply, _ := step(t, b, msgs)
	var notes string
	for _, c := range reply.Calls {
		if c.Tool == agent.ToolUpdateNotes && args(t, c)["section"] == "Advice" {
			notes, _ = args(t, c)["text"].(string)
		}
	}
	if !strings.Contains(notes, "don't buy the ore, mine it") {
		t.Errorf("the Advice section does not hold the advice: %q", notes)
	}
	if !b.mem.preferMine || !strings.Contains(reply.Text, "prefer mining") {
		t.Errorf("advice %q not read as a preference for mining; text:\n%s", "don't buy the ore, mine it", reply.Text)
	}
}

func TestPreference(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in         string
		mine, want bool
	}{
		{"mine it yourself", true, true},
		{"please buy the ore", false, true},
		{"don't buy, it is too dear", true, true},
		{"stop mining and buy", false, true},
		{"hello there", false, false},
	} {
		mine, ok := preference(c.in)
		if ok != c.want || (ok && mine != c.mine) {
			t.Errorf("preference(%q) = %v, %v; want %v, %v", c.in, mine, ok, c.mine, c.want)
		}
	}
}

func TestNotesAreWrittenOnlyWhenTheyChange(t *testing.T) {
	t.Parallel()
	f := newFake()
	f.ships[0].Nav.Status = st.InTransit
	f.ships[0].Nav.Route.Arrival = t0.Add(time.Hour)
	b := newBrain(f, func() time.Time { return t0 })
	b.MaxInlineWait = 0
	first, _ := step(t, b, nil)
	if len(first.Calls) == 0 {
		t.Fatal("first step wrote no notes or plan")
	}
	second, _ := step(t, b, nil)
	if len(second.Calls) != 0 {
		t.Errorf("nothing changed, yet the second step made calls: %s", tools(second.Calls))
	}
}

func TestSurveysAreReadFromTheToolText(t *testing.T) {
	t.Parallel()
	m := newMemory()
	m.learnSurveys("2 surveys of T-1; cooldown 6s. To mine one, pass it whole as extract_resources' survey:\n" +
		`{"signature":"X1-T-C1-ABCDE","symbol":"X1-T-C1","deposits":[{"symbol":"IRON_ORE"},{"symbol":"IRON_ORE"},{"symbol":"QUARTZ_SAND"}],"expiration":"2026-01-02T04:00:00Z","size":"SMALL"}` + "\n" +
		`{"signature":"X1-T-C1-FGHIJ","symbol":"X1-T-C1","deposits":[{"symbol":"COPPER_ORE"}],"expiration":"2026-01-02T04:00:00Z","size":"LARGE"}`)
	if got := len(m.surveys["X1-T-C1"]); got != 2 {
		t.Fatalf("read %d surveys, want 2 (unreadable=%v)", got, m.surveysUnreadable)
	}
	sv := m.bestSurvey("X1-T-C1", "IRON_ORE", t0)
	if sv == nil || sv.Signature != "X1-T-C1-ABCDE" {
		t.Errorf("best survey for IRON_ORE = %v, want X1-T-C1-ABCDE", sv)
	}
}

func TestInvalidCallStaysBlockedAfterTheShipMoves(t *testing.T) {
	t.Parallel()
	m := newMemory()
	m.step = 1
	m.result(issued{key: "set_flight_mode|T-1|BURN", tool: "set_flight_mode", at: situation{"A", "a"}},
		map[string]any{"shipSymbol": "T-1", "flightMode": "BURN"}, "not executed: invalid arguments")
	m.step = 3
	if m.blocked("set_flight_mode|T-1|BURN", situation{"B", "b"}) == "" {
		t.Error("an invalid call was unblocked by the ship moving; the same arguments would fail again")
	}
}

// BenchmarkDecide measures one step's decision on the constructed world, without I/O.
func BenchmarkDecide(b *testing.B) {
	f := newFake()
	br := newBrain(f, func() time.Time { return t0 })
	w, err := br.read(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		(&decider{w: w, mem: br.mem}).decide()
	}
}

// BenchmarkPlayContract measures a whole starting contract against the offline universe
// at Speed 400: reports steps per contract.
func BenchmarkPlayContract(b *testing.B) {
	var steps int
	for b.Loop() {
		res := playContract(b, 1, 300, 40*time.Second)
		if !res.fulfilled {
			b.Fatalf("contract not fulfilled")
		}
		steps = res.steps
	}
	b.ReportMetric(float64(steps), "steps/contract")
}

// answer builds the conversation after reply: each call answered "ok" unless results
// says otherwise, and the person's advice, if any.
func answer(reply agent.Reply, results map[string]string, advice string) []agent.Message {
	msgs := []agent.Message{{Role: agent.RoleAssistant, Content: reply.Text, ToolCalls: reply.Calls}}
	for _, c := range reply.Calls {
		text, ok := results[c.Tool]
		if !ok {
			text = "ok"
		}
		msgs = append(msgs, agent.Message{Role: agent.RoleTool, ToolCallID: c.ID, Content: text})
	}
	if advice != "" {
		msgs = append(msgs, agent.Message{Role: agent.RoleUser, Content: "## Advice from the person\n> " + advice + "\n"})
	}
	return msgs
}

func hasCall(calls []agent.ToolCall, tool, arg, value string) bool {
	for _, c := range calls {
		var a map[string]any
		_ = json.Unmarshal(c.Args, &a)
		if c.Tool == tool && a[arg] == value {
			return true
		}
	}
	return false
}

// Issue 41: a veto "keep CRUISE to save fuel" was followed by the same BURN call once the
// person gave advice. A vetoed flight mode stays vetoed where the ship is, advice or not,
// and the reason is honoured: CRUISE from then on, wherever the ship goes.
func TestVetoedFlightModeStaysVetoedAndItsReasonHolds(t *testing.T) {
	t.Parallel()
	f := newFake()
	f.markets["X1-T-B1"] = st.Market{Symbol: "X1-T-B1", Exchange: goods("IRON_ORE", "FUEL")}
	b := newBrain(f, func() time.Time { return t0 })
	reply, calls := step(t, b, nil)
	if !hasCall(calls, "set_flight_mode", "flightMode", "BURN") {
		t.Fatalf("the first trip is not a BURN: %s; the test needs one", tools(calls))
	}
	vetoed := "not executed: vetoed by the person"
	msgs := answer(reply, map[string]string{
		"set_flight_mode": vetoed + ": keep CRUISE to save fuel. Do not repeat this call unchanged.",
		"orbit_ship":      vetoed + ". Do not repeat this call unchanged.",
		"navigate_ship":   vetoed + ". Do not repeat this call unchanged.",
	}, "")
	reply, calls = step(t, b, msgs)
	if hasCall(calls, "set_flight_mode", "flightMode", "BURN") {
		t.Fatalf("BURN proposed again right after its veto: %s", tools(calls))
	}
	if !strings.Contains(reply.Text, "Flight modes: I will fly CRUISE") {
		t.Errorf("the reply does not say it took the veto's reason:\n%s", reply.Text)
	}
	// Advice it cannot read lifts the other vetoes, not the flight mode's.
	reply, calls = step(t, b, answer(reply, nil, "please get moving"))
	if hasCall(calls, "set_flight_mode", "flightMode", "BURN") {
		t.Fatalf("BURN proposed again after advice: %s", tools(calls))
	}
	if !hasCall(calls, "navigate_ship", "shipSymbol", "T-1") {
		t.Errorf("after advice the ship does not set off: %s\n%s", tools(calls), reply.Text)
	}
	// Elsewhere, the wish still holds.
	f.ships[0].Nav.WaypointSymbol = "X1-T-C1"
	_, calls = step(t, b, answer(reply, nil, ""))
	if hasCall(calls, "set_flight_mode", "flightMode", "BURN") {
		t.Errorf("BURN proposed elsewhere although the person asked for CRUISE: %s", tools(calls))
	}
}

// "BURN wastes fuel" speaks against BURN, and "don't burn" too.
func TestReadModeWish(t *testing.T) {
	t.Parallel()
	said := [][2]string{
		{"keep CRUISE to save fuel", "fly CRUISE where the fuel allows"},
		{"don't burn", "avoid BURN"},
		{"no BURN, drift instead", "fly DRIFT where the fuel allows, avoid BURN"},
		{"mine it", ""},
	}
	for _, s := range said {
		if got := readModeWish(s[0]).says(); got != s[1] {
			t.Errorf("readModeWish(%q) says %q, want %q", s[0], got, s[1])
		}
	}
}

// Each game call carries its own reason, so the screen's "why:" is that call's, not the
// step's greeting (issue 41).
func TestEveryGameCallHasItsOwnWhy(t *testing.T) {
	t.Parallel()
	f := newFake()
	b := newBrain(f, func() time.Time { return t0 })
	_, calls := step(t, b, nil)
	if len(calls) == 0 {
		t.Fatal("no calls")
	}
	for _, c := range calls {
		if c.Why == "" || strings.HasPrefix(c.Why, "Autopilot here") {
			t.Errorf("%s %s: why %q", c.Tool, c.Args, c.Why)
		}
	}
}
