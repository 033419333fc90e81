package game

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// counterGame is a one-tool game that counts the calls that reach it.
type counterGame struct{ calls int }

func (g *counterGame) Info() Info { return Info{Name: "counter"} }
func (g *counterGame) Tools() []Tool {
	return []Tool{{Name: "navigate_ship", Kind: Act, Schema: navSchema, DryRun: true}}
}
func (g *counterGame) Observe(context.Context) (Observation, error) { return Observation{}, nil }
func (g *counterGame) Call(_ context.Context, name string, args json.RawMessage) (Result, error) {
	g.calls++
	return Result{Output: name + " " + string(args)}, nil
}
func (g *counterGame) Simulate(_ context.Context, name string, args json.RawMessage) (Simulation, bool, error) {
	return Simulation{Summary: "would go"}, true, nil
}

func TestRegistryRefusesInvalidCalls(t *testing.T) {
	g := &counterGame{}
	r := NewRegistry(g)
	ctx := context.Background()

	_, err := r.Call(ctx, "navigate", json.RawMessage(`{}`))
	var ut *UnknownToolError
	if !errors.As(err, &ut) || !strings.Contains(err.Error(), "did you mean navigate_ship?") || !strings.Contains(err.Error(), "valid tools: navigate_ship") {
		t.Fatalf("unknown tool error: %v", err)
	}
	_, err = r.Call(ctx, "navigate_ship", json.RawMessage(`{"ship":"X"}`))
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want validation error, got %v", err)
	}
	if g.calls != 0 {
		t.Fatalf("invalid calls reached the game %d times", g.calls)
	}
	res, err := r.Call(ctx, "navigate_ship", json.RawMessage(`{"shipSymbol":"X","waypointSymbol":"Y"}`))
	if err != nil || g.calls != 1 || !strings.HasPrefix(res.Output, "navigate_ship ") {
		t.Fatalf("valid call: %v %+v calls=%d", err, res, g.calls)
	}
}

func TestRegistryAddAndSimulate(t *testing.T) {
	r := NewRegistry(&counterGame{})
	r.Add(Tool{Name: "update_notes", Kind: Note, Schema: SchemaFor[struct {
		Text string `json:"text"`
	}]()}, func(context.Context, json.RawMessage) (Result, error) { return Result{Output: "saved"}, nil })
	if got := len(r.Tools()); got != 2 {
		t.Fatalf("tools: %d", got)
	}
	ctx := context.Background()
	if _, ok, _ := r.Simulate(ctx, "update_notes", json.RawMessage(`{"text":"x"}`)); ok {
		t.Fatal("a notebook tool has no dry run")
	}
	sim, ok, err := r.Simulate(ctx, "navigate_ship", json.RawMessage(`{"shipSymbol":"X","waypointSymbol":"Y"}`))
	if !ok || err != nil || sim.Summary != "would go" {
		t.Fatalf("simulate: %+v %v %v", sim, ok, err)
	}
	if _, _, err := r.Simulate(ctx, "navigate_ship", json.RawMessage(`{}`)); err == nil {
		t.Fatal("simulating an invalid call must fail validation")
	}
}

func TestKindRoundTrips(t *testing.T) {
	for _, k := range []Kind{Read, Act, Note} {
		b, err := json.Marshal(k)
		if err != nil {
			t.Fatal(err)
		}
		var got Kind
		if err := json.Unmarshal(b, &got); err != nil || got != k {
			t.Fatalf("%s: got %v, %v", b, got, err)
		}
	}
	var k Kind
	if err := json.Unmarshal([]byte(`"write"`), &k); err == nil || !strings.Contains(err.Error(), `unknown tool kind "write"`) {
		t.Fatalf("bad kind: %v", err)
	}
}

// A catalogue of hundreds is not listed whole at every typo: the error names the near
// tools and says how many there are.
func TestUnknownToolInALongCatalogue(t *testing.T) {
	var valid []string
	for i := range 200 {
		valid = append(valid, fmt.Sprintf("op_%03d", i))
	}
	e := &UnknownToolError{Name: "op_1000", Valid: valid, Near: []string{"op_100"}}
	if msg := e.Error(); strings.Contains(msg, "op_150") || !strings.Contains(msg, "did you mean op_100?") || !strings.Contains(msg, "the 200 tools") {
		t.Errorf("Error() = %q", msg)
	}
	small := &UnknownToolError{Name: "x", Valid: valid[:3]}
	if got := small.Expected(); got != "one of op_000, op_001, op_002" {
		t.Errorf("Expected() = %q", got)
	}
}
