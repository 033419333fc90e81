package game

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Handler runs one tool's validated arguments.
type Handler func(ctx context.Context, args json.RawMessage) (Result, error)

// Registry is the catalogue the agent calls through: tools from a game, and any the
// caller adds (the notebook's). It validates arguments before a handler sees them.
// A Registry is safe for concurrent use once built.
type Registry struct {
	tools    map[string]entry
	order    []string
	game     Game
	fromGame map[string]bool
}

type entry struct {
	tool    Tool
	handler Handler
}

// NewRegistry returns a registry holding g's tools (g may be nil).
func NewRegistry(g Game) *Registry {
	r := &Registry{tools: map[string]entry{}, game: g, fromGame: map[string]bool{}}
	if g != nil {
		for _, t := range g.Tools() {
			name := t.Name
			r.Add(t, func(ctx context.Context, args json.RawMessage) (Result, error) {
				return g.Call(ctx, name, args)
			})
			r.fromGame[name] = true
		}
	}
	return r
}

// Add puts a tool in the catalogue. It panics on a duplicate name or a missing schema,
// which are programming errors.
func (r *Registry) Add(t Tool, h Handler) {
	if _, dup := r.tools[t.Name]; dup {
		panic(fmt.Sprintf("game.Registry: duplicate tool %q", t.Name))
	}
	if t.Schema == nil || h == nil {
		panic(fmt.Sprintf("game.Registry: tool %q needs a schema and a handler", t.Name))
	}
	r.tools[t.Name] = entry{t, h}
	r.order = append(r.order, t.Name)
}

// Tools returns the catalogue in the order tools were added.
func (r *Registry) Tools() []Tool {
	out := make([]Tool, len(r.order))
	for i, n := range r.order {
		out[i] = r.tools[n].tool
	}
	return out
}

// UnknownToolError is returned for a tool name that is not in the catalogue.
type UnknownToolError struct {
	Name  string
	Valid []string // every tool name, sorted
	Near  []string // the closest names, if any
}

// Error names the unknown tool and the valid ones.
func (e *UnknownToolError) Error() string {
	s := fmt.Sprintf("unknown tool %q", e.Name)
	if len(e.Near) > 0 {
		s += " (did you mean " + orList(e.Near) + "?)"
	}
	return s + "; valid tools: " + strings.Join(e.Valid, ", ")
}

// Lookup returns the named tool, or an *UnknownToolError.
func (r *Registry) Lookup(name string) (Tool, error) {
	e, ok := r.tools[name]
	if !ok {
		valid := append([]string(nil), r.order...)
		sort.Strings(valid)
		return Tool{}, &UnknownToolError{Name: name, Valid: valid, Near: Closest(name, valid, 3)}
	}
	return e.tool, nil
}

// Validate checks a call: the tool exists and its arguments match the schema. The
// error is an *UnknownToolError or a *ValidationError.
func (r *Registry) Validate(name string, args json.RawMessage) error {
	t, err := r.Lookup(name)
	if err != nil {
		return err
	}
	return Validate(name, t.Schema, args)
}

// Call validates and then runs a call. Invalid calls never reach the handler.
func (r *Registry) Call(ctx context.Context, name string, args json.RawMessage) (Result, error) {
	if err := r.Validate(name, args); err != nil {
		return Result{}, err
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	return r.tools[name].handler(ctx, args)
}

// Simulate asks the game for a dry run of a valid call. ok is false when the tool is
// not the game's, the game cannot simulate, or it cannot predict this call.
func (r *Registry) Simulate(ctx context.Context, name string, args json.RawMessage) (Simulation, bool, error) {
	sim, can := r.game.(Simulator)
	if !can || !r.fromGame[name] || !r.tools[name].tool.DryRun {
		return Simulation{}, false, nil
	}
	if err := r.Validate(name, args); err != nil {
		return Simulation{}, false, err
	}
	return sim.Simulate(ctx, name, args)
}
