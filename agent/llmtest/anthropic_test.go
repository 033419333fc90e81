package llmtest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// postMessages sends a Messages API request as the SDKs do (x-api-key,
// anthropic-version).
func postMessages(t *testing.T, s *Server, body string, key bool) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL()+"/messages", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Anthropic-Version", "2023-06-01")
	if key {
		req.Header.Set("X-Api-Key", "k")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// namedEvents reads an SSE body of named events: each event's name and data.
func namedEvents(t *testing.T, r io.Reader) (names []string, data []map[string]any) {
	t.Helper()
	sc := bufio.NewScanner(r)
	name := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("event %s: data is not JSON: %s", name, line)
			}
			if d["type"] != name {
				t.Errorf("event %q carries type %v", name, d["type"])
			}
			names, data = append(names, name), append(data, d)
		case line != "":
			t.Errorf("unexpected SSE line %q", line)
		}
	}
	return names, data
}

func TestAnthropicStreamWireFormat(t *testing.T) {
	s := serve(t, `{"steps": [{"text": "Orbiting first.", "calls": [{"tool": "orbit_ship", "args": {"shipSymbol": "COPLAY-1"}}]}]}`)
	resp := postMessages(t, s, `{"model": "claude-x", "max_tokens": 1024, "stream": true, "messages": [{"role": "user", "content": "play"}]}`, true)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q", ct)
	}
	names, data := namedEvents(t, resp.Body)
	want := "message_start ping content_block_start content_block_delta content_block_delta content_block_delta content_block_stop " +
		"content_block_start content_block_delta content_block_delta content_block_delta content_block_stop message_delta message_stop"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("events:\n%s\nwant\n%s", got, want)
	}
	var text, input strings.Builder
	for _, d := range data {
		if delta, ok := d["delta"].(map[string]any); ok {
			switch delta["type"] {
			case "text_delta":
				text.WriteString(delta["text"].(string))
			case "input_json_delta":
				input.WriteString(delta["partial_json"].(string))
			}
		}
	}
	if text.String() != "Orbiting first." || input.String() != `{"shipSymbol":"COPLAY-1"}` {
		t.Errorf("text %q, input %q", text.String(), input.String())
	}
	if stop := data[len(data)-2]["delta"].(map[string]any)["stop_reason"]; stop != "tool_use" {
		t.Errorf("stop_reason = %v", stop)
	}
	usage := data[0]["message"].(map[string]any)["usage"].(map[string]any)
	for _, k := range []string{"input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "output_tokens"} {
		if _, ok := usage[k]; !ok {
			t.Errorf("message_start usage has no %s: %v", k, usage)
		}
	}
}

// anthropicUsage posts a plain request and returns its usage.
func anthropicUsage(t *testing.T, s *Server, body string) map[string]int {
	t.Helper()
	resp := postMessages(t, s, body, true)
	var m struct {
		Usage map[string]int `json:"usage"`
		Error any            `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || resp.StatusCode != 200 {
		t.Fatalf("HTTP %d, %v: %+v", resp.StatusCode, err, m)
	}
	return m.Usage
}

// TestAnthropicCacheAccounting: a breakpoint's prefix is written, read back by a later
// request that reaches it within 20 blocks, and not read past them.
func TestAnthropicCacheAccounting(t *testing.T) {
	s := serve(t, `{"repeat": true, "steps": [{"text": "ok"}]}`)
	system := strings.Repeat("The rules of the game. ", 300) // about 1,700 tokens
	turns := func(n int, markLast bool) string {
		var msgs []string
		for i := range n {
			role := []string{"user", "assistant"}[i%2]
			cc := ""
			if markLast && i == n-1 {
				cc = `, "cache_control": {"type": "ephemeral"}`
			}
			msgs = append(msgs, fmt.Sprintf(`{"role": %q, "content": [{"type": "text", "text": "turn %d"%s}]}`, role, i, cc))
		}
		return `{"model": "claude-x", "max_tokens": 1024, "system": [{"type": "text", "text": "` + system + `", "cache_control": {"type": "ephemeral"}}], "messages": [` + strings.Join(msgs, ",") + `]}`
	}
	first := anthropicUsage(t, s, turns(1, true))
	if first["cache_read_input_tokens"] != 0 || first["cache_creation_input_tokens"] == 0 {
		t.Errorf("first request: %v, want a write and no read", first)
	}
	total := first["input_tokens"] + first["cache_creation_input_tokens"]
	second := anthropicUsage(t, s, turns(3, true))
	if second["cache_read_input_tokens"] != total {
		t.Errorf("second request read %d, want the %d tokens the first wrote", second["cache_read_input_tokens"], total)
	}
	// 25 turns on: the last breakpoint is more than 20 blocks past the last written
	// prefix, so only the system prompt's prefix is read.
	far := anthropicUsage(t, s, turns(29, true))
	if read := far["cache_read_input_tokens"]; read >= total || read == 0 {
		t.Errorf("a request 26 blocks on read %d, want only the system prompt's prefix (under %d)", read, total)
	}
	// A prefix under 1,024 tokens is never cached.
	small := `{"model": "claude-x", "max_tokens": 1024, "system": [{"type": "text", "text": "short", "cache_control": {"type": "ephemeral"}}], "messages": [{"role": "user", "content": "hi"}]}`
	anthropicUsage(t, s, small)
	if u := anthropicUsage(t, s, small); u["cache_read_input_tokens"] != 0 || u["cache_creation_input_tokens"] != 0 {
		t.Errorf("a short prompt: %v, want no cache at all", u)
	}
}

func TestAnthropicRefusals(t *testing.T) {
	s := serve(t, `{"steps": [{"text": "a"}]}`)
	cc := `"cache_control": {"type": "ephemeral"}`
	for _, tt := range []struct {
		body   string
		key    bool
		status int
		want   string
	}{
		{`{"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "x"}]}`, false, 401, `"type":"authentication_error"`},
		{`{"model": "m", "messages": [{"role": "user", "content": "x"}]}`, true, 400, "max_tokens: Field required"},
		{`{"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": [{"type": "text", "text": "a", ` + cc + `}, {"type": "text", "text": "b", ` + cc + `}, {"type": "text", "text": "c", ` + cc + `}, {"type": "text", "text": "d", ` + cc + `}, {"type": "text", "text": "e", ` + cc + `}]}]}`,
			true, 400, "A maximum of 4 blocks with cache_control may be provided. Found 5."},
		{`{"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "look", "input": {}}]}, {"role": "user", "content": "y"}]}`,
			true, 400, "`tool_use` ids were found without `tool_result` blocks immediately after: t1"},
		{`{"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t9", "content": "r"}]}]}`,
			true, 400, "unexpected `tool_use_id` found in `tool_result` blocks: t9"},
		{`{"model": "m", "max_tokens": 2000, "thinking": {"type": "enabled", "budget_tokens": 2048}, "messages": [{"role": "user", "content": "x"}]}`,
			true, 400, "`max_tokens` must be greater than `thinking.budget_tokens`"},
	} {
		resp := postMessages(t, s, tt.body, tt.key)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != tt.status || !strings.Contains(string(body), tt.want) || !strings.Contains(string(body), `"type":"error"`) {
			t.Errorf("HTTP %d %s\nwant %d with %q", resp.StatusCode, body, tt.status, tt.want)
		}
	}
	// The refusals used no step.
	u := anthropicUsage(t, s, `{"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "x"}]}`)
	if u["output_tokens"] == 0 {
		t.Errorf("usage %v", u)
	}
}
