package llmtest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/brain"
)

func serve(t *testing.T, cassette string) *Server {
	t.Helper()
	c, err := Parse([]byte(cassette))
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(c)
	t.Cleanup(func() { s.Close() })
	return s
}

func post(t *testing.T, s *Server, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

const user = `"messages": [{"role": "user", "content": "play"}]`

// events reads an SSE body into its data payloads.
func events(t *testing.T, r io.Reader) (data []string, err error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			data = append(data, line)
		} else if sc.Text() != "" {
			t.Errorf("unexpected SSE line %q", sc.Text())
		}
	}
	return data, sc.Err()
}

func TestStreamWireFormat(t *testing.T) {
	s := serve(t, `{"steps": [{"text": "Orbiting first, then heading out.", "calls": [
		{"tool": "orbit_ship", "args": {"shipSymbol": "COPLAY-1"}},
		{"tool": "navigate_ship", "args": {"shipSymbol": "COPLAY-1", "waypointSymbol": "X1-A1-B7"}}]}]}`)
	resp := post(t, s, `{"model": "m", "stream": true, "stream_options": {"include_usage": true}, `+user+`}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q", ct)
	}
	data, err := events(t, resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if data[len(data)-1] != "[DONE]" {
		t.Fatalf("stream does not end with [DONE]: %q", data[len(data)-1])
	}
	type chunk struct {
		Object  string `json:"object"`
		Choices []struct {
			Delta struct {
				Content   *string `json:"content"`
				ToolCalls []struct {
					Index    *int    `json:"index"`
					ID       string  `json:"id"`
					Type     *string `json:"type"`
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			} `json:"delta"`
			FinishReason *string `json:"finish_reason"`
		} `json:"choices"`
		Usage *struct {
			PromptTokens int `json:"prompt_tokens"`
		} `json:"usage"`
	}
	var text strings.Builder
	var textDeltas int
	args := map[int]*strings.Builder{}
	pieces := map[int]int{}
	names := map[int]string{}
	var finish string
	var usage bool
	for _, d := range data[:len(data)-1] {
		var c chunk
		if err := json.Unmarshal([]byte(d), &c); err != nil {
			t.Fatalf("chunk %s: %v", d, err)
		}
		if c.Object != "chat.completion.chunk" {
			t.Errorf("object = %q", c.Object)
		}
		if c.Usage != nil {
			usage = len(c.Choices) == 0 && c.Usage.PromptTokens > 0
		}
		for _, ch := range c.Choices {
			if ch.Delta.Content != nil && *ch.Delta.Content != "" {
				text.WriteString(*ch.Delta.Content)
				textDeltas++
			}
			for _, tc := range ch.Delta.ToolCalls {
				if tc.Index == nil {
					t.Fatalf("tool call fragment without index: %s", d)
				}
				i := *tc.Index
				if tc.Function.Name != "" {
					names[i] = tc.Function.Name
					args[i] = &strings.Builder{}
					if tc.Type == nil || tc.ID == "" {
						t.Errorf("first fragment of call %d lacks type or id: %s", i, d)
					}
				} else if tc.Type != nil {
					t.Errorf("type repeated in a later fragment: %s", d)
				}
				if tc.Function.Arguments != "" {
					args[i].WriteString(tc.Function.Arguments)
					pieces[i]++
				}
			}
			if ch.FinishReason != nil {
				finish = *ch.FinishReason
			}
		}
	}
	if text.String() != "Orbiting first, then heading out." || textDeltas < 3 {
		t.Errorf("text %q in %d deltas, want it whole in several", text.String(), textDeltas)
	}
	if names[0] != "orbit_ship" || names[1] != "navigate_ship" || args[1].String() != `{"shipSymbol":"COPLAY-1","waypointSymbol":"X1-A1-B7"}` {
		t.Errorf("calls = %v %v", names, args)
	}
	if pieces[0] < 2 || pieces[1] < 2 {
		t.Errorf("argument pieces = %v, want several per call", pieces)
	}
	if finish != "tool_calls" || !usage {
		t.Errorf("finish = %q, usage chunk = %v", finish, usage)
	}
}

func TestPlainWireFormat(t *testing.T) {
	s := serve(t, `{"model": "scripted-x", "steps": [{"text": "Done.", "usage": {"prompt_tokens": 1200, "completion_tokens": 40}}]}`)
	resp := post(t, s, `{`+user+`}`)
	var c struct {
		Object  string
		Model   string
		Choices []struct {
			Message      struct{ Role, Content string }
			FinishReason string `json:"finish_reason"`
		}
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
			TotalTokens      int `json:"total_tokens"`
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		t.Fatal(err)
	}
	if c.Object != "chat.completion" || c.Model != "scripted-x" || c.Choices[0].Message.Content != "Done." ||
		c.Choices[0].FinishReason != "stop" || c.Usage.TotalTokens != 1240 {
		t.Errorf("completion = %+v", c)
	}
}

func TestEndOfScriptAndRepeat(t *testing.T) {
	s := serve(t, `{"steps": [{"text": "only"}]}`)
	for _, want := range []string{"only", "(end of script)", "(end of script)"} {
		if got := plainText(t, s); got != want {
			t.Errorf("text = %q, want %q", got, want)
		}
	}
	r := serve(t, `{"repeat": true, "steps": [{"fault": "500"}, {"calls": [{"tool": "a"}]}, {"text": "b"}]}`)
	if resp := post(t, r, `{`+user+`}`); resp.StatusCode != 500 {
		t.Errorf("first request: HTTP %d, want the scripted 500", resp.StatusCode)
	}
	var ids []string
	for range 4 {
		var c struct {
			Choices []struct {
				Message struct {
					ToolCalls []struct{ ID string } `json:"tool_calls"`
				}
			}
		}
		json.NewDecoder(post(t, r, `{`+user+`}`).Body).Decode(&c)
		for _, tc := range c.Choices[0].Message.ToolCalls {
			ids = append(ids, tc.ID)
		}
	}
	// The fault is not repeated; call ids stay unique across passes.
	if strings.Join(ids, ",") != "call_1_0,call_1_r1_0" {
		t.Errorf("ids over two passes = %v", ids)
	}
}

func plainText(t *testing.T, s *Server) string {
	var c struct {
		Choices []struct{ Message struct{ Content string } }
	}
	if err := json.NewDecoder(post(t, s, `{`+user+`}`).Body).Decode(&c); err != nil {
		t.Fatal(err)
	}
	return c.Choices[0].Message.Content
}

func TestFaultsOnTheWire(t *testing.T) {
	s := serve(t, `{"steps": [{"fault": "429"}, {"fault": "no_tools"}, {"fault": "malformed_body"}, {"fault": "cut"}]}`)
	resp := post(t, s, `{"model": "llama2", `+user+`}`)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "1" || !strings.Contains(string(body), "rate_limit_exceeded") {
		t.Errorf("429: HTTP %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	resp = post(t, s, `{"model": "llama2", `+user+`}`)
	body, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != 400 || !strings.Contains(string(body), "llama2 does not support tools") {
		t.Errorf("no_tools: HTTP %d %s", resp.StatusCode, body)
	}
	resp = post(t, s, `{`+user+`}`)
	body, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || json.Valid(body) {
		t.Errorf("malformed_body: HTTP %d %s", resp.StatusCode, body)
	}
	resp = post(t, s, `{"stream": true, `+user+`}`)
	data, err := events(t, resp.Body)
	if err == nil || len(data) == 0 || data[len(data)-1] == "[DONE]" || strings.Contains(strings.Join(data, ""), "finish_reason\":\"") {
		t.Errorf("cut: %d events, err %v: want some, then a broken body without a finish", len(data), err)
	}
}

func TestTimeoutReleasedByClose(t *testing.T) {
	s := serve(t, `{"steps": [{"fault": "timeout"}]}`)
	errc := make(chan error, 1)
	go func() {
		resp, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(`{`+user+`}`))
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	for len(s.Requests()) == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("Close did not release the held request")
	}
	<-errc
}

func TestConversationChecked(t *testing.T) {
	s := serve(t, `{"steps": [{"text": "a"}]}`)
	resp := post(t, s, `{"messages": [{"role": "user", "content": "x"}, {"role": "tool", "tool_call_id": "c1", "content": "r"}]}`)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 400 || !strings.Contains(string(body), "must be a response to a preceeding message with 'tool_calls'") {
		t.Errorf("orphan tool message: HTTP %d %s", resp.StatusCode, body)
	}
	// The refusal used no step.
	if got := plainText(t, s); got != "a" {
		t.Errorf("after a refused request the script gave %q, want its first step", got)
	}
	if n := len(s.Requests()); n != 2 || len(s.RawRequests()) != 2 {
		t.Errorf("recorded %d requests, want 2", n)
	}
}

func TestModelsAndUnknownPaths(t *testing.T) {
	s := serve(t, `{"model": "scripted-7", "steps": [{"text": "a"}]}`)
	resp, err := http.Get(s.URL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), `"id":"scripted-7"`) {
		t.Errorf("models = %s", body)
	}
	resp2, err := http.Get(s.URL() + "/embeddings")
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != 404 {
		t.Errorf("unknown path: HTTP %d", resp2.StatusCode)
	}
}

// The demo cassette plays through the real brain with the real tool names.
func TestNewBrainPlaysDemo(t *testing.T) {
	b, closer, err := NewBrain("../../testdata/cassettes/demo.cassette.json")
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	if b.Name() != "scripted" {
		t.Errorf("Name = %q", b.Name())
	}
	var tools []string
	msgs := []agent.Message{{Role: agent.RoleSystem, Content: "You play SpaceTraders."}, {Role: agent.RoleUser, Content: "Go."}}
	for step := 0; step < 20; step++ {
		if why := b.(brain.Finite).Over(); why != "" {
			// Played to its end: it says so, and refuses without a request.
			if !strings.Contains(why, "demo.cassette.json is over") {
				t.Errorf("Over = %q", why)
			}
			if _, err := b.Next(context.Background(), agent.Request{Messages: msgs}); err == nil || err.Error() != why {
				t.Errorf("Next after the end = %v, want %q", err, why)
			}
			break
		}
		reply, err := b.Next(context.Background(), agent.Request{Messages: msgs})
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, agent.Message{Role: agent.RoleAssistant, Content: reply.Text, ToolCalls: reply.Calls})
		for _, c := range reply.Calls {
			if !json.Valid(c.Args) {
				t.Errorf("demo call %s has invalid args %s", c.Tool, c.Args)
			}
			tools = append(tools, c.Tool)
			msgs = append(msgs, agent.Message{Role: agent.RoleTool, ToolCallID: c.ID, Content: "ok"})
		}
	}
	want := "observe_detail update_notes set_plan accept_contract orbit_ship orbit_ship navigate_ship navigate_ship update_step " +
		"extract_resources update_step extract_resources update_notes dock_ship observe_detail"
	if got := strings.Join(tools, " "); got != want {
		t.Errorf("demo tools:\n got %s\nwant %s", got, want)
	}
}

func TestNewBrainBadFile(t *testing.T) {
	_, _, err := NewBrain("testdata/nope.json")
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "nope.json") {
		t.Errorf("NewBrain(missing) = %v", err)
	}
}
