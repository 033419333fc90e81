package openapi

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/coplayhq/coplay/game"
)

// specOperationIDs reads the operationIds straight from the spec's JSON, independently
// of libopenapi, to check the catalogue against.
func specOperationIDs(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(data, &spec); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, item := range spec.Paths {
		for method, raw := range item {
			if method == "parameters" || method == "summary" || method == "description" {
				continue
			}
			var op struct {
				OperationID string `json:"operationId"`
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, op.OperationID)
		}
	}
	slices.Sort(ids)
	return ids
}

func TestSpaceTradersOpsCatalogue(t *testing.T) {
	t.Parallel()
	spec := needSpaceTraders(t)
	g := mustOpen(t, Config{Spec: spec, BaseURL: "http://127.0.0.1:9/v2"})
	if s := g.Skipped(); len(s) > 0 {
		t.Errorf("skipped operations: %v", s)
	}
	var names []string
	for _, tool := range g.Tools() {
		if tool.Name != lastResponseTool {
			names = append(names, tool.Name)
		}
		if tool.Schema == nil || tool.Schema.Type != "object" {
			t.Errorf("%s: schema is not an object: %+v", tool.Name, tool.Schema)
		}
		if n := utf8.RuneCountInString(tool.Description); n > descLimit+1 {
			t.Errorf("%s: description is %d characters, want at most ~%d", tool.Name, n, descLimit)
		}
	}
	slices.Sort(names)
	if want := specOperationIDs(t, spec); !slices.Equal(names, want) {
		t.Errorf("one tool per operation:\n got %v\nwant %v", names, want)
	}

	for name, group := range map[string]string{"get-my-agent": "Agents", "navigate-ship": "Fleet", "get-status": "Global"} {
		if got := toolNamed(t, g, name).Group; got != group {
			t.Errorf("%s: group %q, want its first tag %q", name, got, group)
		}
	}
	for name, kind := range map[string]game.Kind{"get-my-agent": game.Read, "get-system-waypoints": game.Read, "orbit-ship": game.Act, "patch-ship-nav": game.Act, "purchase-cargo": game.Act} {
		if got := toolNamed(t, g, name).Kind; got != kind {
			t.Errorf("%s is %v, want %v", name, got, kind)
		}
	}

	nav := toolNamed(t, g, "navigate-ship")
	for _, f := range []string{"shipSymbol", "waypointSymbol"} {
		if _, ok := nav.Schema.Properties[f]; !ok {
			t.Errorf("navigate-ship lacks %s: %v", f, nav.Schema.PropertyOrder)
		}
		if !slices.Contains(nav.Schema.Required, f) {
			t.Errorf("navigate-ship: %s is not required (required %v)", f, nav.Schema.Required)
		}
	}
	op := g.opTools["navigate-ship"]
	if f, _ := op.field("shipSymbol"); f.In != inPath {
		t.Errorf("shipSymbol goes in %q, want path", f.In)
	}
	if f, _ := op.field("waypointSymbol"); f.In != inBody {
		t.Errorf("waypointSymbol goes in %q, want body", f.In)
	}

	// Enums, bounds and formats survive, resolved from the spec's other files.
	mode := toolNamed(t, g, "patch-ship-nav").Schema.Properties["flightMode"]
	if mode == nil || !slices.Contains(mode.Enum, any("CRUISE")) {
		t.Errorf("patch-ship-nav flightMode enum = %v, want the flight modes", mode)
	}
	limit := toolNamed(t, g, "get-systems").Schema.Properties["limit"]
	if limit == nil || limit.Minimum == nil || limit.Maximum == nil || *limit.Maximum != 20 {
		t.Errorf("get-systems limit = %+v, want minimum and maximum 20", limit)
	}
	if slices.Contains(toolNamed(t, g, "get-systems").Schema.Required, "limit") {
		t.Errorf("get-systems: optional query parameter limit is required")
	}
}

func TestSpaceTradersGroupedCatalogueIsAtMostHalf(t *testing.T) {
	t.Parallel()
	spec := needSpaceTraders(t)
	ops := mustOpen(t, Config{Spec: spec, BaseURL: "http://127.0.0.1:9/v2"})
	grouped := mustOpen(t, Config{Spec: spec, BaseURL: "http://127.0.0.1:9/v2", Catalog: CatalogGrouped})
	opsSize, groupedSize := catalogSize(t, ops.Tools()), catalogSize(t, grouped.Tools())
	t.Logf("SpaceTraders catalogue: ops %d characters in %d tools, grouped %d characters in %d tools (%.0f%%)",
		opsSize, len(ops.Tools()), groupedSize, len(grouped.Tools()), 100*float64(groupedSize)/float64(opsSize))
	if groupedSize*2 > opsSize {
		t.Errorf("grouped catalogue is %d characters, more than half of the ops catalogue's %d", groupedSize, opsSize)
	}
	// Every operation is reachable, and reads and actions keep their kinds.
	seen := map[string]game.Kind{}
	for _, tool := range grouped.Tools() {
		if tool.Name == lastResponseTool {
			continue
		}
		for _, e := range tool.Schema.Properties[opArgField].Enum {
			seen[e.(string)] = tool.Kind
		}
		if tool.Check == nil {
			t.Errorf("%s has no Check", tool.Name)
		}
	}
	for _, op := range ops.ops {
		if k, ok := seen[op.Name]; !ok || k != op.Kind {
			t.Errorf("%s in the grouped catalogue: present %v kind %v, want %v", op.Name, ok, k, op.Kind)
		}
	}
	fleet := toolNamed(t, grouped, "fleet_act")
	if !strings.Contains(fleet.Description, "navigate-ship(shipSymbol, waypointSymbol)") {
		t.Errorf("fleet_act description does not list navigate-ship with its required fields:\n%s", fleet.Description)
	}
}
