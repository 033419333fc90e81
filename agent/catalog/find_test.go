package catalog

import (
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/coplayhq/coplay/game"
)

// findCatalogue is a small game where names, descriptions and parameters overlap, as
// they do in real specs.
func findCatalogue() []game.Tool {
	nested := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"shipSymbol": {Type: "string"},
		"payload": {Type: "object", Properties: map[string]*jsonschema.Schema{
			"items": {Type: "array", Items: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
				"tradeSymbol": {Type: "string"}, "units": {Type: "integer"}}}}}},
	}}
	return []game.Tool{
		tool("get-status", game.Read, "global", "Get Status. Says where ships navigate to.", 0),
		tool("get-my-ships", game.Read, "fleet", "List Ships. Return your ships.", 0, "page", "limit"),
		tool("navigate-ship", game.Act, "fleet", "Navigate Ship. Fly to a waypoint.", 0, "shipSymbol", "waypointSymbol"),
		{Name: "deliver-contract", Kind: game.Act, Group: "contracts", Description: "Deliver cargo to a contract.", Schema: nested},
		tool("patchShipNav", game.Act, "fleet", "Patch Ship Nav. Change the flight mode.", 0, "shipSymbol", "flightMode"),
	}
}

// A word of a tool's name ranks it above tools that only mention the word; camelCase
// and kebab-case names are split into words, and prefixes count.
func TestFindRanksNameHitsFirst(t *testing.T) {
	s := mustNew(t, findCatalogue(), Options{Budget: 10})
	got := s.Find("navigate", 0)
	if len(got) < 2 || got[0].Name != "navigate-ship" {
		t.Fatalf("Find(navigate) = %+v, want navigate-ship first", got)
	}
	if got[0].Kind != "act" || got[0].Group != "fleet" || got[0].Summary != "Fly to a waypoint." || got[0].Score <= got[1].Score {
		t.Errorf("first match %+v", got[0])
	}
	if got := s.Find("nav", 0); got[0].Name != "navigate-ship" && got[0].Name != "patchShipNav" {
		t.Errorf("Find(nav) = %+v, want a name hit first", got)
	}
	if got := s.Find("patch ship nav", 1); len(got) != 1 || got[0].Name != "patchShipNav" {
		t.Errorf("Find(patch ship nav) = %+v", got)
	}
	if got := s.Find("ships", 1); got[0].Name != "get-my-ships" {
		t.Errorf("Find(ships) = %+v", got)
	}
	if got := s.Find("get-my-ships", 1); got[0].Name != "get-my-ships" {
		t.Errorf("Find(get-my-ships) = %+v", got)
	}
	if got := s.Find("the of", 0); got != nil {
		t.Errorf("a query of stop words found %+v", got)
	}
	if got := s.Find("zebra", 0); got != nil {
		t.Errorf("Find(zebra) = %+v", got)
	}
}

// Parameters are searched, nested ones too, by their whole name or its words.
func TestFindByParameterName(t *testing.T) {
	s := mustNew(t, findCatalogue(), Options{Budget: 10})
	got := s.Find("tradeSymbol", 0)
	if len(got) == 0 || got[0].Name != "deliver-contract" || (len(got) > 1 && got[1].Score*2 > got[0].Score) {
		t.Errorf("Find(tradeSymbol) = %+v, want deliver-contract (a nested parameter)", got)
	}
	got = s.Find("waypointSymbol", 0)
	if len(got) == 0 || got[0].Name != "navigate-ship" {
		t.Errorf("Find(waypointSymbol) = %+v", got)
	}
	got = s.Find("flight mode", 0)
	if len(got) == 0 || got[0].Name != "patchShipNav" {
		t.Errorf("Find(flight mode) = %+v", got)
	}
}

// Ties keep catalogue order, and Loaded says which results need no load.
func TestFindTiesInCatalogueOrderAndLoaded(t *testing.T) {
	s := mustNew(t, findCatalogue(), Options{Budget: 10})
	s.Load([]string{"patchShipNav"})
	got := s.Find("shipSymbol", 0)
	var order []string
	for _, m := range got {
		order = append(order, m.Name)
	}
	// navigate-ship and patchShipNav tie (ship in the name, shipSymbol a parameter).
	if !slices.Equal(order[:3], []string{"navigate-ship", "patchShipNav", "deliver-contract"}) || got[0].Score != got[1].Score {
		t.Errorf("Find(shipSymbol) order %v", got)
	}
	if !got[1].Loaded || got[0].Loaded {
		t.Errorf("Loaded flags wrong: %+v", got)
	}
}

func TestSplitWords(t *testing.T) {
	for in, want := range map[string][]string{
		"get-my-ships":       {"get", "my", "ships"},
		"patchShipNav":       {"patch", "ship", "nav"},
		"load_tools":         {"load", "tools"},
		"HTTPServer X1-DF55": {"http", "server", "x1", "df55"},
	} {
		if got := splitWords(in); !slices.Equal(got, want) {
			t.Errorf("splitWords(%q) = %q, want %q", in, got, want)
		}
	}
}
