package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent/anthropic"
	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/agent/brain/braintest"
)

const twoCalls = `{"text": "Orbiting, then a look around.", "calls": [
	{"tool": "orbit_ship", "args": {"shipSymbol": "COPLAY-1"}},
	{"tool": "observe_game", "raw_args": "{ \"why\" : \"to see\" }"}]}`

func TestTextAndParallelCallsStreamedAndNot(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			srv, b, _ := script(t, `{"steps": [`+twoCalls+`]}`, func(c *anthropic.Config) { c.Stream = stream })
			req := request(t)
			var shown strings.Builder
			req.OnDelta = func(s string) { shown.WriteString(s) }
			reply, err := b.Next(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if reply.Text != "Orbiting, then a look around." {
				t.Errorf("text = %q", reply.Text)
			}
			if stream && shown.String() != reply.Text {
				t.Errorf("OnDelta showed %q, want the text %q", shown.String(), reply.Text)
			}
			if !stream && shown.Len() != 0 {
				t.Errorf("a plain request streamed %q", shown.String())
			}
			if len(reply.Calls) != 2 {
				t.Fatalf("calls = %+v, want 2", reply.Calls)
			}
			c0, c1 := reply.Calls[0], reply.Calls[1]
			if c0.Tool != "orbit_ship" || string(c0.Args) != `{"shipSymbol":"COPLAY-1"}` || c0.ID != "toolu_llmtest_0_0" {
				t.Errorf("call 0 = %s %s %s", c0.ID, c0.Tool, c0.Args)
			}
			if stream && string(c1.Args) != `{ "why" : "to see" }` {
				// Streamed input is the model's bytes, spaces and all.
				t.Errorf("call 1 args = %s, want the input byte for byte", c1.Args)
			}
			if c1.Tool != "observe_game" || !json.Valid(c1.Args) {
				t.Errorf("call 1 = %s %s", c1.Tool, c1.Args)
			}
			body := srv.RawRequests()[0]
			r := decode(t, body)
			if r.Stream != stream || r.Model != "claude-test" || r.MaxTokens != anthropic.DefaultMaxTokens || r.Thinking != nil {
				t.Errorf("request: stream %v model %q max_tokens %d thinking %s", r.Stream, r.Model, r.MaxTokens, r.Thinking)
			}
			if len(r.System) != 1 || r.System[0].Text != longSystem {
				t.Errorf("system = %+v, want the system prompt as one block", r.System)
			}
			// Two user messages in a row become one turn of two text blocks.
			if len(r.Messages) != 1 || r.Messages[0].Role != "user" || len(r.Messages[0].Content) != 2 {
				t.Errorf("messages = %+v, want one user turn with two blocks", r.Messages)
			}
			if len(r.Tools) != 2 || !strings.Contains(string(r.Tools[0]), `"input_schema":{"type":"object"`) {
				t.Errorf("tools = %s", r.Tools)
			}
		})
	}
}

// conversation is a request that carries the reply to the one before and its results:
// what the runner sends next.
func followUp(t *testing.T, req brain.Request, reply brain.Reply, next string) brain.Request {
	t.Helper()
	msgs := append([]brain.Message(nil), req.Messages...)
	msgs = append(msgs, brain.Message{Role: brain.RoleAssistant, Content: reply.Text, ToolCalls: reply.Calls, Thinking: reply.Thinking})
	for _, c := range reply.Calls {
		msgs = append(msgs, brain.Message{Role: brain.RoleTool, ToolCallID: c.ID, Content: "ok: " + c.Tool})
	}
	msgs = append(msgs, brain.Message{Role: brain.RoleUser, Content: next})
	req.Messages = msgs
	return req
}

func TestCacheBreakpointsAndCachedUsage(t *testing.T) {
	step := `{"text": "Orbit.", "calls": [{"tool": "orbit_ship", "args": {"shipSymbol": "COPLAY-1"}}]}`
	srv, b, _ := script(t, `{"repeat": true, "steps": [`+step+`]}`, func(c *anthropic.Config) {
		c.PriceIn, c.PriceOut = 3, 15 // dollars per million, as Claude Sonnet
	})
	req := request(t)
	var usages []brain.Usage
	for i := range 5 {
		reply, err := b.Next(context.Background(), req)
		if err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
		usages = append(usages, reply.Usage)
		req = followUp(t, req, reply, fmt.Sprintf("Step %d. Orbiting.", i+2))
	}
	for i, body := range srv.RawRequests() {
		if n := breakpoints(body); n < 1 || n > 4 {
			t.Errorf("request %d carries %d cache_control breakpoints, want 1 to 4", i+1, n)
		}
		r := decode(t, body)
		if len(r.System[0].CacheControl) == 0 {
			t.Errorf("request %d: no breakpoint on the system prompt", i+1)
		}
		last := r.Messages[len(r.Messages)-1].Content
		if !strings.Contains(string(last[len(last)-1]), "cache_control") {
			t.Errorf("request %d: no breakpoint on the newest message's last block", i+1)
		}
	}
	first := usages[0]
	if first.CachedTokens != 0 || first.CacheWriteTokens == 0 {
		t.Errorf("request 1: cached %d, written %d: want a cache write and nothing read", first.CachedTokens, first.CacheWriteTokens)
	}
	for i, u := range usages[1:] {
		if u.CachedTokens == 0 || u.CachedTokens >= u.PromptTokens {
			t.Errorf("request %d: cached %d of %d prompt tokens, want most but not all", i+2, u.CachedTokens, u.PromptTokens)
		}
		// All that the request before sent is read from the cache.
		if prev := usages[i]; u.CachedTokens < prev.PromptTokens*9/10 {
			t.Errorf("request %d read %d tokens from the cache, want about the %d tokens of request %d", i+2, u.CachedTokens, prev.PromptTokens, i+1)
		}
	}
	// Priced as Anthropic prices: input 3, cache reads 0.3, cache writes 3.75, output 15.
	u := usages[2]
	plain := u.PromptTokens - u.CachedTokens - u.CacheWriteTokens
	want := (float64(plain)*3 + float64(u.CachedTokens)*0.3 + float64(u.CacheWriteTokens)*3.75 + float64(u.CompletionTokens)*15) / 1e6
	if !u.CostKnown || u.CostUpper || fmt.Sprintf("%.9f", u.Cost) != fmt.Sprintf("%.9f", want) {
		t.Errorf("cost = %g known %v upper %v, want %g", u.Cost, u.CostKnown, u.CostUpper, want)
	}
}

// TestFaults runs the fault suite every model brain runs.
func TestFaults(t *testing.T) { braintest.Faults(t, kind.Opener()) }

func TestOverloadedRetriedWithBackoff(t *testing.T) {
	for _, tc := range []struct {
		fault  string
		stream bool
	}{{"529", true}, {"529", false}, {"overloaded_event", true}, {"500", true}} {
		t.Run(fmt.Sprintf("%s stream=%v", tc.fault, tc.stream), func(t *testing.T) {
			srv, b, w := script(t, `{"steps": [{"fault": "`+tc.fault+`"}, `+braintest.OKStep+`]}`, func(c *anthropic.Config) { c.Stream = tc.stream })
			reply, err := b.Next(context.Background(), request(t))
			if err != nil {
				t.Fatal(err)
			}
			if reply.Text != "Recovered." || len(srv.RawRequests()) != 2 {
				t.Errorf("reply %+v after %d requests, want the second step", reply, len(srv.RawRequests()))
			}
			if got := w.All(); len(got) != 1 || got[0] < 500*time.Millisecond || got[0] > time.Second {
				t.Errorf("waits = %v, want one backoff of about 0.5s", got)
			}
		})
	}
}

func TestOverloadedGivesUp(t *testing.T) {
	_, b, _ := script(t, `{"steps": [{"fault": "529"}, {"fault": "529"}, {"fault": "529"}, `+braintest.OKStep+`]}`, nil)
	_, err := b.Next(context.Background(), request(t))
	var e *brain.Error
	if !errors.As(err, &e) || !errors.Is(err, brain.ErrServer) || e.Status != 529 || e.Type != "overloaded_error" || e.Attempts != 3 {
		t.Fatalf("err = %v, want brain.ErrServer from HTTP 529 overloaded_error after 3 attempts", err)
	}
	if !strings.Contains(err.Error(), "Overloaded") || !strings.Contains(err.Error(), "gave up after 3 attempts") {
		t.Errorf("error %q", err)
	}
}

func TestTooLongPromptShrunk(t *testing.T) {
	srv, b, w := script(t, `{"steps": [{"fault": "too_long"}, `+braintest.OKStep+`]}`, nil)
	req := request(t)
	for i := range 6 {
		req = followUp(t, req, brain.Reply{Text: "Orbit.", Calls: []brain.ToolCall{{ID: fmt.Sprintf("toolu_%d", i), Tool: "orbit_ship", Args: json.RawMessage(`{"shipSymbol":"COPLAY-1"}`)}}},
			fmt.Sprintf("Step %d.", i+2))
	}
	reply, err := b.Next(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if reply.Text != "Recovered." {
		t.Errorf("reply = %+v", reply)
	}
	if got := w.All(); len(got) != 0 {
		t.Errorf("waits = %v: shrinking costs no wait", got)
	}
	raw := srv.RawRequests()
	if len(raw) != 2 {
		t.Fatalf("requests = %d, want 2", len(raw))
	}
	before, after := decode(t, raw[0]), decode(t, raw[1])
	if len(after.Messages) >= len(before.Messages) {
		t.Errorf("the retry has %d messages, the refused request %d: want fewer", len(after.Messages), len(before.Messages))
	}
	if len(after.System) != 1 || !strings.Contains(string(after.Messages[len(after.Messages)-1].Content[len(after.Messages[len(after.Messages)-1].Content)-1]), "Step 7.") {
		t.Errorf("the shrunk prompt lost the system prompt or the newest input: %s", raw[1])
	}
}

func TestTooLongAfterShrinkingSaysSo(t *testing.T) {
	_, b, _ := script(t, `{"repeat": false, "steps": [{"fault": "too_long"}, {"fault": "too_long"}, {"fault": "too_long"}, {"fault": "too_long"}, {"fault": "too_long"}, {"fault": "too_long"}, {"fault": "too_long"}, {"fault": "too_long"}, {"fault": "too_long"}, {"fault": "too_long"}]}`, nil)
	_, err := b.Next(context.Background(), request(t))
	if !errors.Is(err, brain.ErrContextLength) || !strings.Contains(err.Error(), "prompt is too long") || !strings.Contains(err.Error(), "still too long after shrinking") {
		t.Fatalf("err = %v, want brain.ErrContextLength after shrinking", err)
	}
}

func TestAuthNamesTheKeyVariable(t *testing.T) {
	srv, b, _ := script(t, `{"steps": [{"fault": "401"}, `+braintest.OKStep+`]}`, nil)
	_, err := b.Next(context.Background(), request(t))
	if !errors.Is(err, brain.ErrAuth) {
		t.Fatalf("err = %v, want brain.ErrAuth", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "ANTHROPIC_API_KEY") || strings.Contains(msg, "OPENAI") || strings.Contains(msg, "\n") {
		t.Errorf("error %q: want one line naming ANTHROPIC_API_KEY", msg)
	}
	if strings.Contains(msg, testKey) {
		t.Errorf("error %q shows the key", msg)
	}
	if n := len(srv.RawRequests()); n != 1 {
		t.Errorf("requests = %d: a refused key is not retried", n)
	}
}

// TestKeyNeverInErrors: whatever fails, and even when the server repeats the key back,
// no error shows it.
func TestKeyNeverInErrors(t *testing.T) {
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad key %s for this workspace"}}`, r.Header.Get("X-Api-Key"))
	}))
	defer echo.Close()
	cfgs := map[string]anthropic.Config{
		"echoed":      {APIKey: testKey, BaseURL: echo.URL, Model: "claude-test", MaxRetries: -1},
		"unreachable": {APIKey: testKey, BaseURL: "http://127.0.0.1:1", Model: "claude-test", MaxRetries: -1},
	}
	for _, fault := range []string{"429", "529", "401", "malformed_body", "overloaded_event", "no_tools", "500"} {
		srv, _, _ := script(t, `{"repeat": true, "steps": [{"fault": "`+fault+`"}, `+braintest.OKStep+`]}`, nil)
		cfgs[fault] = anthropic.Config{APIKey: testKey, BaseURL: srv.URL(), Model: "claude-test", MaxRetries: -1, Stream: true}
	}
	for name, cfg := range cfgs {
		b, err := anthropic.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = b.Next(context.Background(), request(t))
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if strings.Contains(err.Error(), testKey) || strings.Contains(fmt.Sprintf("%+v %#v", err, b), testKey) {
			t.Errorf("%s: the key shows: %v", name, err)
		}
	}
}

func TestTemperatureSentWithoutThinking(t *testing.T) {
	temp := float32(0)
	srv, b, _ := script(t, `{"steps": [`+braintest.OKStep+`]}`, func(c *anthropic.Config) { c.Temperature = &temp })
	if _, err := b.Next(context.Background(), request(t)); err != nil {
		t.Fatal(err)
	}
	if r := decode(t, srv.RawRequests()[0]); r.Temperature == nil || *r.Temperature != 0 {
		t.Errorf("temperature = %v, want 0 sent", r.Temperature)
	}
}

// A question from the person keeps the tools and sets tool_choice none.
func TestToolChoiceNoneKeepsTheTools(t *testing.T) {
	braintest.ToolChoiceNone(t, kind.Opener(), request(t), `{"type":"none"}`)
}
