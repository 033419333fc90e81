package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// askingServer is a streamable HTTP MCP server whose one tool asks which door, reports
// progress and logs, then says what the person chose.
func askingServer(t *testing.T) string {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "dungeon", Version: "1"}, &sdk.ServerOptions{HasTools: true,
		SupportedProtocolVersions: []string{"2025-11-25"}})
	type none struct{}
	sdk.AddTool(s, &sdk.Tool{Name: "open_door", Description: "open a door the player chooses"}, func(ctx context.Context, req *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "Which door do you open?", RequestedSchema: json.RawMessage(
			`{"type":"object","properties":{"door":{"type":"string","enum":["left","middle","right"],"default":"middle"}},"required":["door"]}`)})
		if err != nil {
			return nil, nil, err
		}
		for i := 1; i <= 2; i++ {
			req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: float64(i), Total: 2})
		}
		req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: "info", Data: "a door opens"})
		time.Sleep(100 * time.Millisecond) // the door is heavy: the log line comes before the answer
		door, _ := res.Content["door"].(string)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: res.Action + ": the " + door + " door"}}}, nil, nil
	})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// Played headless as a person would: the server's question comes as an elicitation
// event, the answer command goes back, the tool's result says what was chosen, and the
// call's progress and the server's log come as events.
func TestHeadlessAnswersAServersQuestion(t *testing.T) {
	t.Parallel()
	url := askingServer(t)
	dir := t.TempDir()
	cassette := filepath.Join(dir, "door.cassette.json")
	os.WriteFile(cassette, []byte(`{"name":"door","model":"scripted","steps":[
		{"text":"I open a door.","calls":[{"tool":"open_door","args":{}}]},{"text":"Done."}]}`), 0o644)
	evs := headlessRun(t, []string{"--data", filepath.Join(dir, "coplay.db"), "--game", "mcp", "--mcp", url,
		"--brain", "script:" + cassette, "--steps", "2"}, func(ev agent.Event, send func(agent.Command)) {
		switch {
		case ev.Type == agent.EventProposed && ev.Call.NeedsOK:
			send(agent.Command{Cmd: agent.CmdDecide, CallID: ev.Call.ID, Decision: agent.Approve})
		case ev.Type == agent.EventElicitation:
			send(agent.Command{Cmd: agent.CmdAnswer, ID: ev.Elicitation.ID, Action: "accept", Content: json.RawMessage(`{"door":"right"}`)})
		}
	})
	var result string
	seen := map[agent.EventType]int{}
	for _, ev := range evs {
		seen[ev.Type]++
		if ev.Type == agent.EventResult && ev.Call.Tool == "open_door" {
			result = ev.Result.Output
		}
	}
	if result != "accept: the right door" {
		t.Errorf("the tool's result %q, want the answer; events %v", result, seen)
	}
	for _, typ := range []agent.EventType{agent.EventElicitation, agent.EventAnswered, agent.EventProgress, agent.EventServerLog} {
		if seen[typ] == 0 {
			t.Errorf("no %s event; events %v", typ, seen)
		}
	}
	if !strings.Contains(evs[len(evs)-1].Text, "step limit") {
		t.Errorf("the run ended with %q", evs[len(evs)-1].Text)
	}
}
