package openai_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/agent/openai"
)

// recorded is one answer of testdata/wire: its status, content type and body.
type recorded struct {
	status int
	ctype  string
	body   []byte
}

func loadRecorded(t *testing.T, name string) recorded {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "wire", name+".http"))
	if err != nil {
		t.Fatal(err)
	}
	head, body, ok := bytes.Cut(data, []byte("\n\n"))
	if !ok {
		t.Fatalf("%s: no blank line after the status line", name)
	}
	status, ctype, _ := strings.Cut(string(head), " ")
	n, err := strconv.Atoi(status)
	if err != nil {
		t.Fatalf("%s: status %q", name, status)
	}
	return recorded{status: n, ctype: ctype, body: body}
}

// recordedServer serves one recorded answer at path, for requests whose "stream" is
// stream (a request of the wrong kind is refused, so the test fails), as the server
// the file records would. An Ollama also answers /api/version and /api/show, as its
// docs/api.md gives them; the others answer neither, like those servers.
func recordedServer(t *testing.T, rec recorded, path string, stream, ollama bool) *httptest.Server {
	mux := http.NewServeMux()
	if ollama {
		mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"version":"0.12.3"}`)
		})
		mux.HandleFunc("POST /api/show", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"modelfile":"FROM qwen3:8b","parameters":"stop \"<|im_end|>\"","template":"{{ .Prompt }}","details":{"format":"gguf","family":"qwen3"},"model_info":{"general.architecture":"qwen3","qwen3.context_length":40960},"capabilities":["completion","tools","thinking"]}`)
		})
	}
	mux.HandleFunc("POST "+path, func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Stream  bool           `json:"stream"`
			Options map[string]any `json:"options"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Stream != stream {
			w.WriteHeader(http.StatusTeapot)
			fmt.Fprintf(w, `{"error":"test server: want stream %v, got %v (%v)"}`, stream, req.Stream, err)
			return
		}
		if ollama && req.Options["num_ctx"] == nil {
			w.WriteHeader(http.StatusTeapot)
			io.WriteString(w, `{"error":"test server: no options.num_ctx"}`)
			return
		}
		w.Header().Set("Content-Type", rec.ctype)
		w.WriteHeader(rec.status)
		// Line by line, flushed, as a server streams.
		sc := bufio.NewScanner(bytes.NewReader(rec.body))
		for sc.Scan() {
			w.Write(append(sc.Bytes(), '\n'))
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
		}
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestWireMatrix runs the brain against each server's recorded answers, streamed and
// not, with their usage and error bodies, and the forms of calls written as text.
func TestWireMatrix(t *testing.T) {
	const orbitArgs = `{"shipSymbol":"COPLAY-1"}`
	type want struct {
		text     string
		call     bool // orbit_ship COPLAY-1
		fromText bool
		thinking string // a part of the thinking
		prompt   int
		complete int
		cached   int
		unread   string // a part of what could not be read
		err      error
	}
	orbit := want{text: "Orbiting first.", call: true, prompt: 1900, complete: 40}
	with := func(w want, f func(*want)) want { f(&w); return w }
	for _, tc := range []struct {
		file string
		want want
	}{
		{"openai.plain", with(orbit, func(w *want) { w.cached = 1792 })},
		{"openai.stream", with(orbit, func(w *want) { w.cached = 1792 })},
		{"openai.error", want{err: brain.ErrRateLimited}},
		{"openrouter.stream", with(orbit, func(w *want) { w.thinking = "so orbit it first"; w.complete = 60 })},
		{"openrouter.plain", want{text: "Nothing to do until the ship arrives.", thinking: "in transit", prompt: 1900, complete: 30}},
		{"openrouter.error", want{err: brain.ErrRejected}},
		{"ollama-openai.plain", with(orbit, func(w *want) { w.thinking = "cannot fly" })},
		{"ollama-openai.stream", with(orbit, func(w *want) { w.thinking = "cannot fly" })},
		{"ollama-openai.error", want{err: brain.ErrNoTools}},
		{"ollama-native.stream", with(orbit, func(w *want) { w.thinking = "Docked ships cannot fly." })},
		{"ollama-native.plain", with(orbit, func(w *want) { w.thinking = "cannot fly" })},
		{"ollama-native.error", want{err: brain.ErrNoTools}},
		{"ollama-native.midstream-error", want{err: brain.ErrServer}},
		{"lmstudio.stream", orbit},
		{"lmstudio.plain", orbit},
		{"lmstudio.error", want{err: brain.ErrRejected}},
		{"vllm.stream", with(orbit, func(w *want) { w.thinking = "Docked ships cannot fly." })},
		{"vllm.plain", with(orbit, func(w *want) { w.thinking = "cannot fly" })},
		{"vllm.error", want{err: brain.ErrContextLength}},
		{"llamacpp.plain", with(orbit, func(w *want) { w.thinking = "cannot fly"; w.fromText = true })},
		{"llamacpp.stream", with(orbit, func(w *want) { w.thinking = "cannot fly"; w.fromText = true })},
		{"llamacpp.error", want{err: brain.ErrContextLength}},
		{"text-hermes.plain", with(orbit, func(w *want) { w.fromText = true })},
		{"text-mistral.stream", with(orbit, func(w *want) { w.fromText = true })},
		{"text-mistral-v11.plain", with(orbit, func(w *want) { w.fromText = true })},
		{"text-python-tag.plain", with(orbit, func(w *want) { w.fromText = true })},
		{"text-bare.stream", with(orbit, func(w *want) { w.text = ""; w.fromText = true })},
		{"text-fenced.plain", with(orbit, func(w *want) { w.fromText = true })},
		{"text-mention.plain", want{text: `I could call orbit_ship, or write {"name": "orbit_ship"} later; for now I wait.`, prompt: 1900, complete: 40}},
		{"text-malformed.plain", want{text: "<tool_call>", unread: "not a JSON object", prompt: 1900, complete: 40}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			rec := loadRecorded(t, tc.file)
			stream := strings.HasSuffix(strings.SplitN(tc.file, ".", 2)[1], "stream")
			ollama := strings.HasPrefix(tc.file, "ollama-native")
			path := "/v1/chat/completions"
			if ollama {
				path = "/api/chat"
			}
			srv := recordedServer(t, rec, path, stream, ollama)
			b, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "m", Stream: stream, MaxRetries: -1, Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			prep, err := b.Prepare(context.Background())
			if err != nil {
				t.Fatalf("Prepare: %v", err)
			}
			if ollama && prep.Window != 32768 {
				t.Errorf("Ollama's window: %d, want 32768 (the model's 40960, at most 32768)", prep.Window)
			}
			var streamed strings.Builder
			req := request(t)
			req.OnDelta = func(s string) { streamed.WriteString(s) }
			reply, err := b.Next(context.Background(), req)
			w := tc.want
			if w.err != nil {
				if !errors.Is(err, w.err) {
					t.Fatalf("error %v, want %v", err, w.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if w.unread != "" {
				if len(reply.Unread) != 1 || !strings.Contains(reply.Unread[0], w.unread) || len(reply.Calls) != 0 || !strings.Contains(reply.Text, w.text) {
					t.Errorf("malformed: text %q, calls %v, unread %q; want unread %q", reply.Text, reply.Calls, reply.Unread, w.unread)
				}
				return
			}
			if reply.Text != w.text {
				t.Errorf("text %q, want %q", reply.Text, w.text)
			}
			if len(reply.Unread) != 0 {
				t.Errorf("unread %q", reply.Unread)
			}
			if w.call {
				if len(reply.Calls) != 1 || reply.Calls[0].Tool != "orbit_ship" || !sameJSON(reply.Calls[0].Args, orbitArgs) || reply.Calls[0].ID == "" {
					t.Fatalf("calls %+v, want orbit_ship %s", reply.Calls, orbitArgs)
				}
				if reply.Calls[0].FromText != w.fromText {
					t.Errorf("FromText %v, want %v", reply.Calls[0].FromText, w.fromText)
				}
			} else if len(reply.Calls) != 0 {
				t.Errorf("calls %+v, want none", reply.Calls)
			}
			var thinking []string
			for _, th := range reply.Thinking {
				thinking = append(thinking, th.Text)
			}
			if all := strings.Join(thinking, "\n"); w.thinking == "" && all != "" || !strings.Contains(all, w.thinking) {
				t.Errorf("thinking %q, want %q", all, w.thinking)
			}
			if w.thinking != "" && reply.Usage.ThinkingTokens == 0 {
				t.Errorf("thinking not counted in usage: %+v", reply.Usage)
			}
			u := reply.Usage
			if u.PromptTokens != w.prompt || u.CompletionTokens != w.complete || u.CachedTokens != w.cached {
				t.Errorf("usage %d/%d cached %d, want %d/%d cached %d", u.PromptTokens, u.CompletionTokens, u.CachedTokens, w.prompt, w.complete, w.cached)
			}
			if stream {
				for _, mark := range []string{"<think", "</think>", "<tool_call>", "[TOOL_CALLS]", `"name"`, "cannot fly"} {
					if strings.Contains(streamed.String(), mark) {
						t.Errorf("the streamed text carries %q: %q", mark, streamed.String())
					}
				}
			}
		})
	}
}

func sameJSON(a json.RawMessage, b string) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal([]byte(b), &y) == nil && fmt.Sprint(x) == fmt.Sprint(y)
}

// The request sent to Ollama's /api/chat carries the history as Ollama documents it:
// tool calls with object arguments, tool results with the tool's name; no thinking.
func TestOllamaNativeRequest(t *testing.T) {
	var got []byte
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"version":"0.12.3"}`) })
	mux.HandleFunc("POST /api/show", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"model_info":{"llama.context_length":8192}}`)
	})
	mux.HandleFunc("POST /api/chat", func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
		io.WriteString(w, `{"model":"m","created_at":"2026-11-26T00:00:00Z","message":{"role":"assistant","content":"ok"},"done_reason":"stop","done":true,"prompt_eval_count":10,"eval_count":1}`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	b, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "llama3.1:8b", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	prep, err := b.Prepare(context.Background())
	if err != nil || prep.Window != 8192 {
		t.Fatalf("Prepare: %+v, %v; want window 8192", prep, err)
	}
	req := request(t)
	req.Messages = append(req.Messages,
		brain.Message{Role: brain.RoleAssistant, Content: "Orbiting.", ToolCalls: []brain.ToolCall{{ID: "call_1", Tool: "orbit_ship", Args: json.RawMessage(`{"shipSymbol":"COPLAY-1"}`)}},
			Thinking: []brain.Thinking{{Text: "PRIVATE"}}},
		brain.Message{Role: brain.RoleTool, ToolCallID: "call_1", Content: "in orbit"},
		brain.Message{Role: brain.RoleUser, Content: "# Step 2"})
	if _, err := b.Next(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Stream   bool `json:"stream"`
		Messages []struct {
			Role      string `json:"role"`
			Content   string `json:"content"`
			ToolName  string `json:"tool_name"`
			ToolCalls []struct {
				Function struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Options struct {
			NumCtx int `json:"num_ctx"`
		} `json:"options"`
	}
	if err := json.Unmarshal(got, &body); err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	if bytes.Contains(got, []byte("PRIVATE")) {
		t.Errorf("thinking sent back: %s", got)
	}
	var args json.RawMessage
	var toolName string
	for _, m := range body.Messages {
		if len(m.ToolCalls) > 0 {
			args = m.ToolCalls[0].Function.Arguments
		}
		if m.Role == "tool" {
			toolName = m.ToolName
		}
	}
	if !sameJSON(args, `{"shipSymbol":"COPLAY-1"}`) || args[0] != '{' || toolName != "orbit_ship" {
		t.Errorf("arguments %s (want an object), tool_name %q: %s", args, toolName, got)
	}
	if body.Options.NumCtx < len(got)/4 || body.Options.NumCtx > 8192 {
		t.Errorf("num_ctx %d for a body of %d bytes and a model of 8192", body.Options.NumCtx, len(got))
	}
}

// With the ollama preset and only the OpenAI endpoint answering (Ollama's own API
// unreachable behind a proxy), the person is told before the first step that the server
// will cut long prompts, and how to fix it; the window reported is Ollama's default.
func TestOllamaPresetWithoutItsAPI(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"object":"list","data":[{"id":"qwen3:8b","object":"model","created":1,"owned_by":"library"}]}`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	b, err := openai.New(openai.Config{Preset: "ollama", BaseURL: srv.URL + "/v1", Model: "qwen3:8b"})
	if err != nil {
		t.Fatal(err)
	}
	prep, err := b.Prepare(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if prep.Window != 4096 || !strings.Contains(prep.Notice, "OLLAMA_CONTEXT_LENGTH") || !strings.Contains(prep.Notice, "PARAMETER num_ctx") {
		t.Errorf("prep %+v", prep)
	}
}

// A server that cuts the prompt and reports the capped count is suspected once, with
// the figures; an honest one is not.
func TestCutPromptSaidOnce(t *testing.T) {
	for _, tc := range []struct {
		name   string
		report func(sent int) int
		want   bool
	}{
		{"capped at 4096", func(int) int { return 4096 }, true},
		{"honest", func(sent int) int { return sent / 3 }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":%d,"completion_tokens":1,"total_tokens":2}}`, tc.report(len(body)))
			}))
			defer srv.Close()
			b, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "m", MaxRetries: -1})
			if err != nil {
				t.Fatal(err)
			}
			req := request(t)
			req.Messages[len(req.Messages)-1].Content = strings.Repeat("Ship COPLAY-1 at X1-DF55-A2, docked, fuel 400/400. ", 600)
			var notices []string
			for range 3 {
				reply, err := b.Next(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				notices = append(notices, reply.Notices...)
			}
			if !tc.want {
				if len(notices) != 0 {
					t.Errorf("an honest count suspected: %q", notices)
				}
				return
			}
			if len(notices) != 1 || !strings.Contains(notices[0], "4096 prompt tokens") || !strings.Contains(notices[0], "OLLAMA_CONTEXT_LENGTH") {
				t.Errorf("notices %q, want one naming 4096 and the fix", notices)
			}
		})
	}
}
