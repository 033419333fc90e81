package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/spacetraders"
	"github.com/coplayhq/coplay/game/universe"
)

// shipGame is a tiny ship game in the shape of SpaceTraders whose dry runs report
// Effects: navigate_ship predicts the fuel a trip takes (NEAR 40, FAR 300; twice that
// at BURN) and fails while the ship is docked. It counts every call that reaches it.
type shipGame struct {
	mu     sync.Mutex
	docked bool
	mode   string
	fuel   int
	calls  []string
}

type shipArgs struct {
	ShipSymbol string `json:"shipSymbol"`
}

type (
	shipMode  string
	shipWhere string
)

type shipModeArgs struct {
	ShipSymbol string   `json:"shipSymbol"`
	FlightMode shipMode `json:"flightMode"`
}

type shipNavArgs struct {
	ShipSymbol     string    `json:"shipSymbol"`
	WaypointSymbol shipWhere `json:"waypointSymbol"`
}

func newShipGame() *shipGame { return &shipGame{docked: true, mode: "CRUISE", fuel: 400} }

func (g *shipGame) Info() game.Info {
	return game.Info{Name: "ship", Title: "Ship (test)", Rules: "Fly the ship."}
}

func (g *shipGame) Tools() []game.Tool {
	return []game.Tool{
		{Name: "view_ship", Kind: game.Read, Description: "look at the ship", Schema: game.SchemaFor[shipArgs]()},
		{Name: "orbit_ship", Kind: game.Act, Description: "undock", Schema: game.SchemaFor[shipArgs]()},
		{Name: "dock_ship", Kind: game.Act, Description: "dock", Schema: game.SchemaFor[shipArgs]()},
		{Name: "set_flight_mode", Kind: game.Act, Description: "flight mode",
			Schema: game.SchemaFor[shipModeArgs](game.WithEnum[shipMode]("mode", "CRUISE", "BURN", "DRIFT"))},
		// Its dry run reports fuel and seconds; cost is declared but never reported here.
		{Name: "navigate_ship", Kind: game.Act, Description: "fly", DryRun: true, Effects: []string{"fuel", "seconds", "cost"},
			Schema: game.SchemaFor[shipNavArgs](game.WithEnum[shipWhere]("where", "NEAR", "FAR"))},
	}
}

func (g *shipGame) Observe(context.Context) (game.Observation, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return game.Observation{Summary: fmt.Sprintf("docked=%v mode=%s fuel=%d", g.docked, g.mode, g.fuel), Time: time.Now()}, nil
}

func (g *shipGame) Call(_ context.Context, name string, args json.RawMessage) (game.Result, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls = append(g.calls, name+" "+string(args))
	switch name {
	case "orbit_ship":
		g.docked = false
	case "dock_ship":
		g.docked = true
	case "set_flight_mode":
		var a shipModeArgs
		_ = json.Unmarshal(args, &a)
		g.mode = string(a.FlightMode)
	case "navigate_ship":
		sim := g.predict(args)
		if sim.Fails {
			return game.Result{Err: &game.Error{Code: 4236, Message: sim.Summary}}, nil
		}
		g.fuel -= int(sim.Effects["fuel"])
	}
	return game.Result{Output: "ok"}, nil
}

func (g *shipGame) Simulate(_ context.Context, name string, args json.RawMessage) (game.Simulation, bool, error) {
	if name != "navigate_ship" {
		return game.Simulation{}, false, nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.predict(args), true, nil
}

func (g *shipGame) predict(args json.RawMessage) game.Simulation {
	var a shipNavArgs
	_ = json.Unmarshal(args, &a)
	if g.docked {
		return game.Simulation{Summary: "would fail (4236): the ship must be in orbit first", Fails: true}
	}
	fuel := 40.0
	if a.WaypointSymbol == "FAR" {
		fuel = 300
	}
	if g.mode == "BURN" {
		fuel *= 2
	}
	return game.Simulation{Summary: fmt.Sprintf("uses %g fuel", fuel), Effects: map[string]float64{"fuel": fuel, "seconds": fuel}}
}

func (g *shipGame) callLog() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.calls...)
}

// TestGateRules is the gate's table: for a rule set (fixed rules through
// Config.Rules), --approve all, and the ship docked or in orbit, what one proposed call
// gets: a decision by a rule (naming it), by policy, or the question to the person.
func TestGateRules(t *testing.T) {
	t.Parallel()
	const ship = `{"shipSymbol":"S-1"}`
	nav := func(where string) string { return `{"shipSymbol":"S-1","waypointSymbol":"` + where + `"}` }
	mode := func(m string) string { return `{"shipSymbol":"S-1","flightMode":"` + m + `"}` }
	cases := []struct {
		name       string
		rules      []string
		approveAll bool
		inOrbit    bool
		tool, args string
		want       agent.Verdict // "" = asks
		by, rule   string
	}{
		{"no rule asks", nil, false, false, "orbit_ship", ship, "", "", ""},
		{"no rule under approve all", nil, true, false, "orbit_ship", ship, agent.Approve, "policy", ""},
		{"allow", []string{"allow orbit_ship"}, false, false, "orbit_ship", ship, agent.Approve, "rule", "allow orbit_ship"},
		{"allow another tool asks", []string{"allow orbit_ship"}, false, false, "dock_ship", ship, "", "", ""},
		{"deny beats allow, whatever the order", []string{"deny dock_ship: stay up", "allow dock_ship"}, false, false, "dock_ship", ship, agent.Veto, "rule", "deny dock_ship: stay up"},
		{"deny beats allow, other order", []string{"allow dock_ship", "deny dock_ship: stay up"}, false, false, "dock_ship", ship, agent.Veto, "rule", "deny dock_ship: stay up"},
		{"deny beats a glob allow", []string{"allow *", "deny dock_ship"}, false, false, "dock_ship", ship, agent.Veto, "rule", "deny dock_ship"},
		{"glob allow", []string{"allow *_ship", "deny dock_ship"}, false, false, "orbit_ship", ship, agent.Approve, "rule", "allow *_ship"},
		{"deny even under approve all", []string{"deny dock_ship"}, true, false, "dock_ship", ship, agent.Veto, "rule", "deny dock_ship"},
		{"ask beats allow", []string{"allow dock_ship", "ask dock_ship"}, false, false, "dock_ship", ship, "", "", ""},
		{"ask asks under approve all", []string{"ask dock_ship"}, true, false, "dock_ship", ship, "", "", ""},
		{"deny beats ask", []string{"ask dock_ship", "deny dock_ship"}, true, false, "dock_ship", ship, agent.Veto, "rule", "deny dock_ship"},
		{"argument matches", []string{"allow set_flight_mode(flightMode=CRUISE)"}, false, false, "set_flight_mode", mode("CRUISE"), agent.Approve, "rule", "allow set_flight_mode(flightMode=CRUISE)"},
		{"argument differs asks", []string{"allow set_flight_mode(flightMode=CRUISE)"}, false, false, "set_flight_mode", mode("BURN"), "", "", ""},
		{"argument glob", []string{"allow set_flight_mode(flightMode=[CD]*)"}, false, false, "set_flight_mode", mode("DRIFT"), agent.Approve, "rule", "allow set_flight_mode(flightMode=[CD]*)"},
		{"condition holds", []string{"allow navigate_ship if fuel <= 100"}, false, true, "navigate_ship", nav("NEAR"), agent.Approve, "rule", "allow navigate_ship if fuel <= 100"},
		{"condition fails asks", []string{"allow navigate_ship if fuel <= 100"}, false, true, "navigate_ship", nav("FAR"), "", "", ""},
		{"two conditions", []string{"allow navigate_ship if fuel <= 100 and seconds < 40"}, false, true, "navigate_ship", nav("NEAR"), "", "", ""},
		{"effect not predicted asks", []string{"allow navigate_ship if cost <= 100"}, false, true, "navigate_ship", nav("NEAR"), "", "", ""},
		{"predicted failure asks", []string{"allow navigate_ship if fuel <= 100"}, false, false, "navigate_ship", nav("NEAR"), "", "", ""},
		{"predicted failure: approve all still applies", []string{"allow navigate_ship if fuel <= 100"}, true, false, "navigate_ship", nav("NEAR"), agent.Approve, "policy", ""},
		{"conditional deny", []string{"allow navigate_ship", "deny navigate_ship if fuel > 200: too far"}, true, true, "navigate_ship", nav("FAR"), agent.Veto, "rule", "deny navigate_ship if fuel > 200: too far"},
		{"conditional deny does not apply", []string{"allow navigate_ship", "deny navigate_ship if fuel > 200: too far"}, false, true, "navigate_ship", nav("NEAR"), agent.Approve, "rule", "allow navigate_ship"},
		{"read tools run", []string{"ask view_ship"}, false, false, "view_ship", ship, agent.Auto, "policy", ""},
		{"deny covers read tools", []string{"deny view_ship: no peeking"}, false, false, "view_ship", ship, agent.Veto, "rule", "deny view_ship: no peeking"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := newShipGame()
			g.docked = !tc.inOrbit
			var fixed []agent.FixedRule
			for _, l := range tc.rules {
				fixed = append(fixed, agent.FixedRule{Line: l, From: "test"})
			}
			b := &scriptBrain{replies: []scripted{say("", tc.tool, tc.args)}}
			h := startGame(t, g, b, nil, func(c *agent.Config) { c.Rules, c.ApproveAll = fixed, tc.approveAll })
			c := h.proposed(tc.tool)
			if tc.want == "" {
				if !c.NeedsOK {
					d := h.next("decision", is(agent.EventDecision))
					t.Fatalf("the call did not ask: %+v", d.Decision)
				}
				h.next("deciding", isState(agent.Deciding))
			} else {
				d := h.next("decision", is(agent.EventDecision)).Decision
				if c.NeedsOK || d.Decision != tc.want || d.By != tc.by || d.Rule != tc.rule {
					t.Fatalf("needs_ok %v, decision %+v; want %s by %s rule %q", c.NeedsOK, d, tc.want, tc.by, tc.rule)
				}
				if d.Decision == agent.Veto && !strings.Contains(tc.rule, d.Reason) {
					t.Errorf("veto reason %q is not the rule's", d.Reason)
				}
			}
			if err := h.finish(); err != nil {
				t.Fatal(err)
			}
			for _, call := range g.callLog() {
				if tc.want == agent.Veto || tc.want == "" {
					t.Errorf("the game received %s", call)
				}
			}
		})
	}
}

// TestBadFixedRulesStopNew: a rule from the config file or a profile that does not
// parse, or names a tool the game does not have, stops the start with where it came
// from and what is wrong.
func TestBadFixedRulesStopNew(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]string{
		"alow orbit_ship":                     `column 1: expected allow, ask or deny, got "alow" (did you mean allow?)`,
		"allow orbit_shp":                     `no tool "orbit_shp"; did you mean orbit_ship`,
		"allow orbit_ship(flightMode=CRUISE)": `orbit_ship takes no argument "flightMode"`,
		"allow dock_ship if fuel < 3":         "no dry run",
		"allow navigate_ship if fule <= 100":  `navigate_ship predicts no "fule"; did you mean fuel?`,
	} {
		_, err := agent.New(agent.Config{Game: newShipGame(), Brain: &scriptBrain{}, Session: newSession(t),
			Rules: []agent.FixedRule{{Line: line, From: "profile p/x"}}})
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "profile p/x") {
			t.Errorf("%q: err = %v, want %q and where it came from", line, err, want)
		}
	}
}

// rulesHeadless runs Headless over g with a brain that first ends its turn (so the
// rules arrive before any call), then proposes the calls given.
func rulesHeadless(t *testing.T, g game.Game, calls ...string) (*headlessRun, *scriptBrain) {
	t.Helper()
	b := &scriptBrain{replies: []scripted{say("Ready."), say("Undock, set the mode, dock, fly.", calls...)}}
	r, _ := newRunner(t, g, b, nil, nil)
	h := runHeadless(t, r)
	h.lines.Buffer(make([]byte, 0, 1<<16), 1<<22)
	// An event that never comes fails the test ("output ended before …") instead of
	// hanging it.
	watchdog := time.AfterFunc(60*time.Second, func() { h.out.Close() })
	t.Cleanup(func() { watchdog.Stop() })
	return h, b
}

const dockReason = "stay in orbit, the station is hostile"

// rulesCommands are the done-when rules, sent as headless commands.
var rulesCommands = []string{
	`{"cmd":"rule","rule":"allow orbit_ship"}`,
	`{"cmd":"rule","rule":"allow set_flight_mode(flightMode=CRUISE)"}`,
	`{"cmd":"rule","rule":"allow dock_ship"}`,
	`{"cmd":"rule","rule":"deny dock_ship: ` + dockReason + `"}`,
	`{"cmd":"rule","rule":"allow navigate_ship if fuel <= 100"}`,
}

// headlessRulesScenario sends the rules, then lets the model propose orbit, CRUISE,
// BURN, dock and a navigation, and checks the first four: orbit and CRUISE run by
// rule, BURN asks (the person vetoes it), dock is denied without asking and never
// reaches the game. It returns the navigation call and the events up to the moment it
// is decided at its turn (a decision) or put to the person (tool_updated).
func headlessRulesScenario(t *testing.T, h *headlessRun) (ids []string, turn map[string]any) {
	t.Helper()
	h.next("idle", func(ev map[string]any) bool { return ev["type"] == "state" && ev["state"] == "idle" })
	// A bad rule is refused with the parser's column, and a tool the game lacks with
	// the closest names; neither changes the rules.
	h.write(`{"cmd":"rule","rule":"allow navigate_ship if fuel =< 100"}`)
	if e := h.next("error", ofType("error")); !strings.Contains(e["text"].(string), "column 29: expected one of < <= > >= = !=") {
		t.Errorf("bad rule error: %v", e["text"])
	}
	h.write(`{"cmd":"rule","rule":"deny dock_shp"}`)
	if e := h.next("error", ofType("error")); !strings.Contains(e["text"].(string), "did you mean dock_ship") {
		t.Errorf("unknown tool error: %v", e["text"])
	}
	// A condition on a number the dry run never predicts could never apply.
	h.write(`{"cmd":"rule","rule":"allow navigate_ship if fule <= 100"}`)
	if e := h.next("error", ofType("error")); !strings.Contains(e["text"].(string), `predicts no "fule"; did you mean fuel?`) {
		t.Errorf("unknown effect error: %v", e["text"])
	}
	for i, c := range rulesCommands {
		h.write(c)
		ev := h.next("rules_changed", ofType("rules_changed"))
		if got := ev["rules"].([]any); len(got) != i+1 {
			t.Fatalf("rules after %d commands: %v", i+1, got)
		}
	}
	h.write(`{"cmd":"advise","text":"go"}`)

	callOf := func(ev map[string]any) map[string]any { return ev["call"].(map[string]any) }
	byID := map[string]string{} // call id → tool
	var nav map[string]any
	decisions := map[string]map[string]any{}
	started := map[string]bool{}
	var burn map[string]any
	for burn == nil {
		ev := h.next("events", func(map[string]any) bool { return true })
		switch ev["type"] {
		case "tool_proposed":
			c := callOf(ev)
			byID[c["id"].(string)] = c["tool"].(string)
			ids = append(ids, c["id"].(string))
			switch args, _ := json.Marshal(c["args"]); {
			case c["tool"] == "set_flight_mode" && strings.Contains(string(args), "BURN"):
				if c["needs_ok"] != true {
					t.Errorf("BURN does not ask: %v", c)
				}
			case c["tool"] == "navigate_ship":
				nav = c
				if c["needs_ok"] != false || c["deferred"] != true {
					t.Errorf("the navigation after orbit is not deferred to its turn: %v", c)
				}
			}
		case "decision":
			d := ev["decision"].(map[string]any)
			decisions[d["call_id"].(string)] = d
		case "tool_started":
			started[callOf(ev)["id"].(string)] = true
		case "state":
			if ev["state"] == "waiting_for_decision" {
				burn = ev
			}
		}
	}
	if len(ids) != 5 || nav == nil {
		t.Fatalf("proposals: %v", byID)
	}
	want := []struct{ verdict, rule string }{
		{"approve", "allow orbit_ship"},
		{"approve", "allow set_flight_mode(flightMode=CRUISE)"},
		{"", ""},
		{"veto", "deny dock_ship: " + dockReason},
	}
	for i, w := range want {
		d := decisions[ids[i]]
		if w.verdict == "" {
			if d != nil {
				t.Errorf("%s was decided without the person: %v", byID[ids[i]], d)
			}
			continue
		}
		if d == nil || d["decision"] != w.verdict || d["by"] != "rule" || d["rule"] != w.rule {
			t.Errorf("%s: decision %v, want %s by rule %q", byID[ids[i]], d, w.verdict, w.rule)
		}
	}
	if !started[ids[0]] || !started[ids[1]] {
		t.Errorf("orbit and CRUISE did not run before BURN asked: %v", started)
	}
	// The person vetoes BURN; dock is answered from its rule; the navigation's turn comes.
	h.write(fmt.Sprintf(`{"cmd":"decide","call_id":%q,"decision":"veto","reason":"keep the fuel"}`, ids[2]))
	turn = h.next("the navigation's turn", func(ev map[string]any) bool {
		if ev["type"] == "tool_started" && callOf(ev)["id"] == ids[3] {
			t.Fatalf("dock ran: %v", ev)
		}
		if ev["type"] == "decision" && ev["decision"].(map[string]any)["call_id"] == nav["id"] {
			return true
		}
		return ev["type"] == "tool_updated" && callOf(ev)["id"] == nav["id"]
	})
	return ids, turn
}

// finishRulesScenario waits for the end of the turn and checks what the model read
// about the denied dock.
func finishRulesScenario(t *testing.T, h *headlessRun, b *scriptBrain, dockID string) {
	t.Helper()
	h.next("idle", func(ev map[string]any) bool { return ev["type"] == "state" && ev["state"] == "idle" })
	reqs := b.requests()
	msg, ok := toolMessage(reqs[len(reqs)-1], dockID)
	if !ok || !strings.Contains(msg, "not executed: a rule says: "+dockReason) {
		t.Errorf("the model read %q about dock, want the rule's reason", msg)
	}
	h.in.Close()
	h.next("stopped", func(ev map[string]any) bool { return ev["type"] == "state" && ev["state"] == "stopped" })
	if err := <-h.done; err != nil {
		t.Fatal(err)
	}
}

var scenarioCalls = func(nav string) []string {
	return []string{
		"orbit_ship", `{"shipSymbol":"%[1]s"}`,
		"set_flight_mode", `{"shipSymbol":"%[1]s","flightMode":"CRUISE"}`,
		"set_flight_mode", `{"shipSymbol":"%[1]s","flightMode":"BURN"}`,
		"dock_ship", `{"shipSymbol":"%[1]s"}`,
		"navigate_ship", `{"shipSymbol":"%[1]s","waypointSymbol":"` + nav + `"}`,
	}
}

func forShip(ship string, calls []string) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		if i%2 == 1 {
			c = fmt.Sprintf(c, ship)
		}
		out[i] = c
	}
	return out
}

// TestHeadlessRulesOnATestGame is the done-when scenario on a game whose dry runs
// report Effects: the short navigation, proposed while the ship was docked (its dry run
// then predicted failure), runs by its fuel rule once orbit has run.
func TestHeadlessRulesOnATestGame(t *testing.T) {
	t.Parallel()
	g := newShipGame()
	h, b := rulesHeadless(t, g, forShip("S-1", scenarioCalls("NEAR"))...)
	ids, turn := headlessRulesScenario(t, h)
	if turn["type"] != "decision" {
		t.Fatalf("the short navigation asked: %v", turn)
	}
	d := turn["decision"].(map[string]any)
	if d["decision"] != "approve" || d["by"] != "rule" || d["rule"] != "allow navigate_ship if fuel <= 100" {
		t.Fatalf("navigation decision: %v", d)
	}
	h.next("navigation result", func(ev map[string]any) bool {
		return ev["type"] == "tool_result" && ev["call"].(map[string]any)["id"] == ids[4]
	})
	finishRulesScenario(t, h, b, ids[3])
	want := []string{
		`orbit_ship {"shipSymbol":"S-1"}`,
		`set_flight_mode {"shipSymbol":"S-1","flightMode":"CRUISE"}`,
		`navigate_ship {"shipSymbol":"S-1","waypointSymbol":"NEAR"}`,
	}
	if got := g.callLog(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the game received\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestHeadlessRulesOnTheOfflineUniverse is the done-when scenario against the offline
// universe over loopback. The navigation case needs SpaceTraders' dry runs to report
// Effects; until they do, it is skipped (after the rest has been checked).
func TestHeadlessRulesOnTheOfflineUniverse(t *testing.T) {
	t.Parallel()
	off, err := spacetraders.StartOffline(universe.Config{Seed: 7}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	defer off.Close()
	h, b := rulesHeadless(t, off.Game, forShip("COPLAY-1", scenarioCalls("X1-MA52-B1"))...)
	ids, turn := headlessRulesScenario(t, h)
	var sim map[string]any
	if turn["type"] == "tool_updated" {
		sim, _ = turn["call"].(map[string]any)["simulation"].(map[string]any)
	}
	if turn["type"] == "tool_updated" && (sim == nil || sim["effects"] == nil) {
		// Close the turn cleanly before skipping.
		h.write(fmt.Sprintf(`{"cmd":"decide","call_id":%q,"decision":"veto","reason":"not now"}`, ids[4]))
		h.next("idle", func(ev map[string]any) bool { return ev["type"] == "state" && ev["state"] == "idle" })
		t.Skip("spacetraders dry runs report no effects yet")
	}
	if turn["type"] == "tool_updated" {
		fuel, _ := sim["effects"].(map[string]any)["fuel"].(float64)
		if fuel <= 100 {
			t.Fatalf("a navigation predicted to use %g fuel asked: %v", fuel, turn)
		}
		t.Logf("X1-MA52-F1 takes %g fuel: it asks, as it should; pick a nearer waypoint to see it run by rule", fuel)
		h.write(fmt.Sprintf(`{"cmd":"decide","call_id":%q,"decision":"veto","reason":"not now"}`, ids[4]))
	} else if d := turn["decision"].(map[string]any); d["decision"] != "approve" || d["rule"] != "allow navigate_ship if fuel <= 100" {
		t.Fatalf("navigation decision: %v", d)
	}
	finishRulesScenario(t, h, b, ids[3])
}

// TestSessionRulesAndDeferredCallsSurviveARestart: the session's rules are kept in the
// notebook and announced at the next start (rules_changed); a call deferred to its turn
// when coplay stopped is deferred again on resume and decided by its rule once the
// call before it ran.
func TestSessionRulesAndDeferredCallsSurviveARestart(t *testing.T) {
	t.Parallel()
	g := newShipGame()
	sess := newSession(t)
	b := &scriptBrain{replies: []scripted{say("Ready."), say("Fly.",
		"orbit_ship", `{"shipSymbol":"S-1"}`,
		"navigate_ship", `{"shipSymbol":"S-1","waypointSymbol":"NEAR"}`)}}
	h := startGame(t, g, b, sess, nil)
	h.next("idle", isState(agent.Idle))
	h.send(agent.Command{Cmd: agent.CmdRule, Rule: "allow   navigate_ship if fuel<=100"})
	if ev := h.next("rules", is(agent.EventRules)); len(ev.Rules) != 1 || ev.Rules[0] != "allow navigate_ship if fuel <= 100" {
		t.Fatalf("rules = %q, want the canonical line", ev.Rules)
	}
	h.send(agent.Command{Cmd: agent.CmdAdvise, Text: "go"})
	orbit := h.proposed("orbit_ship")
	nav := h.proposed("navigate_ship")
	if !orbit.NeedsOK || nav.NeedsOK || !nav.Deferred {
		t.Fatalf("orbit %+v, navigate %+v: want orbit asking, navigate deferred", orbit, nav)
	}
	h.next("deciding", isState(agent.Deciding))
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
	if n := len(g.callLog()); n != 0 {
		t.Fatalf("the game received %v before any decision", g.callLog())
	}

	b2 := &scriptBrain{}
	h2 := startGame(t, g, b2, sess, nil)
	if ev := h2.next("rules at start", is(agent.EventRules)); len(ev.Rules) != 1 || ev.Rules[0] != "allow navigate_ship if fuel <= 100" {
		t.Fatalf("rules at start = %q", ev.Rules)
	}
	o2 := h2.proposed("orbit_ship")
	n2 := h2.proposed("navigate_ship")
	if o2.ID != orbit.ID || !o2.NeedsOK || n2.ID != nav.ID || n2.NeedsOK || !n2.Deferred {
		t.Fatalf("resumed: orbit %+v, navigate %+v", o2, n2)
	}
	h2.send(agent.Command{Cmd: agent.CmdDecide, CallID: o2.ID, Decision: agent.Approve})
	d := h2.next("navigate decision", func(ev agent.Event) bool {
		return ev.Type == agent.EventDecision && ev.Decision.CallID == nav.ID
	})
	if d.Decision.Decision != agent.Approve || d.Decision.By != "rule" || d.Decision.Rule != "allow navigate_ship if fuel <= 100" {
		t.Fatalf("navigate decision = %+v", d.Decision)
	}
	h2.next("navigate result", func(ev agent.Event) bool { return ev.Type == agent.EventResult && ev.Call.ID == nav.ID })
	if err := h2.finish(); err != nil {
		t.Fatal(err)
	}
	want := `orbit_ship {"shipSymbol":"S-1"}` + "\n" + `navigate_ship {"shipSymbol":"S-1","waypointSymbol":"NEAR"}`
	if got := strings.Join(g.callLog(), "\n"); got != want {
		t.Errorf("the game received\n%s\nwant\n%s", got, want)
	}
}
