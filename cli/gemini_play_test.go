package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/llmtest"
	"github.com/coplayhq/coplay/agent/llmtest/gemini"
)

// geminiServer is an OpenAI-compatible endpoint shaped like Gemini's: it refuses a tool
// schema holding a field Gemini does not know with Gemini's documented 400 body (a JSON
// array holding the error), and hands every other request to the scripted model.
type geminiServer struct {
	*httptest.Server
	mu      sync.Mutex
	refused []string // "tool: field" for each refusal
	ok      int
}

func newGeminiServer(t *testing.T, model *llmtest.Server) *geminiServer {
	t.Helper()
	target, _ := url.Parse(strings.TrimSuffix(model.URL(), "/v1"))
	proxy := httputil.NewSingleHostReverseProxy(target)
	g := &geminiServer{}
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer gemini-test-key" {
			w.WriteHeader(401)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.URL.Path = strings.Replace(r.URL.Path, "/v1beta/openai", "/v1", 1)
		var req struct {
			Tools []struct {
				Function struct {
					Name       string         `json:"name"`
					Parameters map[string]any `json:"parameters"`
				} `json:"function"`
			} `json:"tools"`
		}
		json.Unmarshal(body, &req)
		for i, tool := range req.Tools {
			if f, where := gemini.Refused(tool.Function.Parameters, fmt.Sprintf("tools[%d].function_declarations[0].parameters", i)); f != "" {
				g.mu.Lock()
				g.refused = append(g.refused, tool.Function.Name+": "+f)
				g.mu.Unlock()
				msg := fmt.Sprintf("Invalid JSON payload received. Unknown name %q at '%s': Cannot find field.", f, where)
				b, _ := json.Marshal([]any{map[string]any{"error": map[string]any{"code": 400, "message": msg, "status": "INVALID_ARGUMENT"}}})
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(400)
				w.Write(b)
				return
			}
		}
		g.mu.Lock()
		g.ok++
		g.mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(g.Close)
	return g
}

// TestGeminiPresetPlays plays with --preset gemini against a Gemini-shaped server, on the
// universe and on the large OpenAPI fixture (nested objects, arrays of objects): the first
// request is accepted and a game call runs. Without the preset, the same server refuses
// the first request and the brain leaves out what it refused, naming it.
func TestGeminiPresetPlays(t *testing.T) {
	t.Parallel()
	game := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"games": [], "total": 0}`)
	}))
	t.Cleanup(game.Close) // after the parallel subtests
	large, _ := filepath.Abs(filepath.Join("..", "testdata", "openapi", "large", "openapi.yaml"))
	for _, tc := range []struct {
		name, tool, args string
		flags            []string
	}{
		{"universe", "orbit_ship", `{"shipSymbol": "COPLAY-1"}`, []string{"--game", "universe"}},
		{"openapi", "listGames", `{"limit": 5}`, []string{"--game", "openapi", "--spec", large, "--base-url", game.URL, "--catalog", "ops", "--tool-budget", "1000000"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, preset := range []string{"gemini", ""} {
				model := llmtest.NewServer(&llmtest.Cassette{Name: "gemini", Steps: []llmtest.Step{
					{Text: "Looking.", Calls: []llmtest.Call{scall(tc.tool, tc.args)}},
					{Text: "Done."},
				}})
				defer model.Close()
				g := newGeminiServer(t, model)
				args := append([]string{"--data", filepath.Join(t.TempDir(), "c.db"), "--model", "gemini-2.5-flash",
					"--model-url", g.URL + "/v1beta/openai", "--steps", "2", "--approve", "all"}, tc.flags...)
				env := []string{"GEMINI_API_KEY=gemini-test-key"}
				if preset != "" {
					args = append(args, "--preset", preset)
				} else {
					env = append(env, "OPENAI_API_KEY=gemini-test-key")
				}
				evs := headlessRunEnv(t, args, env, func(agent.Event, func(agent.Command)) {})
				ran := false
				for _, ev := range evs {
					if ev.Type == agent.EventResult && ev.Call != nil && ev.Call.Tool == tc.tool && ev.Result != nil && ev.Result.OK() {
						ran = true
					}
					if ev.Type == agent.EventError && strings.HasPrefix(ev.Text, "the model (") {
						t.Errorf("preset %q: %s", preset, ev.Text)
					}
				}
				if !ran {
					t.Errorf("preset %q: %s never ran", preset, tc.tool)
				}
				switch {
				case preset == "gemini" && len(g.refused) > 0:
					t.Errorf("--preset gemini: the server refused %v", g.refused)
				case preset == "" && len(g.refused) == 0:
					t.Errorf("the plain wire was never refused: the test server does not check schemas")
				}
				t.Logf("preset %q: %d requests accepted, refused %v", preset, g.ok, g.refused)
			}
		})
	}
}
