package game

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// ToolDef defines one tool in one place: its name, what it does, its kind, its
// arguments (the type T: the schema is built from it), what runs it, and optionally a
// dry run and the game's own checks. NewTool turns it into a Tool.
//
// Every function of a ToolDef receives arguments that were already validated against
// the schema and decoded into T once: a handler never parses JSON.
type ToolDef[T any] struct {
	Name        string
	Description string
	Kind        Kind
	// SchemaOptions adjust the schema built from T (WithEnum for closed sets).
	SchemaOptions []SchemaOption
	// Adjust, if set, edits the built schema for what a Go type cannot say (Min).
	Adjust func(*jsonschema.Schema) *jsonschema.Schema
	// Run makes the call. A refusal by the game is a Result with Err set; error is for
	// when the game could not be asked at all.
	Run func(ctx context.Context, args T) (Result, error)
	// DryRun, if set, predicts the call without making it (ok=false: it cannot say for
	// these arguments; it never guesses).
	DryRun func(ctx context.Context, args T) (sim Simulation, ok bool, err error)
	// Effects names the numbers DryRun may report (Tool.Effects), for approval rules.
	Effects []string
	// Check, if set, adds the game's own checks to validation (a trade good against the
	// game's list, a symbol that becomes a URL path segment). It runs only on arguments
	// that passed the schema, and returns every problem it finds.
	Check func(args T) []Problem
}

// RunFunc runs a tool's validated arguments; see Tool.Run.
type RunFunc func(ctx context.Context, args json.RawMessage) (Result, error)

// SimulateFunc is a tool's dry run over validated arguments; see Tool.Simulate.
type SimulateFunc func(ctx context.Context, args json.RawMessage) (sim Simulation, ok bool, err error)

// NewTool builds a Tool from its definition. It panics when the definition is
// incomplete (no name or no Run), a programming error found when the catalogue is
// first built.
func NewTool[T any](d ToolDef[T]) Tool {
	if d.Name == "" || d.Run == nil {
		panic(fmt.Sprintf("game.NewTool: tool %q needs a name and a Run function", d.Name))
	}
	s := SchemaFor[T](d.SchemaOptions...)
	if d.Adjust != nil {
		s = d.Adjust(s)
	}
	t := Tool{Name: d.Name, Description: d.Description, Kind: d.Kind, Schema: s}
	run := d.Run
	t.Run = func(ctx context.Context, args json.RawMessage) (Result, error) {
		v, err := decodeArgs[T](d.Name, args)
		if err != nil {
			return Result{}, err
		}
		return run(ctx, v)
	}
	if d.DryRun != nil {
		dry := d.DryRun
		t.DryRun = true
		t.Effects = d.Effects
		t.Simulate = func(ctx context.Context, args json.RawMessage) (Simulation, bool, error) {
			v, err := decodeArgs[T](d.Name, args)
			if err != nil {
				return Simulation{}, false, err
			}
			return dry(ctx, v)
		}
	}
	if d.Check != nil {
		check := d.Check
		t.Check = func(args json.RawMessage) []Problem {
			v, err := decodeArgs[T](d.Name, args)
			if err != nil {
				return []Problem{{Path: "arguments", Expected: "arguments matching the schema", Got: err.Error()}}
			}
			return check(v)
		}
	}
	return t
}

// decodeArgs decodes validated arguments into T; an empty argument string means {}.
func decodeArgs[T any](tool string, args json.RawMessage) (T, error) {
	var v T
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if err := json.Unmarshal(args, &v); err != nil {
		return v, fmt.Errorf("%s: decoding validated arguments: %w", tool, err)
	}
	return v, nil
}

// Tools is a catalogue built with NewTool. A game can keep one and answer Call and
// Simulate with it, so that a tool's name, schema, handler and dry run live in one place.
type Tools []Tool

// Find returns the tool named name.
func (ts Tools) Find(name string) (Tool, bool) {
	for _, t := range ts {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// Call runs the named tool with arguments already validated against its schema.
func (ts Tools) Call(ctx context.Context, name string, args json.RawMessage) (Result, error) {
	t, ok := ts.Find(name)
	if !ok || t.Run == nil {
		return Result{}, fmt.Errorf("no tool %q to run", name)
	}
	return t.Run(ctx, args)
}

// Simulate runs the named tool's dry run, or answers ok=false when it has none.
func (ts Tools) Simulate(ctx context.Context, name string, args json.RawMessage) (Simulation, bool, error) {
	t, ok := ts.Find(name)
	if !ok || t.Simulate == nil {
		return Simulation{}, false, nil
	}
	return t.Simulate(ctx, args)
}

// ToolSet returns the names of tools as a set; nil when there are none (a brain asked
// with no catalogue may use any tool).
func ToolSet(tools []Tool) map[string]bool {
	if len(tools) == 0 {
		return nil
	}
	m := make(map[string]bool, len(tools))
	for _, t := range tools {
		m[t.Name] = true
	}
	return m
}
