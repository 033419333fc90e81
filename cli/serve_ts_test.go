package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tsSDKVersion is the official TypeScript MCP SDK the served world is checked against;
// .ci/run installs the same.
const tsSDKVersion = "1.32.2"

// tsSDK returns a node_modules directory holding @modelcontextprotocol/sdk at
// tsSDKVersion: COPLAY_MCP_TS_SDK's (set by .ci/run), else the CI cache's, installed
// there with npm when it is missing. Without node and npm the test skips and says why.
func tsSDK(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("COPLAY_MCP_TS_SDK"); dir != "" {
		if !hasTSSDK(dir) {
			t.Fatalf("COPLAY_MCP_TS_SDK=%s holds no @modelcontextprotocol/sdk %s", dir, tsSDKVersion)
		}
		return dir
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: the TypeScript MCP SDK's client cannot run (install Node.js 18 or later, or set COPLAY_MCP_TS_SDK to a node_modules with @modelcontextprotocol/sdk@%s)", tool, tsSDKVersion)
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skipf("no home directory for the npm cache: %v", err)
	}
	prefix := filepath.Join(home, ".cache", "coplay-ci", "mcp-sdk-ts")
	dir := filepath.Join(prefix, "node_modules")
	if hasTSSDK(dir) {
		return dir
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "npm", "install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error",
		"@modelcontextprotocol/sdk@"+tsSDKVersion).CombinedOutput()
	if err != nil || !hasTSSDK(dir) {
		t.Skipf("npm could not install @modelcontextprotocol/sdk@%s into %s (offline?): %v\n%s", tsSDKVersion, prefix, err, out)
	}
	return dir
}

// hasTSSDK reports whether dir holds the SDK at tsSDKVersion.
func hasTSSDK(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "@modelcontextprotocol", "sdk", "package.json"))
	var pkg struct {
		Version string `json:"version"`
	}
	return err == nil && json.Unmarshal(b, &pkg) == nil && pkg.Version == tsSDKVersion
}

// A client of the official TypeScript SDK plays a served arena (issue 46's Done-when):
// with Heron's token it lists the tools with their schemas and calls status; Heron's
// send_message reaches Finch, whose client, subscribed to coplay://triggers, hears
// notifications/resources/updated carrying the trigger; no token and a wrong one are
// refused and act nothing.
func TestTypeScriptClientPlaysAServedWorld(t *testing.T) {
	modules := tsSDK(t)
	sv := startServeProc(t, seatEnv, "--game", "arena", "--mcp", "127.0.0.1:0", "--seat", "Heron", "--seat", "Finch", "--data", filepath.Join(t.TempDir(), "w.db"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "testdata/serve_ts_client.cjs", sv.URL, heronSeatToken, finchSeatToken)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the TypeScript client: %v\n%s\n%s\nserver: %s", err, stdout.String(), stderr.String(), sv.stderr())
	}
	facts := map[string]json.RawMessage{}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		var f struct {
			Fact string `json:"fact"`
		}
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			t.Fatalf("the client printed %q", sc.Text())
		}
		facts[f.Fact] = append(json.RawMessage(nil), sc.Bytes()...)
	}
	var tools struct {
		Tools []struct {
			Name     string `json:"name"`
			ReadOnly bool   `json:"readOnly"`
			Schema   struct {
				Type       string                     `json:"type"`
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			} `json:"schema"`
		} `json:"tools"`
	}
	json.Unmarshal(facts["tools"], &tools)
	byName := map[string]int{}
	for i, tl := range tools.Tools {
		byName[tl.Name] = i
	}
	for name, readOnly := range map[string]bool{"status": true, "messages": true, "send_message": false, "buy": false, "preview_send_message": true} {
		i, ok := byName[name]
		if !ok || tools.Tools[i].ReadOnly != readOnly || tools.Tools[i].Schema.Type != "object" {
			t.Errorf("tool %s: %+v (listed %v), want readOnlyHint %v and an object schema", name, tools.Tools[i], ok, readOnly)
		}
	}
	if i := byName["send_message"]; tools.Tools[i].Schema.Properties["to"] == nil || strings.Join(tools.Tools[i].Schema.Required, ",") != "to,text" {
		t.Errorf("send_message's schema: %+v", tools.Tools[i].Schema)
	}
	checks := map[string][]string{
		"status":      {`"text":"Heron ·`},
		"no token":    {`"error":"`, `Unauthorized: no token`},
		"wrong token": {`"error":"`, `Unauthorized: a wrong token`},
		"sent":        {`"isError":false`},
		"updated":     {`"uri":"coplay://triggers"`, `"coplay/trigger":{`, `"type":"message.received"`, `hello from TypeScript`},
		"triggers":    {`hello from TypeScript`},
		"messages":    {`hello from TypeScript`},
	}
	for fact, wants := range checks {
		for _, want := range wants {
			if !strings.Contains(string(facts[fact]), want) {
				t.Errorf("%s: %s, want %s", fact, facts[fact], want)
			}
		}
	}
	if strings.Contains(string(facts["messages"]), "intruder") {
		t.Errorf("a refused client acted: %s", facts["messages"])
	}
	if log := sv.stderr(); !strings.Contains(log, "refused a request from 127.0.0.1: no token") || !strings.Contains(log, "Finch joined with ts-finch 1.0.0") {
		t.Errorf("the server's journal: %s", log)
	}
}
