package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Faults is a small MCP game for fault tests, served in-process over streamable HTTP
// or by a test binary re-executed over stdio (ServeFaultsStdio). Its tools:
//
//   - look (read-only): says where you are;
//   - move {"to": string} (act): moves there;
//   - hang (act): takes the call and never answers; when the client cancels it
//     (notifications/cancelled) it records "cancelled hang";
//   - die (act): writes "fatal: the reactor melted" on stderr and ends the server
//     (over stdio it exits with status 3; over HTTP it calls OnDie).
//
// Every call it receives is recorded as "TOOL ARGS", in memory and, when Log is set,
// appended to that file (a stdio server runs in another process).
type Faults struct {
	Server *sdk.Server
	// Log, if set, is a file every record is appended to.
	Log string
	// OnDie ends the server for die; nil: exit the process with status 3.
	OnDie func()
	// Hanging receives when a hang call starts.
	Hanging chan struct{}

	mu      sync.Mutex
	at      string
	records []string
}

// NewFaults builds the fault game's server.
func NewFaults() *Faults {
	f := &Faults{at: "the gate", Hanging: make(chan struct{}, 16)}
	f.Server = sdk.NewServer(&sdk.Implementation{Name: "faults", Title: "Faults", Version: "1.0"},
		&sdk.ServerOptions{Instructions: "Move around. Some tools misbehave on purpose."})
	open := &jsonschema.Schema{Type: "object"}
	f.Server.AddTool(&sdk.Tool{Name: "look", Description: "Says where you are.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}, InputSchema: open}, f.look)
	f.Server.AddTool(&sdk.Tool{Name: "move", Description: "Moves you to a place.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"to":{"type":"string"}},"required":["to"],"additionalProperties":false}`)}, f.move)
	f.Server.AddTool(&sdk.Tool{Name: "hang", Description: "Takes the call and never answers.", InputSchema: open}, f.hang)
	f.Server.AddTool(&sdk.Tool{Name: "die", Description: "Ends the server.", InputSchema: open}, f.die)
	return f
}

// ServeFaultsStdio serves a fault game over stdin and stdout, recording to the file
// named by the environment variable logEnv, and exits: for a test binary re-executed
// as the server (from TestMain).
func ServeFaultsStdio(logEnv string) {
	f := NewFaults()
	f.Log = os.Getenv(logEnv)
	fmt.Fprintln(os.Stderr, "faults: serving over stdio")
	if err := f.Server.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "faults:", err)
	}
	os.Exit(0)
}

// Records returns what the server received and saw, in order: "TOOL ARGS" for each
// call, "cancelled TOOL" for each cancellation.
func (f *Faults) Records() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.records...)
}

// ReadRecords reads the records a server (of another process) appended to log.
func ReadRecords(log string) []string {
	data, _ := os.ReadFile(log)
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

func (f *Faults) record(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.records = append(f.records, s)
	if f.Log != "" {
		if file, err := os.OpenFile(f.Log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600); err == nil {
			fmt.Fprintln(file, s)
			file.Close()
		}
	}
}

func (f *Faults) received(req *sdk.CallToolRequest) {
	f.record(req.Params.Name + " " + string(req.Params.Arguments))
}

// Text is a tool result of one text block, as the test servers answer.
func Text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

func (f *Faults) look(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	f.received(req)
	f.mu.Lock()
	defer f.mu.Unlock()
	return Text("You are at " + f.at + "."), nil
}

func (f *Faults) move(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	f.received(req)
	var a struct {
		To string `json:"to"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.at = a.To
	f.mu.Unlock()
	return Text("Moved to " + a.To + "."), nil
}

func (f *Faults) hang(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	f.received(req)
	select {
	case f.Hanging <- struct{}{}:
	default:
	}
	<-ctx.Done()
	f.record("cancelled hang")
	return nil, ctx.Err()
}

func (f *Faults) die(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	f.received(req)
	fmt.Fprintln(os.Stderr, "fatal: the reactor melted")
	if f.OnDie != nil {
		f.OnDie()
		return Text("dying"), nil
	}
	os.Exit(3)
	return nil, nil
}
