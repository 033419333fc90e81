package spacetraders

import (
	"fmt"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/game"
)

// The catalogue, as `coplay tools` lists it: names in order, kinds, and which tools have
// a dry run. Each is defined once (tools.go); this pins what a change to it changes.
func TestCatalogNamesKindsAndDryRuns(t *testing.T) {
	want := `observe_game read
observe_detail read
orbit_ship act dry
dock_ship act dry
navigate_ship act dry
set_flight_mode act
refuel_ship act dry
purchase_cargo act dry
sell_cargo act dry
jettison_cargo act
transfer_cargo act
create_survey act
extract_resources act
accept_contract act dry
deliver_contract act
fulfill_contract act dry
negotiate_contract act
purchase_ship act
create_chart act
jump_ship act`
	var got []string
	ops := toolOperations()
	for _, tl := range Catalog() {
		line := tl.Name + " " + tl.Kind.String()
		if tl.DryRun {
			line += " dry"
		}
		got = append(got, line)
		if tl.Run == nil || (tl.DryRun != (tl.Simulate != nil)) {
			t.Errorf("%s: built without its handler or with a dry-run flag that does not match", tl.Name)
		}
		if (tl.Kind == game.Act) != (ops[tl.Name] != "") {
			t.Errorf("%s: an Act tool names the spec operation it calls, a look does not (op %q)", tl.Name, ops[tl.Name])
		}
		if tl.Check == nil && tl.Name != "observe_game" {
			t.Errorf("%s: has arguments but no checks", tl.Name)
		}
	}
	if g := strings.Join(got, "\n"); g != want {
		t.Errorf("catalogue:\n%s\nwant:\n%s", g, want)
	}
}

// Simulate answers ok=false, and says so, for a tool without a dry run or an unknown one.
func TestSimulateWithoutDryRun(t *testing.T) {
	g := New(Config{BaseURL: "http://127.0.0.1:1/v2"})
	for _, name := range []string{"jettison_cargo", "no_such_tool"} {
		sim, ok, err := g.Simulate(t.Context(), name, []byte(`{}`))
		if ok || err != nil || sim.Summary != name+" cannot be predicted" {
			t.Errorf("%s: %+v %v %v", name, sim, ok, err)
		}
	}
	if _, err := g.Call(t.Context(), "no_such_tool", nil); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", "no_such_tool")) {
		t.Errorf("calling an unknown tool: %v", err)
	}
}
