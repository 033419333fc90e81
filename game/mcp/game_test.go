package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/mcp/internal/testgame"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// hunt is a treasure-hunt server reached over the SDK's in-memory transports. Every
// connect makes a new pair; drop ends the server side of the current one.
type hunt struct {
	*testgame.Hunt
	mu       sync.Mutex
	sessions []*sdk.ServerSession
	failNext int // connects to refuse
	dials    int
}

func (h *hunt) dial(ctx context.Context) (sdk.Transport, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dials++
	if h.failNext != 0 {
		if h.failNext > 0 {
			h.failNext--
		}
		return nil, errors.New("connection refused")
	}
	ct, st := sdk.NewInMemoryTransports()
	ss, err := h.Server.Connect(ctx, st, nil)
	if err != nil {
		return nil, err
	}
	h.sessions = append(h.sessions, ss)
	return ct, nil
}

func (h *hunt) drop() {
	h.mu.Lock()
	ss := h.sessions[len(h.sessions)-1]
	h.mu.Unlock()
	ss.Close()
}

func openHunt(t *testing.T, cfg Config) (*Game, *hunt) {
	t.Helper()
	h := &hunt{Hunt: testgame.New()}
	g, err := openWith(context.Background(), cfg, "treasure-hunt", h.dial)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	g.backoff = []time.Duration{0, time.Millisecond, time.Millisecond, time.Millisecond}
	t.Cleanup(func() { g.Close() })
	return g, h
}

func toolByName(t *testing.T, g *Game, name string) game.Tool {
	t.Helper()
	for _, tool := range g.Tools() {
		if tool.Name == name {
			return tool
		}
	}
	t.Fatalf("no tool %q in %v", name, g.cat.names())
	return game.Tool{}
}

func TestToolsInfoAndSchemas(t *testing.T) {
	g, _ := openHunt(t, Config{})
	kinds := map[string]game.Kind{}
	for _, tool := range g.Tools() {
		kinds[tool.Name] = tool.Kind
	}
	want := map[string]game.Kind{"look": game.Read, "photo": game.Read, "move": game.Act, "stall": game.Act}
	for name, k := range want {
		if got, ok := kinds[name]; !ok || got != k {
			t.Errorf("tool %s: kind %v (present %v), want %v", name, got, ok, k)
		}
	}
	if len(kinds) != len(want) {
		t.Errorf("tools %v, want exactly %v", kinds, want)
	}
	if d := toolByName(t, g, "look").Description; d != "Look around: Says where you are." {
		t.Errorf("look description %q: want the title, then the description", d)
	}
	move := toolByName(t, g, "move")
	if p := move.Schema.Properties["direction"]; p == nil || len(p.Enum) != 4 {
		t.Errorf("move schema lost its enum: %+v", move.Schema)
	}
	info := g.Info()
	if info.Rules != testgame.Instructions || !strings.Contains(info.Title, "Treasure Hunt") || info.Name != "mcp" {
		t.Errorf("info = %+v, want the server's instructions as rules and its title", info)
	}
	// Tools marshal well for `coplay tools --json`.
	b, err := json.Marshal(move)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"Name":"move"`, `"Kind":"act"`, `"enum":["north","south","east","west"]`, `"additionalProperties":false`} {
		if !strings.Contains(string(b), s) {
			t.Errorf("marshalled tool %s lacks %s", b, s)
		}
	}
}

func TestCallsAreValidatedBeforeSending(t *testing.T) {
	g, h := openHunt(t, Config{})
	reg := game.NewRegistry(g)
	ctx := context.Background()
	bad := []struct{ args, want string }{
		{`{"direction":"up"}`, `arguments.direction: expected one of "north", "south", "east", "west", got string "up"`},
		{`{"direction":"North"}`, `(did you mean north`},
		{`{"direction":"north","steps":"2"}`, `arguments.steps: expected an integer, got string "2" (send the number 2 without quotes)`},
		{`{"direction":"north","steps":9}`, `arguments.steps: expected a number ≤ 3, got 9`},
		{`{"direction":"north","speed":1}`, `arguments.speed: expected no property "speed" (valid: direction, steps)`},
		{`{}`, `arguments.direction: expected required one of "north", "south", "east", "west", got nothing (missing)`},
	}
	for _, b := range bad {
		_, err := reg.Call(ctx, "move", json.RawMessage(b.args))
		var ve *game.ValidationError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), b.want) {
			t.Errorf("move %s: error %v, want a validation error with %q", b.args, err, b.want)
		}
		// Game.Call validates too (the catalogue may have changed since the registry did).
		if _, err := g.Call(ctx, "move", json.RawMessage(b.args)); !errors.As(err, &ve) {
			t.Errorf("Game.Call move %s: error %v, want a validation error", b.args, err)
		}
	}
	if calls := h.Calls("move"); len(calls) != 0 {
		t.Fatalf("the server received invalid calls: %q", calls)
	}
	res, err := reg.Call(ctx, "move", json.RawMessage(`{"direction":"north","steps":2}`))
	if err != nil || !res.OK() || res.Output != "Moved north to (0,2)." {
		t.Fatalf("valid move: %+v, %v", res, err)
	}
	if calls := h.Calls("move"); len(calls) != 1 || calls[0] != `{"direction":"north","steps":2}` {
		t.Errorf("server received %q, want the one valid call as sent", calls)
	}
}

func TestResults(t *testing.T) {
	g, _ := openHunt(t, Config{})
	ctx := context.Background()
	res, err := g.Call(ctx, "look", nil)
	if err != nil || res.Output != "You are at (0,0) after 0 moves.\nstructuredContent: {\"x\":0,\"y\":0}" {
		t.Errorf("look: %q, %v: want the text and the structured content", res.Output, err)
	}
	res, err = g.Call(ctx, "photo", json.RawMessage(`{}`))
	if err != nil || res.Output != "A photo of the grid.\n[image image/png, 12 KB]" {
		t.Errorf("photo: %q, %v: want the image summarised", res.Output, err)
	}
	res, err = g.Call(ctx, "nope", json.RawMessage(`{}`))
	if err != nil || res.Err == nil || res.Err.Code != CodeNoTool {
		t.Errorf("unknown tool: %+v, %v", res, err)
	}
}

func TestObserve(t *testing.T) {
	ctx := context.Background()
	g, _ := openHunt(t, Config{Observe: []string{"game://state"}})
	obs, err := g.Observe(ctx)
	if err != nil || !strings.Contains(obs.Summary, "## game://state") || !strings.Contains(obs.Summary, `{"found":false,"moves":0,"x":0,"y":0}`) {
		t.Errorf("observe resource: %q, %v", obs.Summary, err)
	}
	g, _ = openHunt(t, Config{ObserveTool: "look"})
	if obs, err = g.Observe(ctx); err != nil || !strings.Contains(obs.Summary, "You are at (0,0)") {
		t.Errorf("observe tool: %q, %v", obs.Summary, err)
	}
	g, _ = openHunt(t, Config{})
	if obs, err = g.Observe(ctx); err != nil || !strings.Contains(obs.Summary, "use its read tools to look (look, photo)") {
		t.Errorf("observe nothing: %q, %v", obs.Summary, err)
	}
	h := &hunt{Hunt: testgame.New()}
	if _, err := openWith(ctx, Config{ObserveTool: "move"}, "treasure-hunt", h.dial); err == nil || !strings.Contains(err.Error(), "not marked read-only") {
		t.Errorf("observe with an act tool: %v, want refused", err)
	}
	if _, err := openWith(ctx, Config{ObserveTool: "map"}, "treasure-hunt", h.dial); err == nil || !strings.Contains(err.Error(), `observe tool "map" is not one of its tools`) {
		t.Errorf("observe with a missing tool: %v", err)
	}
}

// waitFor polls cond; the deadline only guards against a hang, it measures nothing.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

func TestToolListChanged(t *testing.T) {
	g, h := openHunt(t, Config{})
	ctx := context.Background()
	for _, args := range []string{`{"direction":"north"}`, `{"direction":"east"}`} {
		if res, err := g.Call(ctx, "move", json.RawMessage(args)); err != nil || !res.OK() {
			t.Fatalf("move: %+v %v", res, err)
		}
	}
	waitFor(t, "the list_changed notification", func() bool { g.mu.Lock(); defer g.mu.Unlock(); return g.listChanged })
	obs, err := g.Observe(ctx)
	if err != nil || !strings.Contains(obs.Summary, "The server's tools changed: new: dig (act).") {
		t.Fatalf("observation after list_changed: %q, %v", obs.Summary, err)
	}
	if !g.ToolsChanged() || g.ToolsChanged() {
		t.Error("ToolsChanged should say true once, then false")
	}
	if c := g.Changes(); !strings.Contains(c, "dig (act)") || g.Changes() != "" {
		t.Errorf("Changes = %q, want dig once", c)
	}
	toolByName(t, g, "dig")
	res, err := g.Call(ctx, "dig", nil)
	if err != nil || res.Err == nil || res.Err.Code != CodeToolError || res.Err.Message != "Nothing buried at (1,1)." {
		t.Errorf("dig in the wrong place: %+v, %v: want the isError text as a game error", res, err)
	}
	g.Call(ctx, "move", json.RawMessage(`{"direction":"east"}`))
	if res, err = g.Call(ctx, "dig", nil); err != nil || res.Output != "You found the treasure!" {
		t.Errorf("dig: %+v, %v", res, err)
	}
	if len(h.Calls("dig")) != 2 {
		t.Errorf("dig calls %q", h.Calls("dig"))
	}
}

func TestDropMidCall(t *testing.T) {
	g, h := openHunt(t, Config{Observe: []string{"game://state"}})
	ctx := context.Background()
	done := make(chan game.Result, 1)
	go func() {
		res, err := g.Call(ctx, "stall", nil)
		if err != nil {
			t.Errorf("stall: %v, want a Result with Unknown", err)
		}
		done <- res
	}()
	<-h.Stalling()
	h.drop()
	res := <-done
	if !res.Unknown || res.OK() || !strings.Contains(res.Output, "treasure-hunt") || !strings.Contains(res.Output, "will not be sent again") {
		t.Fatalf("lost answer: %+v, want Unknown naming the server", res)
	}
	// Reconnect with backoff: two refused attempts reported as waits, then back.
	h.mu.Lock()
	h.failNext = 2
	h.mu.Unlock()
	var waits []game.Wait
	wctx := game.WithWaitFunc(ctx, func(w game.Wait) { waits = append(waits, w) })
	obs, err := g.Observe(wctx)
	if err != nil || !strings.Contains(obs.Summary, "the world may have moved on") {
		t.Fatalf("observe after the drop: %q, %v", obs.Summary, err)
	}
	if len(waits) != 3 || !strings.Contains(waits[0].Reason, "MCP server treasure-hunt dropped") || !waits[2].Until.IsZero() {
		t.Errorf("waits %+v, want two reconnect waits naming the server, then the end of the wait", waits)
	}
	if n := len(h.Calls("stall")); n != 1 {
		t.Errorf("stall reached the server %d times, want once (never re-sent)", n)
	}
	if obs, _ = g.Observe(ctx); strings.Contains(obs.Summary, "moved on") {
		t.Errorf("the reconnect notice should be given once: %q", obs.Summary)
	}
	// A server that stays away: a clear error naming it.
	h.mu.Lock()
	h.failNext = -1
	h.mu.Unlock()
	h.drop()
	waitFor(t, "the session to end", func() bool { g.mu.Lock(); defer g.mu.Unlock(); return g.sess == nil })
	_, err = g.Observe(ctx)
	if err == nil || !strings.Contains(err.Error(), "mcp server treasure-hunt dropped") || !strings.Contains(err.Error(), "after 4 attempts") {
		t.Errorf("observe with the server gone: %v", err)
	}
	if _, err := g.Call(ctx, "move", json.RawMessage(`{"direction":"north"}`)); err == nil || !strings.Contains(err.Error(), "treasure-hunt") {
		t.Errorf("call with the server gone: %v, want an error (nothing was sent)", err)
	}
	h.Release()
}

func TestCapText(t *testing.T) {
	long := strings.Repeat("é", 20000) // 40,000 bytes
	got := capText(long, maxOutput)
	if len(got) > maxOutput+100 || !strings.Contains(got, "[… cut 23 KB of 39 KB: the output is longer than 16 KB]") {
		t.Errorf("capped to %d bytes, ends %q", len(got), got[len(got)-80:])
	}
	if capText("short", maxOutput) != "short" {
		t.Error("short text changed")
	}
}

func TestTopLevelClosed(t *testing.T) {
	tests := []struct {
		schema string
		args   string
		ok     bool
	}{
		{`{"type":"object","properties":{"a":{"type":"number"}}}`, `{"a":1,"c":2}`, false},                            // a parameter list: closed
		{`{"type":"object","properties":{}}`, `{"c":2}`, false},                                                       // no parameters
		{`{"type":"object"}`, `{"c":2}`, true},                                                                        // free-form
		{`{"type":"object","properties":{"a":{"type":"number"}},"additionalProperties":true}`, `{"a":1,"c":2}`, true}, // open on purpose
		{`{"type":"object","properties":{"o":{"type":"object","properties":{"x":{}}}}}`, `{"o":{"x":1,"y":2}}`, true}, // nested stays open
		{`{"type":"object","properties":{"a":{}},"anyOf":[{"properties":{"b":{}}}]}`, `{"a":1,"b":2}`, true},          // parameters from branches
	}
	for _, tt := range tests {
		var in any
		if err := json.Unmarshal([]byte(tt.schema), &in); err != nil {
			t.Fatal(err)
		}
		s, err := toSchema(in)
		if err != nil {
			t.Fatalf("%s: %v", tt.schema, err)
		}
		if err := game.Validate("t", s, json.RawMessage(tt.args)); (err == nil) != tt.ok {
			t.Errorf("%s with %s: %v, want ok=%v", tt.schema, tt.args, err, tt.ok)
		}
	}
	for _, bad := range []string{`{"type":"string"}`, `{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}}}`} {
		var in any
		json.Unmarshal([]byte(bad), &in)
		if _, err := toSchema(in); err == nil {
			t.Errorf("toSchema(%s) accepted a schema that cannot check arguments", bad)
		}
	}
}

func TestBuildCatalogue(t *testing.T) {
	obj := map[string]any{"type": "object"}
	c := buildCatalogue([]*sdk.Tool{
		{Name: "get-sum", InputSchema: obj, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		{Name: "files.read", InputSchema: obj},
		{Name: "files_read", InputSchema: obj},
		{Name: "broken", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"$ref": "#/nowhere"}}}},
		{Name: "a/b", InputSchema: obj, Annotations: &sdk.ToolAnnotations{Title: "A B", ReadOnlyHint: false, IdempotentHint: true}},
		nil,
	}, "files-server")
	for _, tool := range c.tools {
		if tool.Group != "files-server" {
			t.Errorf("%s: group %q, want the server's name files-server", tool.Name, tool.Group)
		}
	}
	if got := strings.Join(c.names(), " "); got != "a_b files_read files_read_2 get-sum" {
		t.Errorf("names %q", got)
	}
	for game, server := range map[string]string{"get-sum": "get-sum", "files_read": "files_read", "files_read_2": "files.read", "a_b": "a/b"} {
		if c.server[game] != server {
			t.Errorf("%s calls the server's %q, want %q", game, c.server[game], server)
		}
	}
	if c.byGame["get-sum"].Kind != game.Read || c.byGame["a_b"].Kind != game.Act || c.byGame["a_b"].Description != "A B" {
		t.Errorf("kinds or descriptions wrong: %+v", c.tools)
	}
	if len(c.skipped) != 1 || !strings.Contains(c.skipped[0], `broken (its input schema cannot be used: $ref "#/nowhere"`) {
		t.Errorf("skipped %q", c.skipped)
	}
	if d := diffCatalogues(catalogue{}, c); !strings.Contains(d, "left out: broken") {
		t.Errorf("diff %q does not say what was left out", d)
	}
}

// TestToolsGroupIsTheServersName: every tool's Group is the name the server reports in
// initialize (not the name coplay knows it by), and the known name when it reports none.
func TestToolsGroupIsTheServersName(t *testing.T) {
	h := &hunt{Hunt: testgame.New()}
	g, err := openWith(context.Background(), Config{}, "npx server-treasure", h.dial)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if len(g.Tools()) == 0 {
		t.Fatal("no tools")
	}
	for _, tool := range g.Tools() {
		if tool.Group != "treasure-hunt" {
			t.Errorf("%s: group %q, want the server's own name treasure-hunt", tool.Name, tool.Group)
		}
	}

	anon := sdk.NewServer(&sdk.Implementation{Name: "", Version: "1"}, nil)
	anon.AddTool(&sdk.Tool{Name: "ping", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{}, nil
		})
	dial := func(ctx context.Context) (sdk.Transport, error) {
		ct, st := sdk.NewInMemoryTransports()
		if _, err := anon.Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}
	g2, err := openWith(context.Background(), Config{}, "127.0.0.1:3001/mcp", dial)
	if err != nil {
		t.Fatal(err)
	}
	defer g2.Close()
	if tools := g2.Tools(); len(tools) != 1 || tools[0].Group != "127.0.0.1:3001/mcp" {
		t.Errorf("tools of a server without a name = %+v, want group 127.0.0.1:3001/mcp (the configured server)", tools)
	}
}
