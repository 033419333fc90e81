package spacetraders

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// specDir finds ../shared/spacetraders beside the repository root (the directory holding
// go.mod), or skips the test when it is absent: the spec is test data kept outside.
func specDir(t testing.TB) string {
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

func loadSpec(t testing.TB) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = true
	loader.Context = context.Background()
	doc, err := loader.LoadFromFile(filepath.Join(specDir(t), "reference", "SpaceTraders.json"))
	if err != nil {
		t.Fatalf("load the SpaceTraders spec: %v", err)
	}
	return doc
}

// specOp is one operation of the spec with its path and method.
type specOp struct {
	method, path string
	op           *openapi3.Operation
	params       openapi3.Parameters // path item's and operation's
}

func operations(doc *openapi3.T) map[string]specOp {
	out := map[string]specOp{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			ps := append(openapi3.Parameters{}, item.Parameters...)
			ps = append(ps, op.Parameters...)
			out[op.OperationID] = specOp{method, path, op, ps}
		}
	}
	return out
}

func schemaType(s *openapi3.Schema) string {
	if s == nil || s.Type == nil || len(s.Type.Slice()) == 0 {
		return ""
	}
	return s.Type.Slice()[0]
}
