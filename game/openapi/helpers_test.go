package openapi

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/game"
)

// spaceTradersSpec is the official SpaceTraders spec, shared outside the repository.
const spaceTradersSpec = "../../../shared/spacetraders/reference/SpaceTraders.json"

// needSpaceTraders returns the spec's path, or skips the test when it is absent.
func needSpaceTraders(t testing.TB) string {
	t.Helper()
	if _, err := os.Stat(spaceTradersSpec); err != nil {
		t.Skipf("SpaceTraders spec not found at %s (it lives outside the repository): %v", spaceTradersSpec, err)
	}
	return spaceTradersSpec
}

// fixture is a spec written for these tests in the repository's testdata/openapi.
func fixture(name string) string { return filepath.Join("..", "..", "testdata", "openapi", name) }

func mustOpen(t testing.TB, cfg Config) *Game {
	t.Helper()
	g, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Open(%s): %v", cfg.Spec, err)
	}
	return g
}

func toolNamed(t testing.TB, g *Game, name string) game.Tool {
	t.Helper()
	for _, tool := range g.Tools() {
		if tool.Name == name {
			return tool
		}
	}
	t.Fatalf("no tool %q", name)
	return game.Tool{}
}

// catalogSize is the characters a catalogue costs a model: name, description and
// schema JSON of every tool.
func catalogSize(t testing.TB, tools []game.Tool) int {
	t.Helper()
	n := 0
	for _, tool := range tools {
		b, err := json.Marshal(tool.Schema)
		if err != nil {
			t.Fatalf("%s: marshal schema: %v", tool.Name, err)
		}
		n += len(tool.Name) + len(tool.Description) + len(b)
	}
	return n
}

// validationProblems returns the problems of a *game.ValidationError, failing the
// test for any other error.
func validationProblems(t testing.TB, err error) []game.Problem {
	t.Helper()
	var ve *game.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want a validation error, got %v", err)
	}
	return ve.Problems
}

// problemsText joins problems for matching.
func problemsText(probs []game.Problem) string {
	var parts []string
	for _, p := range probs {
		parts = append(parts, p.String())
	}
	return strings.Join(parts, "\n")
}
