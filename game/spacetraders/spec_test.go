package spacetraders

import (
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/coplayhq/coplay/game/internal/spectest"
)

// specDir and loadSpec find and load the spec, or skip the test when it is absent.
func specDir(t testing.TB) string { t.Helper(); return spectest.Dir(t) }

func loadSpec(t testing.TB) *openapi3.T { t.Helper(); return spectest.Load(t) }

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
