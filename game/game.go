// Package game defines what coplay plays: a Game with a catalogue of typed tools, what
// the world looks like (Observation), and what a call returns (Result). It also checks
// tool arguments against their JSON Schema before any game sees them, and keeps the
// catalogue in a Registry the agent calls through.
//
// Package game imports nothing else of coplay's; games (game/spacetraders, later
// game/mcp) implement its interfaces.
package game

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// Game is something an agent can play through typed tools.
type Game interface {
	// Info names the game and summarizes its rules for the system prompt.
	Info() Info
	// Tools returns the game's typed catalogue. It does not change while the game runs,
	// unless the game is a Refresher and says so.
	Tools() []Tool
	// Observe returns the current state of the world.
	Observe(ctx context.Context) (Observation, error)
	// Call runs the named tool with arguments already validated against its schema.
	// A refusal by the game (not enough fuel, say) is a Result with Err set, not an
	// error; error is for when the game could not be asked at all.
	Call(ctx context.Context, name string, args json.RawMessage) (Result, error)
}

// Refresher is implemented by games whose catalogue can change while they run (an MCP
// server's notifications/tools/list_changed). ToolsChanged reports, once per change,
// that Tools returns something new; the runner then rebuilds its catalogue before the
// next step, and the game tells the model what changed in its next observation.
type Refresher interface {
	ToolsChanged() bool
}

// Simulator is implemented by games that can predict the outcome of some calls without
// making them (a dry run). Simulate returns ok=false when it cannot predict this call;
// it never guesses.
type Simulator interface {
	Simulate(ctx context.Context, name string, args json.RawMessage) (sim Simulation, ok bool, err error)
}

// Info describes a game to the agent and the person.
type Info struct {
	Name  string // short, e.g. "spacetraders"
	Title string // for the screen, e.g. "SpaceTraders (offline universe)"
	Rules string // markdown rules summary for the system prompt
}

// Kind says what a tool does to the world, which decides whether a person is asked.
type Kind int

const (
	// Read tools only look. They run without asking.
	Read Kind = iota
	// Act tools change the game. A person approves them unless told to always allow.
	Act
	// Note tools change only the agent's notebook. They run without asking.
	Note
	// Unknown is the kind of a call to a tool that is not in the catalogue (a name the
	// model made up): such a call is refused before anything runs it.
	Unknown Kind = -1
)

// String returns "read", "act", "note" or "unknown".
func (k Kind) String() string {
	switch k {
	case Unknown:
		return "unknown"
	case Read:
		return "read"
	case Act:
		return "act"
	case Note:
		return "note"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// MarshalText encodes the kind as its name.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText decodes a kind from its name.
func (k *Kind) UnmarshalText(b []byte) error {
	switch string(b) {
	case "read":
		*k = Read
	case "act":
		*k = Act
	case "note":
		*k = Note
	case "unknown":
		*k = Unknown
	default:
		return fmt.Errorf("unknown tool kind %q (want read, act, note or unknown)", b)
	}
	return nil
}

// Tool is one typed action or query.
type Tool struct {
	Name        string             // snake_case, unique in a catalogue
	Description string             // for the model: what it does and when to use it
	Kind        Kind               // Read, Act or Note
	Schema      *jsonschema.Schema // the arguments: a JSON object schema
	DryRun      bool               // the game's Simulator can predict some calls of this tool
	// Effects names the numbers its dry run may predict (Simulation.Effects: "fuel",
	// "cost"), the names an approval rule's condition can use; a rule naming another is
	// refused when it is added. nil: not declared, any name is taken.
	Effects []string `json:"effects,omitempty"`
	// Group, if set, is where the tool belongs in a catalogue too long to send whole
	// (an OpenAPI tag, an MCP server): the model's index of deferred tools is grouped by it.
	Group string `json:"group,omitempty"`
	// Check, if set, adds the game's own checks (a trade good against the game's list,
	// a symbol that becomes a URL path segment) to schema validation. It runs only on
	// arguments that passed the schema, in the same single validation, and returns
	// every problem it finds; none means the arguments are good.
	Check func(args json.RawMessage) []Problem `json:"-"`
	// Run, if set, runs the tool (set by NewTool); a game built on NewTool answers Call
	// with it (Tools.Call).
	Run RunFunc `json:"-"`
	// Simulate, if set, is the tool's dry run (set by NewTool with DryRun).
	Simulate SimulateFunc `json:"-"`
}

// EmptyObjectSchema is the schema of a tool that takes no arguments, as the model APIs
// want it: they require an object schema, properties and all.
const EmptyObjectSchema = `{"type":"object","properties":{}}`

// SchemaJSON is the tool's schema as a model request carries it: its JSON, or
// EmptyObjectSchema for a tool without one.
func (t Tool) SchemaJSON() (json.RawMessage, error) {
	if t.Schema == nil {
		return json.RawMessage(EmptyObjectSchema), nil
	}
	return json.Marshal(t.Schema)
}

// Observation is the state of the world, for the model to read and the screen to draw.
type Observation struct {
	Summary string    `json:"summary"`           // compact markdown, sent to the model every step
	Metrics []Metric  `json:"metrics,omitempty"` // numbers worth plotting over time (credits, cargo used)
	Timers  []Timer   `json:"timers,omitempty"`  // things that finish at a known time
	Map     *Map      `json:"map,omitempty"`     // the current neighbourhood, if the game has one
	Time    time.Time `json:"time"`              // when the observation was taken
	// IdleUntil, when set, says nothing can usefully act before then (every ship is
	// travelling or cooling down); the agent may wait until then.
	IdleUntil time.Time `json:"idle_until,omitzero"`
	// IdleReason says why, for the "waiting until T, because …" message.
	IdleReason string `json:"idle_reason,omitempty"`
}

// Metric is one named number at the time of an observation.
type Metric struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit,omitempty"`
}

// Timer is something that ends at a known time: a ship's arrival, a cooldown.
type Timer struct {
	Label string    `json:"label"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// Map is a set of labelled points in one plane.
type Map struct {
	Title  string  `json:"title"`
	Points []Point `json:"points"`
}

// Point is a place on a Map. Marks are short labels of what is there (ships).
type Point struct {
	Label string   `json:"label"`
	Kind  string   `json:"kind,omitempty"`
	X     float64  `json:"x"`
	Y     float64  `json:"y"`
	Marks []string `json:"marks,omitempty"`
}

// Result is the outcome of a call.
type Result struct {
	// Output is what the model reads: compact text or JSON.
	Output string `json:"output,omitempty"`
	// Err is set when the game refused the call; the call had no effect.
	Err *Error `json:"error,omitempty"`
	// Wait is set when the game asks the caller to wait before going on.
	Wait *Wait `json:"wait,omitempty"`
	// Unknown is set when the request may or may not have taken effect (the response
	// was lost); the caller must observe again before deciding anything.
	Unknown bool `json:"unknown,omitempty"`
}

// OK reports whether the call succeeded.
func (r Result) OK() bool { return r.Err == nil && !r.Unknown }

// Text is what a player reads of a result: the output, or the refusal, or that the
// outcome is not known; and the wait the game asks for, followed by waitNote (what the
// caller does about it: "; the runner waits before your next step").
func (r Result) Text(waitNote string) string {
	var b strings.Builder
	switch {
	case r.Unknown && r.Output != "":
		b.WriteString(r.Output) // the game or the caller says why (a deadline, a server that died)
	case r.Unknown:
		b.WriteString("outcome unknown: the response was lost; observe before acting")
	case r.Err != nil:
		b.WriteString(r.Err.Error())
		if len(r.Err.Data) > 0 {
			b.WriteString(" ")
			var c bytes.Buffer
			if json.Compact(&c, r.Err.Data) == nil {
				b.Write(c.Bytes())
			} else {
				b.Write(r.Err.Data)
			}
		}
	case r.Output == "":
		b.WriteString("ok")
	default:
		b.WriteString(r.Output)
	}
	if r.Wait != nil {
		fmt.Fprintf(&b, "\nThe game asks to wait until %s (%s)%s.", r.Wait.Until.UTC().Format(time.RFC3339), r.Wait.Reason, waitNote)
	}
	return b.String()
}

// Error is a refusal from the game, with the game's own code and message.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error returns "game error CODE: MESSAGE".
func (e *Error) Error() string { return fmt.Sprintf("game error %d: %s", e.Code, e.Message) }

// Wait asks the caller to come back at Until.
type Wait struct {
	Until  time.Time `json:"until"`
	Reason string    `json:"reason"`
}

// Simulation is a predicted outcome of a call that was not made.
type Simulation struct {
	Summary string `json:"summary"`        // e.g. "uses 38 fuel (have 400), arrives 15:04:05"
	Fails   bool   `json:"fails"`          // the game would refuse the call
	Warning string `json:"warn,omitempty"` // allowed, but probably not what you want
	// Effects are the predicted outcome's named numbers, for approval rules ("allow
	// purchase_cargo if cost <= 5000"): SpaceTraders reports cost, income, fuel and
	// seconds. Absent when the dry run predicts failure or cannot say.
	Effects map[string]float64 `json:"effects,omitempty"`
}

// Skipped is something a game offers that could not be made a tool (an OpenAPI
// operation whose request body has no JSON shape), and why, so that nothing is
// dropped in silence.
type Skipped struct {
	Name   string `json:"name"`   // the operation's id, or its method and path
	Reason string `json:"reason"` // why it is not a tool, for a person
}

// Skipper is implemented by games whose catalogue leaves some of what they offer out.
// `coplay tools` lists what is skipped, and the start of a session says how much.
type Skipper interface {
	Skipped() []Skipped
}
