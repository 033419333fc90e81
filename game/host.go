package game

import (
	"context"
	"encoding/json"
	"errors"
)

// A game that is a party of its own (an MCP server) may want more of the runner than to
// be called: to ask the person a question in the middle of a call, to borrow the model,
// to show a call's progress and to log. The runner lends it a Host through the context
// of every call, like the WaitFunc (wait.go); a game reaches it with Ask, Sample,
// ReportProgress and Log, or keeps HostOf(ctx) for what arrives between calls. Nothing
// here can approve a call or change a rule: a Host only carries words to the person and
// the model, and their answers back.

// Question is something a game asks the person while a call runs: an MCP server's
// elicitation. Form mode has a Schema (a flat object of strings, numbers, booleans and
// enums); URL mode has a URL for the person to open instead.
type Question struct {
	Server  string          `json:"server"`           // who asks: the server's name
	Message string          `json:"message"`          // what it asks, in its words
	Schema  json.RawMessage `json:"schema,omitempty"` // form mode: the answer's JSON Schema
	URL     string          `json:"url,omitempty"`    // URL mode: the page to open
}

// Answer actions.
const (
	Accept  = "accept"  // the person answered (Content holds the answer in form mode)
	Decline = "decline" // the person said no
	Cancel  = "cancel"  // the person dismissed the question without choosing
)

// Answer is the person's answer to a Question.
type Answer struct {
	Action  string          `json:"action"`            // Accept, Decline or Cancel
	Content json.RawMessage `json:"content,omitempty"` // Accept in form mode: an object valid against the schema
}

// SampleMessage is one message of a sampling request.
type SampleMessage struct {
	Role string `json:"role"` // "user" or "assistant"
	Text string `json:"text"`
}

// SampleRequest is a game's request to borrow the model (MCP sampling/createMessage).
type SampleRequest struct {
	Server    string          `json:"server"`
	System    string          `json:"system,omitempty"`
	Messages  []SampleMessage `json:"messages"`
	MaxTokens int             `json:"max_tokens"`
}

// SampleResult is the model's answer to a SampleRequest.
type SampleResult struct {
	Text       string `json:"text"`
	Model      string `json:"model"`
	StopReason string `json:"stop_reason,omitempty"`
}

// Progress is how far a running call has come. Total is 0 when the game does not know
// how much there is (a counter rather than a bar).
type Progress struct {
	Server   string  `json:"server,omitempty"`
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// LogLine is one log message of a game's server (MCP notifications/message).
type LogLine struct {
	Server string          `json:"server"`
	Level  string          `json:"level"`            // debug, info, notice, warning, error, critical, alert, emergency
	Logger string          `json:"logger,omitempty"` // the server's name for the part that logged
	Data   json.RawMessage `json:"data"`             // any JSON: a string for most servers
}

// Host is what the runner lends a game. Ask and Sample block until the person (or the
// policy the person chose) decides, or ctx ends; Progress and Log never block for long.
// Its methods are safe for concurrent use.
type Host interface {
	// Ask puts q to the person and returns the answer.
	Ask(ctx context.Context, q Question) (Answer, error)
	// Sample has the model answer req once the person approved it; ErrDeclined when
	// the person or a cap said no.
	Sample(ctx context.Context, req SampleRequest) (SampleResult, error)
	// Progress reports how far the running call has come.
	Progress(p Progress)
	// Log passes on a log message of the game's server.
	Log(l LogLine)
}

// ErrNoHost is returned by Ask and Sample when nobody lent the game a Host (a test, or
// `coplay tools`).
var ErrNoHost = errors.New("no person or model to ask here")

// ErrDeclined is returned by Host.Sample when the request was declined.
var ErrDeclined = errors.New("declined")

type hostKey struct{}

// WithHost returns a context whose games reach h.
func WithHost(ctx context.Context, h Host) context.Context {
	return context.WithValue(ctx, hostKey{}, h)
}

// HostOf returns the Host of ctx, or nil.
func HostOf(ctx context.Context) Host {
	h, _ := ctx.Value(hostKey{}).(Host)
	return h
}

// Ask puts q to the person through the Host of ctx.
func Ask(ctx context.Context, q Question) (Answer, error) {
	if h := HostOf(ctx); h != nil {
		return h.Ask(ctx, q)
	}
	return Answer{}, ErrNoHost
}

// Sample borrows the model through the Host of ctx.
func Sample(ctx context.Context, req SampleRequest) (SampleResult, error) {
	if h := HostOf(ctx); h != nil {
		return h.Sample(ctx, req)
	}
	return SampleResult{}, ErrNoHost
}

// ReportProgress tells the Host of ctx, if any, how far the running call has come.
func ReportProgress(ctx context.Context, p Progress) {
	if h := HostOf(ctx); h != nil {
		h.Progress(p)
	}
}

// Log passes a server's log message to the Host of ctx, if any.
func Log(ctx context.Context, l LogLine) {
	if h := HostOf(ctx); h != nil {
		h.Log(l)
	}
}

// SchemaDefaults returns content with every property of schema it leaves out and the
// schema gives a default for filled in with that default (SEP-1034: what the person did
// not change keeps the server's default). content may be empty ({}); the result is a
// JSON object.
func SchemaDefaults(schema, content json.RawMessage) (json.RawMessage, error) {
	var s struct {
		Properties map[string]struct {
			Default json.RawMessage `json:"default"`
		} `json:"properties"`
	}
	if len(schema) > 0 {
		if err := json.Unmarshal(schema, &s); err != nil {
			return nil, errors.New("the schema is not a JSON object: " + err.Error())
		}
	}
	obj := map[string]json.RawMessage{}
	if len(content) > 0 {
		if err := json.Unmarshal(content, &obj); err != nil {
			return nil, errors.New("content must be a JSON object: " + err.Error())
		}
		if obj == nil {
			obj = map[string]json.RawMessage{}
		}
	}
	for name, p := range s.Properties {
		if _, ok := obj[name]; !ok && len(p.Default) > 0 {
			obj[name] = p.Default
		}
	}
	return json.Marshal(obj)
}
