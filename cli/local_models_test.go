package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/coplayhq/coplay/agent"
)

// Local servers, built from their own documentation of the wire: Ollama (docs/api.md:
// GET /api/version, POST /api/show with model_info's <arch>.context_length, POST
// /api/chat with options.num_ctx, newline-delimited JSON), and an OpenAI-compatible
// server whose model writes its calls as text (llama.cpp without --jinja, vLLM without
// --enable-auto-tool-choice) or thinks aloud (<think>, reasoning_content).

// localServer answers chat requests with answer(n, request body) for the n-th
// request (from 0), and records every request body by path.
type localServer struct {
	srv *httptest.Server
	mu  sync.Mutex
	got map[string][][]byte
}

func (s *localServer) record(path string, body []byte) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.got == nil {
		s.got = map[string][][]byte{}
	}
	s.got[path] = append(s.got[path], body)
	return len(s.got[path]) - 1
}

func (s *localServer) requests(path string) [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.got[path]...)
}

// tokensOf is the test servers' tokenizer: four bytes of the messages and tools a
// token, as a model's tokenizer counts prose.
func tokensOf(body []byte) int {
	var r struct {
		Messages json.RawMessage `json:"messages"`
		Tools    json.RawMessage `json:"tools"`
	}
	json.Unmarshal(body, &r)
	return (len(r.Messages) + len(r.Tools)) / 4
}

// openAIAnswer writes a non-streamed or streamed chat completion carrying message (an
// OpenAI message object) and usage.
func openAIAnswer(w http.ResponseWriter, stream bool, message map[string]any, prompt, completion int) {
	usage := map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
	finish := "stop"
	if _, ok := message["tool_calls"]; ok {
		finish = "tool_calls"
	}
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
			"choices": []any{map[string]any{"index": 0, "message": message, "finish_reason": finish}}, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta map[string]any, finish any, usage any) {
		choices := []any{}
		if delta != nil {
			choices = append(choices, map[string]any{"index": 0, "delta": delta, "finish_reason": finish})
		}
		b, _ := json.Marshal(map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": choices, "usage": usage})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil, nil)
	if r, ok := message["reasoning_content"].(string); ok {
		chunk(map[string]any{"reasoning_content": r}, nil, nil)
	}
	if c, ok := message["content"].(string); ok {
		// In pieces that split the tags, as a server streams tokens.
		for len(c) > 0 {
			n := min(len(c), 5)
			chunk(map[string]any{"content": c[:n]}, nil, nil)
			c = c[n:]
		}
	}
	if tcs, ok := message["tool_calls"].([]any); ok {
		for i, tc := range tcs {
			m := tc.(map[string]any)
			m["index"] = i
			chunk(map[string]any{"tool_calls": []any{m}}, nil, nil)
		}
	}
	chunk(map[string]any{}, finish, nil)
	chunk(nil, nil, usage)
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// runLocal plays steps headless with --model M against base, and returns the events.
func runLocal(t *testing.T, base string, steps int, extra ...string) []agent.Event {
	t.Helper()
	env := []string{"XDG_CONFIG_HOME=" + t.TempDir(), "OPENAI_BASE_URL=" + base, "OPENAI_API_KEY="}
	args := append([]string{"--model", "qwen3:8b", "--approve", "all", "--steps", fmt.Sprint(steps),
		"--data", filepath.Join(t.TempDir(), "n.db")}, extra...)
	out := headlessOpen(t, args, env, "")
	return decodeEvents(t, out)
}

// An Ollama whose /api/show says 32,768 and whose OpenAI endpoint runs every model at
// 4,096 tokens, cutting longer prompts as Ollama does: the brain talks /api/chat with a
// context that holds each prompt, and nothing reaches the capped endpoint.
func TestOllamaContextFitsThePrompt(t *testing.T) {
	t.Parallel()
	const openAICap, modelMax = 4096, 32768
	s := &localServer{}
	type chatReq struct {
		Options struct {
			NumCtx int `json:"num_ctx"`
		} `json:"options"`
		Stream *bool `json:"stream"`
	}
	var ctxs, sizes []int
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"version":"0.12.3"}`)
	})
	mux.HandleFunc("POST /api/show", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.record("/api/show", body)
		fmt.Fprintf(w, `{"parameters":"stop \"<|im_end|>\"","details":{"family":"qwen3"},"model_info":{"general.architecture":"qwen3","qwen3.context_length":%d},"capabilities":["completion","tools","thinking"]}`, modelMax)
	})
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.record("/v1/chat/completions", body)
		openAIAnswer(w, false, map[string]any{"role": "assistant", "content": "I see no game."}, min(tokensOf(body), openAICap), 4)
	})
	mux.HandleFunc("POST /api/chat", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		n := s.record("/api/chat", body)
		var req chatReq
		json.Unmarshal(body, &req)
		numCtx := req.Options.NumCtx
		if numCtx == 0 {
			numCtx = openAICap // the server's default
		}
		tokens := tokensOf(body)
		ctxs, sizes = append(ctxs, numCtx), append(sizes, tokens)
		evaluated := min(tokens, numCtx) // Ollama keeps what fits
		w.Header().Set("Content-Type", "application/x-ndjson")
		if n == 0 {
			fmt.Fprint(w, `{"model":"qwen3:8b","created_at":"2026-11-26T00:00:00Z","message":{"role":"assistant","content":"","thinking":"Look first."},"done":false}`+"\n")
			fmt.Fprint(w, `{"model":"qwen3:8b","created_at":"2026-11-26T00:00:00Z","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"observe_game","arguments":{}}}]},"done":false}`+"\n")
		} else {
			fmt.Fprint(w, `{"model":"qwen3:8b","created_at":"2026-11-26T00:00:00Z","message":{"role":"assistant","content":"Done for now."},"done":false}`+"\n")
		}
		fmt.Fprintf(w, `{"model":"qwen3:8b","created_at":"2026-11-26T00:00:01Z","message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"prompt_eval_count":%d,"eval_count":12}`+"\n", evaluated)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	evs := runLocal(t, srv.URL+"/v1", 2)
	if n := len(s.requests("/v1/chat/completions")); n != 0 {
		t.Errorf("%d requests went to the OpenAI endpoint that cuts prompts at %d tokens", n, openAICap)
	}
	if len(ctxs) < 2 {
		t.Fatalf("/api/chat got %d requests, want at least 2; events: %v", len(ctxs), eventTypes(evs))
	}
	for i := range ctxs {
		if ctxs[i] < sizes[i] || ctxs[i] > modelMax {
			t.Errorf("request %d: num_ctx %d for a prompt of %d tokens (model max %d)", i+1, ctxs[i], sizes[i], modelMax)
		}
	}
	t.Logf("num_ctx per request %v for prompts of %v tokens", ctxs, sizes)
	var ran, thought bool
	for _, ev := range evs {
		ran = ran || ev.Type == agent.EventResult && ev.Call != nil && ev.Call.Tool == "observe_game"
		thought = thought || ev.Type == agent.EventThinking && ev.Text == "Look first."
		if ev.Type == agent.EventError {
			t.Errorf("error event: %s", ev.Text)
		}
	}
	if !ran || !thought {
		t.Errorf("observe_game ran %v, thinking shown %v", ran, thought)
	}
}

// A server that answers with calls written as text: each form is proposed, runs, and
// the next request carries it as a tool call with its result, its markup gone from the
// assistant's text.
// firstAnswerServer is an OpenAI-wire server on loopback that answers the first
// request with content and every later one with prose, closed when the test ends: what
// it received, and its base URL.
func firstAnswerServer(t *testing.T, content string) (*localServer, string) {
	s := &localServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		n := s.record("chat", body)
		var req struct {
			Stream bool `json:"stream"`
		}
		json.Unmarshal(body, &req)
		answer := "Nothing more to do."
		if n == 0 {
			answer = content
		}
		openAIAnswer(w, req.Stream, map[string]any{"role": "assistant", "content": answer}, tokensOf(body), 20)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return s, srv.URL + "/v1"
}

func TestCallsWrittenAsTextRun(t *testing.T) {
	t.Parallel()
	// The command line's brain streams; the wire matrix (agent/openai) covers plain answers.
	for _, tc := range []struct{ name, content string }{
		{"hermes", "Let me look.\n<tool_call>\n{\"name\": \"observe_game\", \"arguments\": {}}\n</tool_call>"},
		{"mistral", "[TOOL_CALLS][{\"name\": \"observe_game\", \"arguments\": {}}]"},
		{"llama python_tag", "<|python_tag|>{\"name\": \"observe_game\", \"parameters\": {}}<|eom_id|>"},
		{"llama bare", "{\"name\": \"observe_game\", \"parameters\": {}}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, base := firstAnswerServer(t, tc.content)
			evs := runLocal(t, base, 2)
			var id string
			for _, ev := range evs {
				if ev.Type == agent.EventProposed && ev.Call != nil && ev.Call.Tool == "observe_game" {
					if !ev.Call.FromText {
						t.Errorf("the proposal is not marked from_text")
					}
					id = ev.Call.ID
				}
				if ev.Type == agent.EventTextDelta && strings.ContainsAny(ev.Text, "<[{") {
					t.Errorf("call markup streamed as text: %q", ev.Text)
				}
			}
			ran := false
			for _, ev := range evs {
				ran = ran || ev.Type == agent.EventResult && ev.Call != nil && ev.Call.ID == id && id != ""
			}
			if !ran {
				t.Fatalf("the call was not proposed and run; events %v", eventTypes(evs))
			}
			reqs := s.requests("chat")
			if len(reqs) < 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			var next struct {
				Messages []struct {
					Role       string `json:"role"`
					Content    string `json:"content"`
					ToolCallID string `json:"tool_call_id"`
					ToolCalls  []struct {
						ID       string `json:"id"`
						Function struct {
							Name, Arguments string
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(reqs[1], &next); err != nil {
				t.Fatal(err)
			}
			callID, answered := "", false
			for _, m := range next.Messages {
				if m.Role == "assistant" {
					for _, c := range m.ToolCalls {
						if c.Function.Name == "observe_game" {
							callID = c.ID
						}
					}
					for _, mark := range []string{"<tool_call>", "[TOOL_CALLS]", "<|python_tag|>", `"name"`} {
						if strings.Contains(m.Content, mark) {
							t.Errorf("the assistant's text sent back keeps the markup %s: %q", mark, m.Content)
						}
					}
				}
				if m.Role == "tool" && m.ToolCallID == callID && callID != "" && m.Content != "" {
					answered = true
				}
			}
			if callID == "" || !answered {
				t.Errorf("the next request carries the call %q as a tool call: %v, with its result: %v\n%s", callID, callID != "", answered, reqs[1])
			}
		})
	}
}

// A server whose model thinks in <think> and reasoning_content: the thinking is shown
// headless, and never appears in a later request.
func TestThinkingNeverSentBack(t *testing.T) {
	t.Parallel()
	s := &localServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		n := s.record("chat", body)
		msg := map[string]any{"role": "assistant", "content": "All quiet."}
		if n == 0 {
			msg = map[string]any{"role": "assistant", "reasoning_content": "PLAN-B the fuel is low",
				"content":    "<think>PLAN-A check the ships</think>Checking the ships.",
				"tool_calls": []any{map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": "observe_game", "arguments": "{}"}}}}
		}
		var req struct {
			Stream bool `json:"stream"`
		}
		json.Unmarshal(body, &req)
		openAIAnswer(w, req.Stream, msg, tokensOf(body), 30)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	evs := runLocal(t, srv.URL+"/v1", 2)
	var thinking []string
	for _, ev := range evs {
		if ev.Type == agent.EventThinking {
			thinking = append(thinking, ev.Text)
		}
		if (ev.Type == agent.EventText || ev.Type == agent.EventTextDelta) && strings.Contains(ev.Text, "PLAN-") {
			t.Errorf("thinking shown as the model's text: %q", ev.Text)
		}
	}
	all := strings.Join(thinking, "\n")
	if !strings.Contains(all, "PLAN-A") || !strings.Contains(all, "PLAN-B") {
		t.Errorf("thinking events %q, want both PLAN-A and PLAN-B", thinking)
	}
	reqs := s.requests("chat")
	if len(reqs) < 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, r := range reqs[1:] {
		if bytes.Contains(r, []byte("PLAN-")) || bytes.Contains(r, []byte("<think>")) {
			t.Errorf("request %d carries the thinking:\n%s", i+2, r)
		}
	}
}

// eventTypes lists the events' types, for failure messages.
func eventTypes(evs []agent.Event) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, string(ev.Type)+":"+ev.Text)
	}
	return out
}
