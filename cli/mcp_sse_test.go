package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/llmtest"
	"github.com/coplayhq/coplay/game/mcp/mcptest"
)

// TestSSEServerPlays plays the reference server in sse mode (the 2024-11-05 HTTP+SSE
// transport only) through the real command line: `coplay tools` lists its tools, and a
// scripted model's call is answered, with no flag saying which transport to speak.
func TestSSEServerPlays(t *testing.T) {
	t.Parallel()
	url := mcptest.EverythingSSE(t)
	var out, errOut bytes.Buffer
	if code := run([]string{"tools", "--game", "mcp", "--mcp", url}, &out, &errOut); code != 0 {
		t.Fatalf("coplay tools: exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "get-sum (read") {
		t.Errorf("coplay tools listed no get-sum:\n%s", out.String())
	}
	dir := t.TempDir()
	cassette := writeCassette(t, dir, llmtest.Cassette{Name: "sse", Steps: []llmtest.Step{
		{Text: "Add.", Calls: []llmtest.Call{scall("get-sum", `{"a":2,"b":40}`)}},
		{Text: "Done."},
	}})
	evs := headlessRun(t, []string{"--data", filepath.Join(dir, "coplay.db"), "--game", "mcp", "--mcp", url, "--brain", "script:" + cassette, "--steps", "2"},
		func(agent.Event, func(agent.Command)) {})
	answered := false
	for _, ev := range evs {
		if ev.Type == agent.EventResult && ev.Call.Tool == "get-sum" {
			answered = ev.Result.Err == nil && strings.Contains(ev.Result.Output, "42")
			if !answered {
				t.Errorf("get-sum over SSE: %+v", ev.Result)
			}
		}
		if ev.Type == agent.EventError {
			t.Errorf("error event: %s", ev.Text)
		}
	}
	if !answered {
		t.Errorf("no answer to get-sum over SSE")
	}
}
