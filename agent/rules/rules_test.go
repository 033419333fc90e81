package rules

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/game"
)

func TestParseExamples(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Rule
	}{
		{"allow orbit_ship", Rule{Action: Allow, Tool: "orbit_ship"}},
		{"allow set_flight_mode(flightMode=CRUISE)", Rule{Action: Allow, Tool: "set_flight_mode", Args: []ArgMatch{{"flightMode", "CRUISE"}}}},
		{"allow navigate_ship if fuel <= 100", Rule{Action: Allow, Tool: "navigate_ship", Conds: []Cond{{"fuel", LE, 100}}}},
		{"allow purchase_cargo if cost <= 5000", Rule{Action: Allow, Tool: "purchase_cargo", Conds: []Cond{{"cost", LE, 5000}}}},
		{"deny jettison_cargo: never throw cargo away", Rule{Action: Deny, Tool: "jettison_cargo", Reason: "never throw cargo away"}},
		{"  ask  purchase_cargo( symbol = \"IRON*\" , units=1? ) if cost > 1_000 and seconds != 0 :  think twice ",
			Rule{Action: Ask, Tool: "purchase_cargo", Args: []ArgMatch{{"symbol", "IRON*"}, {"units", "1?"}},
				Conds: []Cond{{"cost", GT, 1000}, {"seconds", NE, 0}}, Reason: "think twice"}},
		{"deny *: the game is paused for the night", Rule{Action: Deny, Tool: "*", Reason: "the game is paused for the night"}},
		{"allow sell_cargo if income >= -5.5", Rule{Action: Allow, Tool: "sell_cargo", Conds: []Cond{{"income", GE, -5.5}}}},
	} {
		got, err := Parse(tc.line)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.line, err)
			continue
		}
		if got.String() != tc.want.String() {
			t.Errorf("Parse(%q) = %s, want %s", tc.line, got, tc.want)
		}
		again, err := Parse(got.String())
		if err != nil || again.String() != got.String() {
			t.Errorf("round trip of %q: %v, %v", got.String(), again, err)
		}
	}
}

func TestParseErrorsSayColumnAndExpected(t *testing.T) {
	for _, tc := range []struct {
		line     string
		col      int
		expected string
		hint     string
	}{
		{"alow orbit_ship", 1, "allow, ask or deny", "did you mean allow?"},
		{"", 1, "allow, ask or deny", ""},
		{"allow", 6, "a tool name", ""},
		{"allow orbit_ship(", 18, "an argument name", ""},
		{"allow set_flight_mode(flightMode CRUISE)", 34, "= after flightMode", ""},
		{"allow set_flight_mode(flightMode=CRUISE", 40, ", or )", ""},
		{"allow navigate_ship if fuel =< 100", 29, "one of < <= > >= = !=", "write <= or >="},
		{"allow navigate_ship if fuel == 100", 29, "one of < <= > >= = !=", "equality is a single ="},
		{"allow navigate_ship if fuel <= lots", 32, "a number", ""},
		{"allow navigate_ship if <= 5", 24, "an effect name (cost, income, fuel, seconds, ...)", ""},
		{"deny jettison_cargo:", 21, "a reason after :", ""},
		{"allow orbit_ship please", 18, "if, : or the end of the rule", ""},
		{"allow navigate_ship if fuel < 5 or cost < 3", 33, "and, : or the end of the rule", ""},
		{"allow orbit_ship(shipSymbol=\"X-1)", 29, "a quoted value with its closing quote", ""},
		{"allow orbit_ship(shipSymbol=[)", 29, "a valid pattern for shipSymbol", "* matches anything, ? one character, [abc] a set"},
		{"allow orbit\nship", 12, "one line of printable text", ""},
		{"allow navigate_ship if fuel < NaN", 31, "a number", ""},
	} {
		_, err := Parse(tc.line)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("Parse(%q) = %v, want a ParseError", tc.line, err)
			continue
		}
		if pe.Col != tc.col || pe.Expected != tc.expected || pe.Hint != tc.hint {
			t.Errorf("Parse(%q): col %d expected %q hint %q; want col %d expected %q hint %q (%v)",
				tc.line, pe.Col, pe.Expected, pe.Hint, tc.col, tc.expected, tc.hint, err)
		}
	}
}

func mustSet(t *testing.T, lines ...string) Set {
	t.Helper()
	var s Set
	for _, l := range lines {
		r, err := Parse(l)
		if err != nil {
			t.Fatal(err)
		}
		s = append(s, r)
	}
	return s
}

func sim(fails bool, effects map[string]float64) *game.Simulation {
	return &game.Simulation{Summary: "x", Fails: fails, Effects: effects}
}

func TestPrecedenceDoesNotDependOnOrder(t *testing.T) {
	lines := []string{"allow dock_ship", "deny dock_ship: stay in orbit", "ask dock_ship(shipSymbol=X-2)"}
	orders := [][]int{{0, 1, 2}, {2, 1, 0}, {1, 0, 2}, {2, 0, 1}}
	for _, o := range orders {
		s := mustSet(t, lines[o[0]], lines[o[1]], lines[o[2]])
		r, ok := s.Decide(Call{Tool: "dock_ship", Args: json.RawMessage(`{"shipSymbol":"X-1"}`)})
		if !ok || r.Action != Deny || r.Reason != "stay in orbit" {
			t.Errorf("order %v: decided %v %v, want the deny", o, r, ok)
		}
	}
	s := mustSet(t, "allow dock_ship", "ask dock_ship(shipSymbol=X-2)")
	if r, _ := s.Decide(Call{Tool: "dock_ship", Args: json.RawMessage(`{"shipSymbol":"X-2"}`)}); r.Action != Ask {
		t.Errorf("ask must beat allow, got %v", r)
	}
	if r, _ := s.Decide(Call{Tool: "dock_ship", Args: json.RawMessage(`{"shipSymbol":"X-1"}`)}); r.Action != Allow {
		t.Errorf("only the allow covers X-1, got %v", r)
	}
	if _, ok := s.Decide(Call{Tool: "orbit_ship", Args: json.RawMessage(`{}`)}); ok {
		t.Error("no rule covers orbit_ship: Decide must say so")
	}
}

func TestArgumentPatterns(t *testing.T) {
	s := mustSet(t, "allow set_flight_mode(flightMode=CRUISE)", "allow purchase_cargo(symbol=*_ORE, units=[1-9])",
		"allow extract_resources(survey.size=LARGE)")
	for _, tc := range []struct {
		tool, args string
		want       bool
	}{
		{"set_flight_mode", `{"shipSymbol":"X-1","flightMode":"CRUISE"}`, true},
		{"set_flight_mode", `{"shipSymbol":"X-1","flightMode":"BURN"}`, false},
		{"set_flight_mode", `{"shipSymbol":"X-1"}`, false},
		{"purchase_cargo", `{"symbol":"IRON_ORE","units":5}`, true},
		{"purchase_cargo", `{"symbol":"IRON_ORE","units":15}`, false},
		{"purchase_cargo", `{"symbol":"FUEL","units":5}`, false},
		{"extract_resources", `{"shipSymbol":"X","survey":{"size":"LARGE"}}`, true},
		{"extract_resources", `{"shipSymbol":"X","survey":{"size":"SMALL"}}`, false},
		{"extract_resources", `{"shipSymbol":"X"}`, false},
		{"set_flight_mode", `not json`, false},
	} {
		_, ok := s.Decide(Call{Tool: tc.tool, Args: json.RawMessage(tc.args)})
		if ok != tc.want {
			t.Errorf("%s %s: applies=%v, want %v", tc.tool, tc.args, ok, tc.want)
		}
	}
}

func TestConditionsNeedASuccessfulDryRun(t *testing.T) {
	s := mustSet(t, "allow navigate_ship if fuel <= 100", "allow purchase_cargo if cost <= 5000 and cost > 0")
	for _, tc := range []struct {
		tool string
		sim  *game.Simulation
		want bool
	}{
		{"navigate_ship", sim(false, map[string]float64{"fuel": 38, "seconds": 60}), true},
		{"navigate_ship", sim(false, map[string]float64{"fuel": 100}), true},
		{"navigate_ship", sim(false, map[string]float64{"fuel": 101}), false},
		{"navigate_ship", sim(true, map[string]float64{"fuel": 38}), false},    // predicted failure
		{"navigate_ship", nil, false},                                          // no dry run
		{"navigate_ship", sim(false, map[string]float64{"seconds": 5}), false}, // effect not reported
		{"purchase_cargo", sim(false, map[string]float64{"cost": 4999}), true},
		{"purchase_cargo", sim(false, map[string]float64{"cost": 0}), false},
		{"purchase_cargo", sim(false, map[string]float64{"cost": 5001}), false},
	} {
		_, ok := s.Decide(Call{Tool: tc.tool, Args: json.RawMessage(`{}`), Sim: tc.sim})
		if ok != tc.want {
			t.Errorf("%s with %+v: applies=%v, want %v", tc.tool, tc.sim, ok, tc.want)
		}
	}
	for _, op := range []struct {
		line string
		v    float64
		want bool
	}{
		{"allow t if x < 5", 4, true}, {"allow t if x < 5", 5, false},
		{"allow t if x >= 5", 5, true}, {"allow t if x > 5", 5, false},
		{"allow t if x = 5", 5, true}, {"allow t if x != 5", 5, false},
	} {
		_, ok := mustSet(t, op.line).Decide(Call{Tool: "t", Sim: sim(false, map[string]float64{"x": op.v})})
		if ok != op.want {
			t.Errorf("%s with x=%v: %v, want %v", op.line, op.v, ok, op.want)
		}
	}
}

func TestCheckAgainstCatalogue(t *testing.T) {
	type shipArgs struct {
		ShipSymbol string `json:"shipSymbol"`
	}
	tools := []game.Tool{
		{Name: "orbit_ship", Kind: game.Act, Schema: game.SchemaFor[shipArgs]()},
		{Name: "navigate_ship", Kind: game.Act, Schema: game.SchemaFor[shipArgs](), DryRun: true},
	}
	for _, tc := range []struct{ line, want string }{
		{"allow orbit_shp", `no tool "orbit_shp"; did you mean orbit_ship?`},
		{"allow fly", `no tool "fly" (tools: navigate_ship, orbit_ship)`},
		{"allow orbit_ship(ship=X)", `orbit_ship takes no argument "ship"; did you mean shipSymbol?`},
		{"allow orbit_ship if fuel < 3", "orbit_ship has no dry run, so an if condition could never apply"},
		{"allow navigate_ship if fuel < 3", ""},
		{"deny *_ship(shipSymbol=X-*)", ""},
	} {
		_, err := ParseChecked(tc.line, tools)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.line, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.line, err, tc.want)
		}
	}
}

func TestCheckNamesAnEffectTheDryRunDoesNotPredict(t *testing.T) {
	tools := []game.Tool{
		{Name: "navigate_ship", Kind: game.Act, DryRun: true, Effects: []string{"fuel", "seconds"}},
		{Name: "refuel_ship", Kind: game.Act, DryRun: true, Effects: []string{"cost", "fuel_added"}},
		{Name: "warp", Kind: game.Act, DryRun: true}, // effects not declared
	}
	for line, want := range map[string]string{
		"allow navigate_ship if fule <= 100":               `navigate_ship predicts no "fule"; did you mean fuel? (a condition can name fuel, seconds)`,
		"allow navigate_ship if fuel <= 100 and cost < 10": `predicts no "cost"`,
		"deny refuel_ship if fuel > 3":                     `refuel_ship predicts no "fuel"; did you mean fuel_added?`,
		"allow navigate_ship if fuel <= 100":               "",
		"allow *_ship if fuel <= 100":                      "", // a glob over both: fuel is navigate_ship's
		"allow warp if anything < 1":                       "",
	} {
		_, err := ParseChecked(line, tools)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: err = %v, want %q", line, err, want)
		}
	}
}
