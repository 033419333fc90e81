package universe

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/coplayhq/coplay/game/internal/spectest"
)

// specDir and loadSpec find and load the spec, or skip the test when it is absent.
func specDir(t testing.TB) string { t.Helper(); return spectest.Dir(t) }

func loadSpec(t testing.TB) *openapi3.T { t.Helper(); return spectest.Load(t) }

// responseSchemas maps operationId and status to the response body schema.
func responseSchemas(doc *openapi3.T) map[string]map[int]*openapi3.Schema {
	out := map[string]map[int]*openapi3.Schema{}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			m := map[int]*openapi3.Schema{}
			for code, resp := range op.Responses.Map() {
				n, err := strconv.Atoi(code)
				if err != nil || resp.Value == nil {
					continue
				}
				if mt := resp.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil {
					m[n] = mt.Schema.Value
				}
			}
			out[op.OperationID] = m
		}
	}
	return out
}

// TestConformance plays every supported operation over HTTP and validates each successful
// response body against that operation's schema in the official spec.
func TestConformance(t *testing.T) {
	schemas := responseSchemas(loadSpec(t))
	c := newTestClient(t, 7, false)
	playthrough(c)
	// get-ship-cooldown answers 204 with no body when the ship is ready; check that too.
	c.must(204, "get-ship-cooldown", "GET", "/v2/my/ships/"+c.u.st.Agents[0].Ships[0].Symbol+"/cooldown", nil)

	validated := map[string]int{}
	for _, e := range c.log {
		if e.status >= 300 {
			continue
		}
		byStatus, known := schemas[e.op]
		if !known {
			t.Errorf("operation %q is not in the spec", e.op)
			continue
		}
		schema, documented := byStatus[e.status]
		if !documented {
			if e.status == 204 && len(e.body) == 0 {
				validated[e.op]++
				continue
			}
			t.Errorf("%s %s %s: status %d is not documented for %s", e.op, e.method, e.path, e.status, e.op)
			continue
		}
		var body any
		if err := json.Unmarshal(e.body, &body); err != nil {
			t.Errorf("%s: body is not JSON: %v", e.op, err)
			continue
		}
		if err := schema.VisitJSON(body, openapi3.MultiErrors()); err != nil {
			t.Errorf("%s %s %s: response does not match the spec:\n%s\nbody: %.2000s", e.op, e.method, e.path, err, e.body)
			continue
		}
		validated[e.op]++
	}
	// The validator must be able to fail: a ship without its required nav must not pass.
	var ship map[string]any
	for _, e := range c.log {
		if e.op == "get-my-ship" && e.status == 200 {
			json.Unmarshal(e.body, &ship)
			break
		}
	}
	delete(ship["data"].(map[string]any), "nav")
	if err := schemas["get-my-ship"][200].VisitJSON(ship); err == nil {
		t.Error("a ship without nav validated against the spec; the validator is not checking")
	}

	var missing []string
	for _, op := range supportedOps {
		if validated[op] == 0 {
			missing = append(missing, op)
		}
	}
	if len(missing) > 0 {
		t.Errorf("no validated response for: %s", strings.Join(missing, ", "))
	}
}
