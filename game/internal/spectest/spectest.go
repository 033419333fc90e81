// Package spectest helps the tests of the SpaceTraders API: it finds and loads the
// official OpenAPI spec, reads the decoded JSON of the API's answers (Dig, Str, Num,
// List) and moves a fake clock to a time an answer names (WaitUntil). The spec is test
// data kept outside the repository, in ../shared/spacetraders beside the repository
// root; tests skip with a clear message when it is absent.
package spectest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// Dir returns the spec's directory (holding reference/ and models/), or skips t.
func Dir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("skipping: no go.mod above the test directory, so ../shared/spacetraders cannot be located")
		}
		dir = parent
	}
	spec := filepath.Join(dir, "..", "shared", "spacetraders")
	if _, err := os.Stat(filepath.Join(spec, "reference", "SpaceTraders.json")); err != nil {
		t.Skipf("skipping: the SpaceTraders OpenAPI spec is not at %s (test data kept outside the repository)", spec)
	}
	return spec
}

// Load returns the parsed spec with its external model references resolved, or skips t.
func Load(t testing.TB) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = true
	loader.Context = context.Background()
	doc, err := loader.LoadFromFile(filepath.Join(Dir(t), "reference", "SpaceTraders.json"))
	if err != nil {
		t.Fatalf("load the SpaceTraders spec: %v", err)
	}
	return doc
}
