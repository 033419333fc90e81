package cli

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/llmtest"
	"github.com/coplayhq/coplay/game/mcp/mcptest"
)

// TestHeadlessScriptedModelPlaysMCPServer plays the MCP reference server with a scripted
// model through the real command line: read-only tools run by themselves, invalid calls
// are refused before the server with path errors, and only the tools that change
// something ask the person, who approves one, vetoes one and edits one.
func TestHeadlessScriptedModelPlaysMCPServer(t *testing.T) {
	t.Parallel()
	server := mcptest.StdioCommand(t)
	dir := t.TempDir()
	c := llmtest.Cassette{Name: "mcp-everything", Steps: []llmtest.Step{
		{Text: "Add two numbers.", Calls: []llmtest.Call{scall("get-sum", `{"a":2,"b":40}`)}},
		{Text: "Three mistakes.", Calls: []llmtest.Call{
			scall("get-sum", `{"a":"2","b":1}`),
			scall("get-sum", `{"a":1,"b":2,"c":3}`),
			scall("get-summ", `{"a":1,"b":2}`),
		}},
		{Text: "Turn logging on.", Calls: []llmtest.Call{scall("toggle-simulated-logging", `{}`)}},
		{Text: "Turn subscriber updates on.", Calls: []llmtest.Call{scall("toggle-subscriber-updates", `{}`)}},
		{Text: "Compress a file.", Calls: []llmtest.Call{scall("gzip-file-as-resource", `{"data":"data:text/plain;base64,aGVsbG8=","name":"first.gz"}`)}},
		{Text: "Done."},
	}}
	cassette := writeCassette(t, dir, c)
	db := filepath.Join(dir, "coplay.db")

	asked := map[string]string{} // call id -> tool, for calls that waited for the person
	evs := headlessRun(t, []string{"--data", db, "--game", "mcp", "--mcp", server, "--brain", "script:" + cassette, "--steps", "6"},
		func(ev agent.Event, send func(agent.Command)) {
			if ev.Type != agent.EventProposed || !ev.Call.NeedsOK {
				return
			}
			asked[ev.Call.ID] = ev.Call.Tool
			switch ev.Call.Tool {
			case "toggle-simulated-logging":
				send(agent.Command{Cmd: agent.CmdDecide, CallID: ev.Call.ID, Decision: agent.Approve})
			case "toggle-subscriber-updates":
				send(agent.Command{Cmd: agent.CmdDecide, CallID: ev.Call.ID, Decision: agent.Veto, Reason: "not now"})
			case "gzip-file-as-resource":
				send(agent.Command{Cmd: agent.CmdDecide, CallID: ev.Call.ID, Decision: agent.Edit,
					Args: json.RawMessage(`{"data":"data:text/plain;base64,aGVsbG8=","name":"edited.gz"}`)})
			}
		})

	results := map[string][]string{} // tool -> result texts (output or error)
	problems := map[string][]string{}
	for _, ev := range evs {
		switch ev.Type {
		case agent.EventResult:
			text := ev.Result.Output
			if ev.Result.Err != nil {
				text = "error: " + ev.Result.Err.Message
			}
			results[ev.Call.Tool] = append(results[ev.Call.Tool], text)
		case agent.EventProposed:
			for _, p := range ev.Call.Problems {
				problems[ev.Call.Tool] = append(problems[ev.Call.Tool], p.String())
			}
		case agent.EventError:
			t.Errorf("error event: %s", ev.Text)
		}
	}
	if len(asked) != 3 {
		t.Errorf("asked the person about %v; want exactly the three tools that are not read-only", asked)
	}
	for _, tool := range asked {
		if tool == "get-sum" || tool == "get-summ" {
			t.Errorf("%s asked the person", tool)
		}
	}
	if got := results["get-sum"]; len(got) == 0 || !strings.Contains(got[0], "42") {
		t.Errorf("get-sum {a:2,b:40} gave %q, want 42", got)
	}
	sumProblems := strings.Join(problems["get-sum"], "\n")
	for _, want := range []string{"arguments.a", "number", "arguments.c"} {
		if !strings.Contains(sumProblems, want) {
			t.Errorf("get-sum's refusals %q do not mention %q", sumProblems, want)
		}
	}
	if p := strings.Join(problems["get-summ"], "\n"); !strings.Contains(p, "get-sum") {
		t.Errorf("an unknown tool's refusal %q does not list get-sum", p)
	}
	for _, r := range results["get-sum"][1:] {
		if !strings.Contains(r, "not executed") {
			t.Errorf("an invalid get-sum was answered %q, want refused before the server", r)
		}
	}
	if r := results["toggle-subscriber-updates"]; len(r) != 0 {
		t.Errorf("the vetoed call ran: %q", r)
	}
	if r := strings.Join(results["gzip-file-as-resource"], "\n"); !strings.Contains(r, "edited.gz") || strings.Contains(r, "first.gz") {
		t.Errorf("the edited call's result %q does not show the person's arguments", r)
	}
	if r := strings.Join(results["toggle-simulated-logging"], "\n"); r == "" || strings.HasPrefix(r, "error") {
		t.Errorf("the approved call gave %q", r)
	}
}

// TestToolsListsMCPServerOverStdioAndHTTP: `coplay tools --game mcp --json` lists the
// reference server's tools with their kinds and schemas, over both transports.
func TestToolsListsMCPServerOverStdioAndHTTP(t *testing.T) {
	t.Parallel()
	for name, server := range map[string]string{"stdio": mcptest.StdioCommand(t), "http": mcptest.EverythingHTTP(t)} {
		out, err := exec.Command(coplayBinary(t), "tools", "--game", "mcp", "--mcp", server, "--json").Output()
		if err != nil {
			t.Fatalf("%s: coplay tools: %v", name, err)
		}
		var catalogue struct {
			Tools []struct {
				Name   string         `json:"name"`
				Kind   string         `json:"kind"`
				Group  string         `json:"group"`
				Schema map[string]any `json:"schema"`
			} `json:"tools"`
			Skipped []struct {
				Name   string `json:"name"`
				Reason string `json:"reason"`
			} `json:"skipped"`
		}
		if err := json.Unmarshal(out, &catalogue); err != nil {
			t.Fatalf("%s: %v: %s", name, err, out)
		}
		if catalogue.Skipped == nil {
			t.Errorf("%s: coplay tools --json has no skipped list: %s", name, out)
		}
		kinds := map[string]string{}
		for _, tl := range catalogue.Tools {
			if tl.Group == "" {
				t.Errorf("%s: %s has no group (the server's name)", name, tl.Name)
			}
			kinds[tl.Name] = tl.Kind
			if tl.Name == "get-sum" {
				props, _ := tl.Schema["properties"].(map[string]any)
				if _, ok := props["a"]; !ok {
					t.Errorf("%s: get-sum's schema lost its properties: %v", name, tl.Schema)
				}
			}
		}
		if kinds["get-sum"] != "read" || kinds["toggle-simulated-logging"] != "act" {
			t.Errorf("%s: get-sum is %q and toggle-simulated-logging %q; want read and act", name, kinds["get-sum"], kinds["toggle-simulated-logging"])
		}
	}
}
