package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/mcp/mcptest"
)

// The reference server @modelcontextprotocol/server-everything, end to end. .ci/run
// installs it with npm and exports COPLAY_MCP_EVERYTHING (the path of its
// dist/index.js); without it these tests skip.

func everything(t *testing.T) string { return mcptest.Everything(t) }

// checkEverything plays the reference server's catalogue: kinds from annotations,
// schemas kept, a sum computed, invalid calls refused before the server.
func checkEverything(t *testing.T, g *Game) {
	t.Helper()
	ctx := context.Background()
	tools := map[string]game.Tool{}
	for _, tool := range g.Tools() {
		tools[tool.Name] = tool
		t.Logf("%-32s %-4s %s", tool.Name, tool.Kind, tool.Description)
	}
	sum, ok := tools["get-sum"]
	if !ok || sum.Kind != game.Read {
		t.Fatalf("get-sum: %+v (present %v), want a read tool", sum, ok)
	}
	if toggle, ok := tools["toggle-simulated-logging"]; !ok || toggle.Kind != game.Act {
		t.Errorf("toggle-simulated-logging: %+v (present %v), want an act tool", toggle, ok)
	}
	if gz, ok := tools["gzip-file-as-resource"]; !ok || gz.Kind != game.Act {
		t.Errorf("gzip-file-as-resource (readOnlyHint false): %+v, want an act tool", gz)
	}
	if !strings.HasPrefix(sum.Description, "Get Sum Tool: Returns the sum of two numbers") {
		t.Errorf("get-sum description %q, want its title then its description", sum.Description)
	}
	// The server's schema (draft-07 from zod) is kept; coplay only closes its top level.
	if a := sum.Schema.Properties["a"]; a == nil || a.Type != "number" || a.Description != "First number" ||
		sum.Schema.Schema != "http://json-schema.org/draft-07/schema#" || strings.Join(sum.Schema.Required, ",") != "a,b" {
		t.Errorf("get-sum schema not kept: %s", mustJSON(sum.Schema))
	}
	if !strings.Contains(g.Info().Rules, "everything") && g.Info().Rules == "" {
		t.Errorf("no rules from the server's instructions")
	}
	reg := game.NewRegistry(g)
	start := time.Now()
	res, err := reg.Call(ctx, "get-sum", json.RawMessage(`{"a":2,"b":40}`))
	t.Logf("figure: one get-sum call took %v", time.Since(start).Round(time.Microsecond))
	if err != nil || !res.OK() || !strings.Contains(res.Output, "42") {
		t.Fatalf("get-sum 2+40: %+v, %v", res, err)
	}
	t.Logf("get-sum: %s; schema %s", res.Output, mustJSON(sum.Schema))
	for _, b := range []struct{ args, want string }{
		{`{"a":"2","b":40}`, `arguments.a: expected a number, got string "2" (send the number 2 without quotes)`},
		{`{"a":2,"b":40,"c":1}`, `arguments.c: expected no property "c" (valid: a, b)`},
		{`{"a":2}`, `arguments.b: expected required a number, got nothing (missing)`},
	} {
		_, err := reg.Call(ctx, "get-sum", json.RawMessage(b.args))
		var ve *game.ValidationError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), b.want) {
			t.Errorf("get-sum %s: %v, want a validation error with %q", b.args, err, b.want)
		}
	}
	obs, err := g.Observe(ctx)
	if err != nil || !strings.Contains(obs.Summary, "get-sum") {
		t.Errorf("observe: %q, %v: want the read tools listed", obs.Summary, err)
	}
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestEverythingStdio(t *testing.T) {
	path := everything(t)
	logDir := t.TempDir()
	start := time.Now()
	g, err := Open(context.Background(), Config{Command: fmt.Sprintf("node '%s' stdio", path), LogDir: logDir})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Logf("figure: Open over stdio (node starts, initialize, tools/list) took %v", time.Since(start).Round(time.Millisecond))
	defer g.Close()
	checkEverything(t, g)
	// get-tiny-image answers with an image: summarised, not pasted.
	res, err := g.Call(context.Background(), "get-tiny-image", json.RawMessage(`{}`))
	if err != nil || !strings.Contains(res.Output, "[image image/png, ") {
		t.Errorf("get-tiny-image: %+v, %v", res, err)
	}
	t.Logf("get-tiny-image: %s", res.Output)
	start = time.Now()
	if err := g.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	t.Logf("figure: Close over stdio (stdin closed, then SIGTERM after 2 s if still running) took %v", time.Since(start).Round(time.Millisecond))
	if _, err := os.Stat(filepath.Join(logDir, "mcp-server-everything.log")); err != nil {
		t.Errorf("no stderr log: %v", err)
	}
	t.Logf("non-JSON stdout lines skipped: %d", g.Skipped())
}

func TestEverythingHTTP(t *testing.T) {
	url := mcptest.EverythingHTTP(t)
	g, err := Open(context.Background(), Config{URL: url})
	if err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	defer g.Close()
	checkEverything(t, g)
}

// The reference server in sse mode speaks only the 2024-11-05 HTTP+SSE transport: a URL
// tried as streamable HTTP gets a 4xx to its initialize POST, and the SSE stream is
// opened instead; forced with Transport, SSE is spoken at once. Either way the
// catalogue is listed and calls are answered.
func TestEverythingSSE(t *testing.T) {
	url := mcptest.EverythingSSE(t)
	var said []string
	g, err := Open(context.Background(), Config{URL: url, OAuth: OAuth{Say: func(s string) { said = append(said, s) }}})
	if err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	defer g.Close()
	if len(said) != 1 || !strings.Contains(said[0], "speaking the older HTTP+SSE transport") {
		t.Errorf("the person was told %q; want one line saying the older transport is spoken", said)
	}
	checkEverything(t, g)

	forced, err := Open(context.Background(), Config{URL: url, Transport: TransportSSE, OAuth: OAuth{Say: func(s string) { t.Errorf("forced SSE said %q", s) }}})
	if err != nil {
		t.Fatalf("open %s over SSE: %v", url, err)
	}
	defer forced.Close()
	res, err := forced.Call(context.Background(), "echo", json.RawMessage(`{"message":"over sse"}`))
	if err != nil || !strings.Contains(res.Output, "over sse") {
		t.Errorf("echo over forced SSE: %+v, %v", res, err)
	}
	if _, err := Open(context.Background(), Config{URL: url, Transport: TransportHTTP}); err == nil || !strings.Contains(err.Error(), "Not Found") {
		t.Errorf("forced streamable HTTP against an SSE server: %v", err)
	}
}
