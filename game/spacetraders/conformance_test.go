package spacetraders

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/jsonschema-go/jsonschema"
)

// Where a tool's arguments knowingly differ from its operation, and why. Everything else
// must match the spec exactly: names, types, required, enums.
var (
	// renamed maps tool → spec body field → tool argument. transfer-cargo's body has a
	// shipSymbol (the receiver) that collides with the path's shipSymbol (the sender).
	renamed = map[string]map[string]string{"transfer_cargo": {"shipSymbol": "toShipSymbol"}}
	// stricter lists arguments a tool requires although the spec leaves them optional:
	// set_flight_mode without a mode would do nothing.
	stricter = map[string]map[string]bool{ToolSetFlightMode: {"flightMode": true}}
	// localEnums are spec enums checked before sending instead of listed in the schema,
	// each against a list that must equal the spec's.
	localEnums = map[string][]string{"TradeSymbol": TradeSymbols}
)

// enumName names the spec model an enum comes from, by its values.
func enumName(s *openapi3.Schema) string {
	if len(s.Enum) > 100 && slices.Contains(s.Enum, any("IRON_ORE")) {
		return "TradeSymbol"
	}
	return ""
}

func strs(v []any) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = fmt.Sprint(x)
	}
	sort.Strings(out)
	return out
}

// checkSchema compares a spec schema and a tool schema, property by property.
func checkSchema(t *testing.T, where string, spec *openapi3.Schema, tool *jsonschema.Schema, tname string) {
	t.Helper()
	if st, tt := schemaType(spec), tool.Type; st != tt {
		t.Errorf("%s: spec type %q, tool type %q", where, st, tt)
		return
	}
	if len(spec.Enum) > 0 {
		if name := enumName(spec); name != "" {
			if len(tool.Enum) != 0 {
				t.Errorf("%s: %s should be checked locally, not listed", where, name)
			}
			if !slices.Equal(strs(spec.Enum), sorted(localEnums[name])) {
				t.Errorf("%s: the local %s list differs from the spec's", where, name)
			}
		} else if !slices.Equal(strs(spec.Enum), strs(tool.Enum)) {
			t.Errorf("%s: spec enum %v, tool enum %v", where, strs(spec.Enum), strs(tool.Enum))
		}
	}
	if schemaType(spec) == "array" {
		checkSchema(t, where+"[]", spec.Items.Value, tool.Items, tname)
	}
	if schemaType(spec) == "object" && len(spec.Properties) > 0 {
		checkObject(t, where, spec.Properties, spec.Required, tool, tname, nil)
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	sort.Strings(s)
	return s
}

// checkObject compares named spec properties (plus required ones) with a tool object.
func checkObject(t *testing.T, where string, props openapi3.Schemas, required []string, tool *jsonschema.Schema, tname string, extra map[string]*jsonschema.Schema) {
	t.Helper()
	want := map[string]bool{}
	for name, p := range props {
		arg := name // renames are applied by the caller
		want[arg] = true
		ts, ok := tool.Properties[arg]
		if !ok {
			t.Errorf("%s: spec field %q is not an argument", where, name)
			continue
		}
		checkSchema(t, where+"."+arg, p.Value, ts, tname)
		specReq := slices.Contains(required, name)
		toolReq := slices.Contains(tool.Required, arg)
		if specReq != toolReq && !(toolReq && stricter[tname][arg]) {
			t.Errorf("%s.%s: spec required=%v, tool required=%v", where, arg, specReq, toolReq)
		}
	}
	for name := range extra {
		want[name] = true
	}
	for name := range tool.Properties {
		if !want[name] {
			t.Errorf("%s: argument %q is not in the spec", where, name)
		}
	}
}

func TestToolsConformToSpec(t *testing.T) {
	ops := operations(loadSpec(t))
	tools := map[string]*jsonschema.Schema{}
	for _, tl := range Catalog() {
		tools[tl.Name] = tl.Schema
	}
	for tname, opID := range toolOperations() {
		op, ok := ops[opID]
		if !ok {
			t.Errorf("%s: no operation %q in the spec", tname, opID)
			continue
		}
		schema := tools[tname]
		if schema == nil {
			t.Errorf("%s: not in the catalogue", tname)
			continue
		}
		props := openapi3.Schemas{}
		var required []string
		for _, p := range op.params {
			if p.Value.In != "path" {
				continue
			}
			props[p.Value.Name] = p.Value.Schema
			if p.Value.Required {
				required = append(required, p.Value.Name)
			}
		}
		if rb := op.op.RequestBody; rb != nil {
			body := rb.Value.Content.Get("application/json").Schema.Value
			for name, p := range body.Properties {
				if _, dup := props[name]; dup && renamed[tname][name] == "" {
					t.Errorf("%s: body field %q collides with a path parameter and is not renamed", tname, name)
				}
				if r := renamed[tname][name]; r != "" {
					// Keep the body field under its spec name for the comparison; the
					// rename is applied in checkObject.
					props[name+"\x00body"] = p
					if slices.Contains(body.Required, name) {
						required = append(required, name+"\x00body")
					}
					continue
				}
				props[name] = p
			}
			for _, r := range body.Required {
				if renamed[tname][r] == "" {
					required = append(required, r)
				}
			}
		}
		// Undo the collision marker: renamed fields map to their tool names.
		fixed := openapi3.Schemas{}
		var fixedReq []string
		for name, p := range props {
			if spec, ok := strings.CutSuffix(name, "\x00body"); ok {
				fixed[renamed[tname][spec]] = p
				continue
			}
			fixed[name] = p
		}
		for _, r := range required {
			if spec, ok := strings.CutSuffix(r, "\x00body"); ok {
				r = renamed[tname][spec]
			}
			fixedReq = append(fixedReq, r)
		}
		checkObject(t, tname, fixed, fixedReq, schema, tname, nil)
	}
}

// instance builds a value valid against s: every property when full, only the required
// ones otherwise; enums take their first value, examples are used where the spec has them.
func instance(s *openapi3.Schema, full bool, depth int) any {
	if s == nil || depth > 12 {
		return nil
	}
	if s.Example != nil {
		return s.Example
	}
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	if len(s.AllOf) > 0 {
		return instance(s.AllOf[0].Value, full, depth+1)
	}
	if len(s.OneOf) > 0 {
		return instance(s.OneOf[0].Value, full, depth+1)
	}
	switch schemaType(s) {
	case "object":
		m := map[string]any{}
		for name, p := range s.Properties {
			if full || slices.Contains(s.Required, name) {
				if v := instance(p.Value, full, depth+1); v != nil {
					m[name] = v
				}
			}
		}
		return m
	case "array":
		if v := instance(s.Items.Value, full, depth+1); v != nil {
			return []any{v}
		}
		return []any{}
	case "string":
		if s.Format == "date-time" {
			return "2026-01-02T03:04:05Z"
		}
		return "X1-TEST-A1"
	case "integer":
		return 7
	case "number":
		return 0.5
	case "boolean":
		return true
	}
	return nil
}

// responseTypes maps every operation the client calls to the Go type of its data.
var responseTypes = map[string]any{
	"get-my-agent": Agent{}, "get-my-ships": []Ship{}, "get-my-ship": Ship{}, "get-contracts": []Contract{},
	"get-contract": Contract{}, "get-system": System{}, "get-system-waypoints": []Waypoint{}, "get-waypoint": Waypoint{},
	"get-market": Market{}, "get-shipyard": Shipyard{}, "get-jump-gate": JumpGate{}, "register": RegisterResult{},
	"orbit-ship": NavResult{}, "dock-ship": NavResult{}, "navigate-ship": NavResult{}, "patch-ship-nav": NavResult{},
	"refuel-ship": TradeResult{}, "purchase-cargo": TradeResult{}, "sell-cargo": TradeResult{},
	"jettison": CargoResult{}, "transfer-cargo": CargoResult{}, "create-survey": SurveyResult{},
	"extract-resources": ExtractResult{}, "extract-resources-with-survey": ExtractResult{},
	"accept-contract": ContractResult{}, "deliver-contract": ContractResult{}, "fulfill-contract": ContractResult{},
	"negotiateContract": ContractResult{}, "purchase-ship": PurchaseShipResult{}, "create-chart": ChartResult{}, "jump-ship": JumpResult{},
}

// subset reports the first place got has a value that want does not have.
func subset(got, want any, path string) string {
	switch g := got.(type) {
	case map[string]any:
		w, ok := want.(map[string]any)
		if !ok {
			return path + ": object where the spec body has " + fmt.Sprint(want)
		}
		for k, v := range g {
			wv, ok := w[k]
			if !ok {
				return path + "." + k + ": not in the body"
			}
			if p := subset(v, wv, path+"."+k); p != "" {
				return p
			}
		}
	case []any:
		w, ok := want.([]any)
		if !ok || len(w) != len(g) {
			return path + ": array length differs"
		}
		for i := range g {
			if p := subset(g[i], w[i], fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	default:
		if fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Sprintf("%s: decoded %v, body has %v", path, got, want)
		}
	}
	return ""
}

func TestClientDecodesSpecBodies(t *testing.T) {
	ops := operations(loadSpec(t))
	for id, typ := range responseTypes {
		op, ok := ops[id]
		if !ok {
			t.Errorf("no operation %q in the spec", id)
			continue
		}
		for code, resp := range op.op.Responses.Map() {
			if !strings.HasPrefix(code, "2") || resp.Value.Content == nil {
				continue
			}
			mt := resp.Value.Content.Get("application/json")
			if mt == nil {
				continue
			}
			data := mt.Schema.Value.Properties["data"].Value
			bodies := map[string]any{"full": instance(data, true, 0), "required-only": instance(data, false, 0)}
			if mt.Example != nil {
				if m, ok := mt.Example.(map[string]any); ok {
					bodies["example"] = m["data"]
				}
			}
			for kind, body := range bodies {
				raw, _ := json.Marshal(map[string]any{"data": body})
				var env envelope
				if err := json.Unmarshal(raw, &env); err != nil {
					t.Fatal(err)
				}
				v := reflect.New(reflect.TypeOf(typ))
				if err := json.Unmarshal(env.Data, v.Interface()); err != nil {
					t.Errorf("%s %s (%s body): %v", id, code, kind, err)
					continue
				}
				if kind != "full" {
					continue
				}
				// Everything decoded is what the body said, and the data's required
				// fields all survive.
				back, _ := json.Marshal(v.Interface())
				var got, want any
				json.Unmarshal(back, &got)
				json.Unmarshal(env.Data, &want)
				if p := subset(got, want, id); p != "" {
					t.Errorf("%s %s: %s", id, code, p)
				}
				if m, ok := got.(map[string]any); ok {
					for _, r := range data.Required {
						// The spec's register response requires "ship" but defines "ships".
						if _, ok := m[r]; !ok && !(id == "register" && r == "ship") {
							t.Errorf("%s %s: required field %q is dropped by the client", id, code, r)
						}
					}
				}
			}
		}
	}
}

// toolOperations maps each Act tool to the spec operation it calls (its operationId),
// read from the definitions.
func toolOperations() map[string]string {
	ops := map[string]string{}
	for _, e := range catalog(New(Config{})) {
		if e.op != "" {
			ops[e.tool.Name] = e.op
		}
	}
	return ops
}
