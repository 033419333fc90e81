package cli

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/coplayhq/coplay/agent/catalog"
	"github.com/coplayhq/coplay/agent/llmtest"
)

// A spec of 190 operations played as a new user would: the first model request carries
// at most the default 12,000 characters of tool definitions and its system prompt names
// every operation; the model loads one, the next request carries it appended (the
// earlier tools' JSON is a byte prefix of the new), and calling it reaches the game.
func TestHeadlessDeferredToolIsLoadedAndCalled(t *testing.T) {
	t.Parallel()
	const spec = "../testdata/openapi/large/openapi.yaml"
	var mu sync.Mutex
	var got []string
	game := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"abcd1234","name":"Friday blitz"}`)) //nolint:errcheck // the client hung up
	}))
	defer game.Close()
	model := llmtest.NewServer(&llmtest.Cassette{Name: "deferred", Model: "scripted", Steps: []llmtest.Step{
		{Text: "I need the tournament tool.", Calls: []llmtest.Call{{Tool: "load_tools", Args: json.RawMessage(`{"names":["getTournament"]}`)}}},
		{Text: "Now look at it.", Calls: []llmtest.Call{{Tool: "getTournament", Args: json.RawMessage(`{"tournamentId":"abcd1234"}`)}}},
		{Text: "Seen it."},
	}})
	defer model.Close()
	env := []string{"XDG_CONFIG_HOME=" + t.TempDir(), "OPENAI_BASE_URL=" + model.URL(), "OPENAI_API_KEY=sk-test-deferred-0000"}

	coplayRun(t, env, "", "run", "--headless", "--data", filepath.Join(t.TempDir(), "coplay.db"),
		"--game", "openapi", "--spec", spec, "--base-url", game.URL, "--model", "scripted", "--approve", "all", "--steps", "3")
	bodies := model.RawRequests()
	if len(bodies) < 3 {
		t.Fatalf("%d model requests, want 3", len(bodies))
	}
	var first, second struct {
		Tools    []json.RawMessage `json:"tools"`
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(bodies[0], &first); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(bodies[1], &second); err != nil {
		t.Fatal(err)
	}
	tools1, _ := json.Marshal(first.Tools)
	tools2, _ := json.Marshal(second.Tools)
	if len(tools1) > catalog.DefaultBudget {
		t.Errorf("the first request carries %d characters of tools, over %d", len(tools1), catalog.DefaultBudget)
	}
	if !bytes.HasPrefix(tools2, tools1[:len(tools1)-1]) || len(second.Tools) != len(first.Tools)+1 ||
		!strings.Contains(string(second.Tools[len(second.Tools)-1]), `"name":"getTournament"`) {
		t.Errorf("the second request's tools are not the first's with getTournament appended:\n%.300s", tools2[len(tools1)-1:])
	}
	system := first.Messages[0].Content
	ops := toolNames(t, "--game", "openapi", "--spec", spec, "--base-url", game.URL)
	if len(ops) < 190 {
		t.Fatalf("the spec gives %d tools, want at least 190", len(ops))
	}
	for _, op := range ops {
		if !strings.Contains(system, "- "+op+" (") {
			t.Errorf("the system prompt's index does not name %s", op)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.ContainsFunc(got, func(s string) bool { return strings.HasSuffix(s, "/abcd1234") && strings.HasPrefix(s, "GET ") }) {
		t.Errorf("getTournament never reached the game; it saw %v", got)
	}
}

// toolNames lists the tools `coplay tools --json` gives for a game.
func toolNames(t *testing.T, args ...string) []string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(append([]string{"tools", "--json"}, args...), &out, &errOut); code != 0 {
		t.Fatalf("coplay tools: exit %d: %s", code, errOut.String())
	}
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
		Skipped []struct{ Name, Reason string } `json:"skipped"`
	}
	if err := json.Unmarshal(out.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Skipped) > 0 {
		t.Errorf("operations skipped: %v", list.Skipped)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	return names
}
