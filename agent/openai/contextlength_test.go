package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/agent/brain/braintest"
	"github.com/coplayhq/coplay/agent/openai"
)

// limitServer is a chat completions endpoint on loopback that refuses requests whose
// body exceeds limit bytes the way a provider does, and answers the others.
type limitServer struct {
	limit  int
	status int    // the refusal's HTTP status
	body   string // the refusal's body
	mu     sync.Mutex
	sizes  []int
	last   []string // message contents of the last request answered
}

func (s *limitServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.sizes = append(s.sizes, len(body))
	s.mu.Unlock()
	if len(body) > s.limit {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(s.status)
		io.WriteString(w, s.body)
		return
	}
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(body, &req)
	s.mu.Lock()
	s.last = nil
	for _, m := range req.Messages {
		s.last = append(s.last, m.Role+": "+m.Content)
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,
		"message":{"role":"assistant","content":"Still here."},"finish_reason":"stop"}],
		"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}`)
}

// longRequest is a conversation of 40 steps of 2 KB each, then the observation.
func longRequest(t *testing.T) brain.Request {
	req := brain.Request{Tools: braintest.Tools(t)}
	req.Messages = append(req.Messages,
		brain.Message{Role: brain.RoleSystem, Content: "You play SpaceTraders."},
		brain.Message{Role: brain.RoleUser, Content: "# Your notes\n\nMine iron."})
	for i := range 40 {
		id := fmt.Sprintf("c%d", i)
		req.Messages = append(req.Messages,
			brain.Message{Role: brain.RoleAssistant, Content: strings.Repeat("thinking ", 200),
				ToolCalls: []brain.ToolCall{{ID: id, Tool: "orbit_ship", Args: json.RawMessage(`{"shipSymbol":"COPLAY-1"}`)}}},
			brain.Message{Role: brain.RoleTool, ToolCallID: id, Content: strings.Repeat("result ", 100)})
	}
	req.Messages = append(req.Messages, brain.Message{Role: brain.RoleUser, Content: "# Observation\n\nDocked at A1."})
	return req
}

// A provider that refuses a prompt as too long (OpenAI's context_length_exceeded, a
// 413, a 400 that says so) gets the same request with less history, until it fits: the
// session goes on instead of failing on its own size.
func TestContextLengthShrinksAndRetries(t *testing.T) {
	for name, c := range map[string]struct {
		status int
		body   string
	}{
		"openai": {400, `{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 30000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`},
		"413":    {413, `{"error":{"message":"Request Entity Too Large"}}`},
		"vllm":   {400, `{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 9000 tokens.","type":"BadRequestError","code":400}`},
	} {
		t.Run(name, func(t *testing.T) {
			s := &limitServer{limit: 20_000, status: c.status, body: c.body}
			srv := httptest.NewServer(s)
			defer srv.Close()
			b, err := openai.New(openai.Config{BaseURL: srv.URL, Model: "m", MaxRetries: 1, Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			reply, err := b.Next(context.Background(), longRequest(t))
			if err != nil {
				t.Fatalf("Next: %v (sizes sent %v)", err, s.sizes)
			}
			if reply.Text != "Still here." {
				t.Fatalf("reply = %+v", reply)
			}
			if len(s.sizes) < 2 || s.sizes[len(s.sizes)-1] > s.limit {
				t.Fatalf("sizes sent = %v", s.sizes)
			}
			t.Logf("sizes sent: %v", s.sizes)
			// What fits keeps the system prompt, the notes and the observation.
			got := strings.Join(s.last, "\n")
			for _, want := range []string{"system: You play SpaceTraders.", "# Your notes", "# Observation"} {
				if !strings.Contains(got, want) {
					t.Errorf("the shrunk prompt lost %q", want)
				}
			}
		})
	}
}

// A prompt that cannot be made small enough ends in brain.ErrContextLength, saying so.
func TestContextLengthGivesUpWithATypedError(t *testing.T) {
	s := &limitServer{limit: 10, status: 400, body: `{"error":{"message":"maximum context length exceeded","code":"context_length_exceeded"}}`}
	srv := httptest.NewServer(s)
	defer srv.Close()
	b, err := openai.New(openai.Config{BaseURL: srv.URL, Model: "m", MaxRetries: 1, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Next(context.Background(), longRequest(t))
	if !errors.Is(err, brain.ErrContextLength) || !strings.Contains(err.Error(), "shrinking the prompt") {
		t.Fatalf("err = %v, want brain.ErrContextLength after shrinking", err)
	}
	if len(s.sizes) > 12 {
		t.Fatalf("%d requests: the brain must give up", len(s.sizes))
	}
}
