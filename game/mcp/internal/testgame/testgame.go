// Package testgame is a tiny MCP game server for game/mcp's tests: a treasure hunt on a
// grid. It has a read-only look tool, an act move tool with an enum, a resource
// game://state, a dig tool that appears (notifications/tools/list_changed) after two
// moves and answers isError when there is nothing to find, a photo tool that answers
// with an image, and a stall tool that waits until the test lets it go.
//
// Its tools do not validate their arguments (the SDK's Server.AddTool leaves that to
// the tool), so a test can see that invalid calls never reach it.
package testgame

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coplayhq/coplay/game/mcp/mcptest"
)

// Instructions are the server's instructions (the game's rules).
const Instructions = "Find the treasure on the grid. Look, move, and dig where you think it is."

// Hunt is the game's state and what the server received.
type Hunt struct {
	Server *sdk.Server

	mu      sync.Mutex
	x, y    int
	moves   int
	found   bool
	calls   map[string][]string // tool → raw arguments received, in order
	stalled chan struct{}       // closed by Release
	started chan struct{}       // receives when stall is running
}

// New returns a fresh hunt and its server.
func New() *Hunt {
	h := &Hunt{calls: map[string][]string{}, stalled: make(chan struct{}), started: make(chan struct{}, 8)}
	h.Server = sdk.NewServer(&sdk.Implementation{Name: "treasure-hunt", Title: "Treasure Hunt", Version: "1.0"},
		&sdk.ServerOptions{Instructions: Instructions})
	s := h.Server
	s.AddTool(&sdk.Tool{Name: "look", Title: "Look around", Description: "Says where you are.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
		InputSchema: &jsonschema.Schema{Type: "object"}}, h.look)
	s.AddTool(&sdk.Tool{Name: "move", Description: "Moves you on the grid.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{
			"direction":{"type":"string","enum":["north","south","east","west"]},
			"steps":{"type":"integer","minimum":1,"maximum":3}},
			"required":["direction"],"additionalProperties":false}`)}, h.move)
	s.AddTool(&sdk.Tool{Name: "photo", Description: "Takes a photo.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
		InputSchema: &jsonschema.Schema{Type: "object"}}, h.photo)
	s.AddTool(&sdk.Tool{Name: "stall", Description: "Waits until released.",
		InputSchema: &jsonschema.Schema{Type: "object"}}, h.stall)
	s.AddResource(&sdk.Resource{URI: "game://state", Name: "state", MIMEType: "application/json"}, h.state)
	return h
}

// Calls returns the raw arguments the server received for a tool.
func (h *Hunt) Calls(tool string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.calls[tool]...)
}

// Stalling returns a channel that receives when stall starts running.
func (h *Hunt) Stalling() <-chan struct{} { return h.started }

// Release lets every stall call finish.
func (h *Hunt) Release() { close(h.stalled) }

func (h *Hunt) record(req *sdk.CallToolRequest) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls[req.Params.Name] = append(h.calls[req.Params.Name], string(req.Params.Arguments))
}

func (h *Hunt) look(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	h.record(req)
	h.mu.Lock()
	defer h.mu.Unlock()
	r := mcptest.Text(fmt.Sprintf("You are at (%d,%d) after %d moves.", h.x, h.y, h.moves))
	r.StructuredContent = map[string]int{"x": h.x, "y": h.y}
	return r, nil
}

func (h *Hunt) move(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	h.record(req)
	var args struct {
		Direction string `json:"direction"`
		Steps     int    `json:"steps"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
		return nil, err
	}
	if args.Steps == 0 {
		args.Steps = 1
	}
	h.mu.Lock()
	switch args.Direction {
	case "north":
		h.y += args.Steps
	case "south":
		h.y -= args.Steps
	case "east":
		h.x += args.Steps
	case "west":
		h.x -= args.Steps
	}
	h.moves++
	unlock := h.moves == 2
	x, y := h.x, h.y
	h.mu.Unlock()
	if unlock {
		h.Server.AddTool(&sdk.Tool{Name: "dig", Description: "Digs here for the treasure.",
			InputSchema: &jsonschema.Schema{Type: "object"}}, h.dig)
	}
	return mcptest.Text(fmt.Sprintf("Moved %s to (%d,%d).", args.Direction, x, y)), nil
}

func (h *Hunt) dig(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	h.record(req)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.x != 2 || h.y != 1 {
		r := mcptest.Text(fmt.Sprintf("Nothing buried at (%d,%d).", h.x, h.y))
		r.IsError = true
		return r, nil
	}
	h.found = true
	return mcptest.Text("You found the treasure!"), nil
}

func (h *Hunt) photo(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	h.record(req)
	img := make([]byte, 12*1024)
	return &sdk.CallToolResult{Content: []sdk.Content{
		&sdk.TextContent{Text: "A photo of the grid."},
		&sdk.ImageContent{MIMEType: "image/png", Data: img},
	}}, nil
}

func (h *Hunt) stall(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	h.record(req)
	h.started <- struct{}{}
	select {
	case <-h.stalled:
	case <-ctx.Done():
	}
	return mcptest.Text("released"), nil
}

func (h *Hunt) state(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"x": h.x, "y": h.y, "moves": h.moves, "found": h.found})
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(b)}}}, nil
}
