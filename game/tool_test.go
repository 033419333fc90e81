package game

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

type moveArgs struct {
	Ship  string `json:"ship"`
	Speed int    `json:"speed,omitempty"`
}

func TestNewToolDecodesOnceAndDispatches(t *testing.T) {
	var got moveArgs
	tools := Tools{
		NewTool(ToolDef[moveArgs]{
			Name: "move", Description: "move a ship", Kind: Act,
			Adjust: func(s *jsonschema.Schema) *jsonschema.Schema { return Min(s, "speed", 1) },
			Run: func(_ context.Context, a moveArgs) (Result, error) {
				got = a
				return Result{Output: "moved " + a.Ship}, nil
			},
			DryRun: func(_ context.Context, a moveArgs) (Simulation, bool, error) {
				if a.Speed == 0 {
					return Simulation{}, false, nil
				}
				return Simulation{Summary: "would move", Fails: a.Speed > 9}, true, nil
			},
			Check: func(a moveArgs) []Problem {
				if strings.HasPrefix(a.Ship, ".") {
					return []Problem{{Path: "arguments.ship", Expected: "a ship symbol", Got: a.Ship}}
				}
				return nil
			},
		}),
	}
	tool, ok := tools.Find("move")
	if !ok || !tool.DryRun || tool.Kind != Act || tool.Schema.Properties["speed"].Minimum == nil {
		t.Fatalf("tool built wrong: %+v", tool)
	}
	res, err := tools.Call(context.Background(), "move", json.RawMessage(`{"ship":"X-1","speed":3}`))
	if err != nil || res.Output != "moved X-1" || got != (moveArgs{"X-1", 3}) {
		t.Fatalf("Call = %+v, %v; handler got %+v", res, err, got)
	}
	sim, ok, err := tools.Simulate(context.Background(), "move", json.RawMessage(`{"ship":"X-1","speed":12}`))
	if err != nil || !ok || !sim.Fails {
		t.Fatalf("Simulate = %+v, %v, %v; want a predicted failure", sim, ok, err)
	}
	if _, ok, _ := tools.Simulate(context.Background(), "move", json.RawMessage(`{"ship":"X-1"}`)); ok {
		t.Fatal("a dry run that cannot say must answer ok=false")
	}
	if p := tool.Check(json.RawMessage(`{"ship":".."}`)); len(p) != 1 || p[0].Path != "arguments.ship" {
		t.Fatalf("Check = %+v", p)
	}
	if p := tool.Check(json.RawMessage(`{"ship":"X-1"}`)); len(p) != 0 {
		t.Fatalf("Check of good args = %+v", p)
	}
	if _, err := tools.Call(context.Background(), "nope", nil); err == nil {
		t.Fatal("calling an unknown tool must fail")
	}
}

func TestNewToolWithoutDryRunSaysSo(t *testing.T) {
	tool := NewTool(ToolDef[moveArgs]{Name: "look", Kind: Read,
		Run: func(context.Context, moveArgs) (Result, error) { return Result{}, nil }})
	if tool.DryRun || tool.Simulate != nil || tool.Check != nil {
		t.Fatalf("optional parts set: %+v", tool)
	}
	if _, ok, err := (Tools{tool}).Simulate(context.Background(), "look", nil); ok || err != nil {
		t.Fatal("a tool with no dry run must answer ok=false")
	}
}
