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

// FromGame reports whether the named tool is the game's (not one a caller added, such
// as the notebook's): calling it reaches the game.
func (r *Registry) FromGame(name string) bool { return r.fromGame[name] }

// UnknownToolError is returned for a tool name that is not in the catalogue.
type UnknownToolError struct {
	Name  string
	Valid []string // every tool name, sorted
	Near  []string // the closest names, if any
}

// Error names the unknown tool and the valid ones (see Expected).
func (e *UnknownToolError) Error() string {
	s := fmt.Sprintf("unknown tool %q", e.Name)
	if len(e.Near) > 0 {
		s += " (did you mean " + orList(e.Near) + "?)"
	}
	if len(e.Valid) <= maxToolsListed {
		return s + "; valid tools: " + strings.Join(e.Valid, ", ")
	}
	return s + "; valid tools: " + strings.TrimPrefix(e.Expected(), "one of ")
}

// maxToolsListed is the most tool names an unknown tool's error lists: a catalogue of
// hundreds would cost a model thousands of tokens at every typo, and the names near the
// mistake are given besides.
const maxToolsListed = 30

// Expected says which tools exist: every name in a small catalogue ("one of a, b"),
// else how many there are and where they are named.
func (e *UnknownToolError) Expected() string {
	if len(e.Valid) <= maxToolsListed {
		return "one of " + strings.Join(e.Valid, ", ")
	}
	return fmt.Sprintf("one of the %d tools by its exact name (those sent with the request, and any index of the others)", len(e.Valid))
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

// Validate checks a call: the tool exists and its arguments pass ValidateTool (schema,
// duplicate keys, the game's own checks). The error is an *UnknownToolError or a
// *ValidationError.
func (r *Registry) Validate(name string, args json.RawMessage) error {
	_, err := r.Check(name, args)
	return err
}

// ValidCall is a call that passed validation. Only Registry.Check makes one, so a
// ValidCall in hand means the checks ran; CallValidated and SimulateValidated trust it
// rather than check again.
type ValidCall struct {
	tool Tool
	args json.RawMessage
}

// Tool returns the catalogue entry the call is for.
func (v ValidCall) Tool() Tool { return v.tool }

// Args returns the validated arguments, compacted. The caller must not modify them.
func (v ValidCall) Args() json.RawMessage { return v.args }

// Check validates a call once (the tool exists, ValidateTool passes) and returns it
// ready to run, or an *UnknownToolError or a *ValidationError.
func (r *Registry) Check(name string, args json.RawMessage) (ValidCall, error) {
	t, err := r.Lookup(name)
	if err != nil {
		return ValidCall{}, err
	}
	out, err := ValidateTool(t, args)
	if err != nil {
		return ValidCall{}, err
	}
	return ValidCall{tool: t, args: out}, nil
}

// Call validates and then runs a call. Invalid calls never reach the handler. Callers
// that validated already (the agent's pipeline) use Check and CallValidated instead.
func (r *Registry) Call(ctx context.Context, name string, args json.RawMessage) (Result, error) {
	v, err := r.Check(name, args)
	if err != nil {
		return Result{}, err
	}
	return r.CallValidated(ctx, v)
}

// CallValidated runs a call Check accepted, without validating it again.
func (r *Registry) CallValidated(ctx context.Context, v ValidCall) (Result, error) {
	e, ok := r.tools[v.tool.Name]
	if !ok || v.args == nil {
		return Result{}, fmt.Errorf("game.Registry: CallValidated with a call Check did not make (tool %q)", v.tool.Name)
	}
	return e.handler(ctx, v.args)
}

// Simulate asks the game for a dry run of a valid call. ok is false when the tool is
// not the game's, the game cannot simulate, or it cannot predict this call.
func (r *Registry) Simulate(ctx context.Context, name string, args json.RawMessage) (Simulation, bool, error) {
	v, err := r.Check(name, args)
	if err != nil {
		return Simulation{}, false, err
	}
	return r.SimulateValidated(ctx, v)
}

// SimulateValidated is Simulate for a call Check accepted, without validating it again.
func (r *Registry) SimulateValidated(ctx context.Context, v ValidCall) (Simulation, bool, error) {
	sim, can := r.game.(Simulator)
	if !can || !r.fromGame[v.tool.Name] || !r.tools[v.tool.Name].tool.DryRun || v.args == nil {
		return Simulation{}, false, nil
	}
	return sim.Simulate(ctx, v.tool.Name, v.args)
}
