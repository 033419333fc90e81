package game

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestDuplicateKeysAreRefusedWithTheirPath(t *testing.T) {
	tests := []struct {
		args string
		want []string // problem lines, in order
	}{
		{`{"shipSymbol":"A","waypointSymbol":"W","shipSymbol":"B"}`, []string{`arguments.shipSymbol: expected each key once, got duplicate key shipSymbol: first "A", then "B"`}},
		{`{"shipSymbol":"A","items":[{"symbol":"X","units":1,"units":2}],"items":[]}`, []string{
			"arguments.items[0].units: expected each key once, got duplicate key units: first 1, then 2",
			`arguments.items: expected each key once, got duplicate key items: first [{"symbol":"X","units":1,"units":2}], then []`}},
	}
	for _, tt := range tests {
		schema := navSchema
		if strings.Contains(tt.args, "items") {
			schema = transferSchema
		}
		err := Validate("t", schema, json.RawMessage(tt.args))
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Fatalf("%s: err = %v, want a ValidationError", tt.args, err)
		}
		var got []string
		for _, p := range ve.Problems {
			if strings.Contains(p.Got, "duplicate key") {
				got = append(got, p.Path+": expected "+p.Expected+", got "+p.Got)
			}
		}
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s: duplicate-key problems\n%s\nwant\n%s", tt.args, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
	// The same key in two different objects is not a duplicate.
	if err := Validate("t", transferSchema, json.RawMessage(`{"shipSymbol":"A","items":[{"symbol":"X","units":1},{"symbol":"Y","units":2}]}`)); err != nil {
		t.Fatalf("distinct objects with the same keys: %v", err)
	}
}

func TestValidateToolRunsTheGamesCheckOnlyOnSchemaValidArgs(t *testing.T) {
	checked := 0
	tool := Tool{Name: "navigate_ship", Schema: navSchema, Check: func(args json.RawMessage) []Problem {
		checked++
		var a navArgs
		if err := json.Unmarshal(args, &a); err != nil {
			return []Problem{{Path: "arguments", Expected: "decodable", Got: err.Error()}}
		}
		if p := PathSegment("arguments.shipSymbol", a.ShipSymbol); p != nil {
			return []Problem{*p}
		}
		return nil
	}}
	out, err := ValidateTool(tool, json.RawMessage(" {\"shipSymbol\" : \"S-1\", \"waypointSymbol\":\"W\"}\n"))
	if err != nil || string(out) != `{"shipSymbol":"S-1","waypointSymbol":"W"}` {
		t.Fatalf("valid call: %s, %v; want compacted args", out, err)
	}
	_, err = ValidateTool(tool, json.RawMessage(`{"shipSymbol":"..","waypointSymbol":"W"}`))
	if err == nil || !strings.Contains(err.Error(), "arguments.shipSymbol") || !strings.Contains(err.Error(), `".." are not symbols`) {
		t.Fatalf("'..' ship: %v", err)
	}
	before := checked
	if _, err := ValidateTool(tool, json.RawMessage(`{"shipSymbol":5}`)); err == nil {
		t.Fatal("schema-invalid args passed")
	}
	if checked != before {
		t.Fatal("Check ran on arguments that failed the schema")
	}
}

func TestPathSegment(t *testing.T) {
	for _, bad := range []string{"", ".", "..", "A/B", "A?x=1", "A#f", "A%2F", "A\nB", "A\x00"} {
		if p := PathSegment("arguments.shipSymbol", bad); p == nil || p.Path != "arguments.shipSymbol" {
			t.Errorf("PathSegment(%q) = %+v, want a problem at arguments.shipSymbol", bad, p)
		}
	}
	for _, good := range []string{"COPLAY-1", "X1-A1-B7", "a.b", "...x"} {
		if p := PathSegment("p", good); p != nil {
			t.Errorf("PathSegment(%q) = %v, want nil", good, p)
		}
	}
}

func TestCallValidatedSkipsValidationButNeedsACheckedCall(t *testing.T) {
	g := &counterGame{}
	r := NewRegistry(g)
	v, err := r.Check("navigate_ship", json.RawMessage(`{"shipSymbol":"S","waypointSymbol":"W"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.CallValidated(t.Context(), v); err != nil || g.calls != 1 {
		t.Fatalf("CallValidated: %v, calls %d", err, g.calls)
	}
	if _, err := r.CallValidated(t.Context(), ValidCall{}); err == nil || g.calls != 1 {
		t.Fatalf("a zero ValidCall ran: %v, calls %d", err, g.calls)
	}
	if _, err := r.Call(t.Context(), "navigate_ship", json.RawMessage(`{"shipSymbol":"S","shipSymbol":"T","waypointSymbol":"W"}`)); err == nil || g.calls != 1 {
		t.Fatalf("Registry.Call ran a call with a duplicate key: %v", err)
	}
}
