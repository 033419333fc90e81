package game

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

type flightMode string

type navArgs struct {
	ShipSymbol     string     `json:"shipSymbol" jsonschema:"the ship to move"`
	WaypointSymbol string     `json:"waypointSymbol" jsonschema:"where to go"`
	Mode           flightMode `json:"mode,omitempty"`
}

type cargoItem struct {
	Symbol string `json:"symbol"`
	Units  int    `json:"units"`
}

type transferArgs struct {
	ShipSymbol string      `json:"shipSymbol"`
	Items      []cargoItem `json:"items"`
}

var (
	navSchema      = SchemaFor[navArgs](WithEnum[flightMode]("flight mode", "DRIFT", "STEALTH", "CRUISE", "BURN"))
	transferSchema = SchemaFor[transferArgs]()
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		schema any
		args   string
		want   []string // each must appear in one problem line, in this order
	}{
		{"valid", navSchema, `{"shipSymbol":"X-1","waypointSymbol":"X1-A2","mode":"CRUISE"}`, nil},
		{"valid without optional", navSchema, `{"shipSymbol":"X-1","waypointSymbol":"X1-A2"}`, nil},
		{"wrong parameter name", navSchema, `{"ship":"X-1","waypointSymbol":"X1-A2"}`, []string{
			"arguments.shipSymbol: expected required a string, got nothing (missing)",
			`arguments.ship: expected no property "ship" (valid: mode, shipSymbol, waypointSymbol), got string "X-1" (did you mean shipSymbol?)`,
		}},
		{"number as string", transferSchema, `{"shipSymbol":"X-1","items":[{"symbol":"IRON_ORE","units":"5"}]}`, []string{
			`arguments.items[0].units: expected an integer, got string "5" (send the number 5 without quotes)`,
		}},
		{"fractional integer", transferSchema, `{"shipSymbol":"X-1","items":[{"symbol":"IRON_ORE","units":2.5}]}`, []string{
			"arguments.items[0].units: expected an integer, got number 2.5",
		}},
		{"missing required", navSchema, `{"shipSymbol":"X-1"}`, []string{
			"arguments.waypointSymbol: expected required a string, got nothing (missing)",
		}},
		{"enum in the wrong case", navSchema, `{"shipSymbol":"X-1","waypointSymbol":"X1-A2","mode":"cruise"}`, []string{
			`arguments.mode: expected one of "DRIFT", "STEALTH", "CRUISE", "BURN", got string "cruise" (did you mean CRUISE?)`,
		}},
		{"enum misspelt", navSchema, `{"shipSymbol":"X-1","waypointSymbol":"X1-A2","mode":"CRUSE"}`, []string{
			"(did you mean CRUISE?)",
		}},
		{"extra fields", navSchema, `{"shipSymbol":"X-1","waypointSymbol":"X1-A2","speed":"fast","note":1}`, []string{
			`arguments.note: expected no property "note"`, `arguments.speed: expected no property "speed"`,
		}},
		{"nested array items", transferSchema, `{"shipSymbol":"X-1","items":[{"symbol":"IRON_ORE","units":1},{"units":2,"sym":"X"}]}`, []string{
			"arguments.items[1].symbol: expected required a string, got nothing (missing)",
			`arguments.items[1].sym: expected no property "sym"`,
		}},
		{"array not object", transferSchema, `{"shipSymbol":"X-1","items":{"symbol":"IRON_ORE","units":1}}`, []string{
			"arguments.items: expected an array, got object",
		}},
		{"null field", navSchema, `{"shipSymbol":null,"waypointSymbol":"X1-A2"}`, []string{
			"arguments.shipSymbol: expected a string, got null",
		}},
		{"null arguments", navSchema, `null`, []string{"arguments: expected an object, got null"}},
		{"non-object JSON", navSchema, `["X-1","X1-A2"]`, []string{"arguments: expected an object, got array of 2 items"}},
		{"string JSON", navSchema, `"X-1"`, []string{`arguments: expected an object, got string "X-1"`}},
		{"truncated JSON", navSchema, `{"shipSymbol":"X-1","waypointSym`, []string{"arguments: expected a JSON object, got invalid JSON (unexpected end of input, truncated?)"}},
		{"trailing garbage", navSchema, `{"shipSymbol":"X-1","waypointSymbol":"X1-A2"}}`, []string{"arguments: expected a JSON object, got invalid JSON"}},
		{"every problem at once", navSchema, `{"ship":"X-1","mode":"fast"}`, []string{
			"arguments.shipSymbol: expected required", "arguments.waypointSymbol: expected required", `arguments.mode: expected one of`, `arguments.ship: expected no property`,
		}},
		{"empty means no arguments", SchemaFor[struct{}](), ``, nil},
		{"no-argument tool given one", SchemaFor[struct{}](), `{"x":1}`, []string{"arguments.x: expected no properties (this tool takes no arguments), got number 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate("tool", schemaOf(tt.schema), json.RawMessage(tt.args))
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("want *ValidationError, got %v", err)
			}
			if len(ve.Problems) != len(tt.want) {
				t.Errorf("got %d problems, want %d:\n%v", len(ve.Problems), len(tt.want), err)
			}
			for i, w := range tt.want {
				if i >= len(ve.Problems) || !strings.Contains(ve.Problems[i].String(), w) {
					t.Errorf("problem %d: want it to contain %q; all:\n%v", i, w, err)
				}
			}
		})
	}
}

func TestValidateErrorNamesTool(t *testing.T) {
	err := Validate("navigate_ship", navSchema, json.RawMessage(`{}`))
	if err == nil || !strings.HasPrefix(err.Error(), "invalid arguments for navigate_ship (not executed):\n- arguments.shipSymbol") {
		t.Fatalf("error text: %v", err)
	}
}

// FuzzValidate checks that validation never panics and that whatever it accepts
// decodes into the Go arguments type with unknown fields refused: the validator
// never lets through something the tool cannot read.
func FuzzValidate(f *testing.F) {
	for _, s := range []string{`{}`, `{"shipSymbol":"X","waypointSymbol":"Y","mode":"BURN"}`, `{"ship":1}`, `[`, `null`, `{"mode":"cruise"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := Validate("navigate", navSchema, data)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Problems) == 0 {
				t.Fatalf("error without problems: %v", err)
			}
			return
		}
		if len(bytes.TrimSpace(data)) == 0 {
			t.Fatalf("empty input accepted for a tool with required arguments")
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		var a navArgs
		if err := dec.Decode(&a); err != nil {
			t.Fatalf("validated %q but it does not decode: %v", data, err)
		}
		switch a.Mode {
		case "", "DRIFT", "STEALTH", "CRUISE", "BURN":
		default:
			t.Fatalf("validated a bad mode %q", a.Mode)
		}
	})
}
