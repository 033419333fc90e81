package catalog

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/openapi"
	"github.com/coplayhq/coplay/game/spacetraders"
)

// Where the benchmark's specs are, from this package's directory. The SpaceTraders
// spec is shared outside the repository and never copied into it; the large fixture is
// the repository's own.
var (
	spaceTradersSpec = filepath.Join("..", "..", "..", "shared", "spacetraders", "reference", "SpaceTraders.json")
	largeFixture     = filepath.Join("..", "..", "testdata", "openapi", "large", "openapi.yaml")
)

// runnerStandIns approximate the tools the runner adds over a deferred catalogue
// (load_tools, find_tools), so that the first request's figure counts them. The
// runner's real ones may differ by some tens of characters.
func runnerStandIns() []game.Tool {
	return []game.Tool{
		{Name: "load_tools", Kind: game.Read, Description: "Load the full definitions of tools named in the tool index, so that you can call them from your next request on. Tools already loaded stay loaded.",
			Schema: objectSchema("names")},
		{Name: "find_tools", Kind: game.Read, Description: "Search the whole tool catalogue (names, summaries, groups, parameter names) when the index is too long to scan. Returns the best matches with their summaries.",
			Schema: objectSchema("query")},
	}
}

// openSpec opens an OpenAPI spec as coplay --game openapi --catalog ops would, without
// a network: opening reads only the files, and no call is made.
func openSpec(b *testing.B, spec string) []game.Tool {
	b.Helper()
	g, err := openapi.Open(context.Background(), openapi.Config{Spec: spec, BaseURL: "http://127.0.0.1:9/v2", Catalog: openapi.CatalogOps})
	if err != nil {
		b.Fatalf("open %s: %v", spec, err)
	}
	return g.Tools()
}

// BenchmarkCatalogSize reports what the model is sent for three catalogues under the
// default budget: tools (in the catalogue), all_chars (every game tool's definition,
// what was sent before deferring), first_chars (the first request's tools), loaded (how many that
// is), index_chars (the index in the system prompt) and after5_chars (the tools after
// loading the first five deferred ones). The time is that of building the Set.
// The runner's notebook tools are not counted (the game's tools approximate them).
func BenchmarkCatalogSize(b *testing.B) {
	cases := []struct {
		name  string
		tools func(b *testing.B) []game.Tool
	}{
		{"spacetraders-offline", func(*testing.B) []game.Tool { return spacetraders.Catalog() }},
		{"spacetraders-spec-ops", func(b *testing.B) []game.Tool {
			if _, err := os.Stat(spaceTradersSpec); err != nil {
				b.Skipf("the SpaceTraders spec is not at %s (it is shared outside the repository, never copied in): %v", spaceTradersSpec, err)
			}
			return openSpec(b, spaceTradersSpec)
		}},
		{"large-fixture-ops", func(b *testing.B) []game.Tool {
			if _, err := os.Stat(largeFixture); err != nil {
				b.Skipf("the large OpenAPI fixture %s does not exist yet: %v", largeFixture, err)
			}
			return openSpec(b, largeFixture)
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			gameTools := c.tools(b)
			tools := append(gameTools, runnerStandIns()...)
			o := Options{
				Always:           []string{"load_tools", "find_tools"},
				OnlyWhenDeferred: []string{"load_tools", "find_tools"},
			}
			var s *Set
			for b.Loop() {
				var err error
				if s, err = New(tools, o); err != nil {
					b.Fatal(err)
				}
			}
			first := s.SentSize()
			var five []string
			for _, t := range tools {
				if len(five) < 5 && !s.IsLoaded(t.Name) {
					if _, ok := s.Lookup(t.Name); ok {
						five = append(five, t.Name)
					}
				}
			}
			s.Load(five)
			b.ReportMetric(float64(len(gameTools)), "tools")
			b.ReportMetric(float64(Size(gameTools)), "all_chars")
			b.ReportMetric(float64(first), "first_chars")
			b.ReportMetric(float64(len(s.Loaded())-len(five)), "loaded")
			b.ReportMetric(float64(len(s.Index())), "index_chars")
			b.ReportMetric(float64(s.SentSize()), "after5_chars")
		})
	}
}
