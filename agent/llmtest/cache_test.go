package llmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/openai"
)

// usageOf is the usage of an answer, as each provider's wire format puts it.
type usageOf struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails *struct {
		CachedTokens *int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	PromptCacheHitTokens  *int `json:"prompt_cache_hit_tokens"`
	PromptCacheMissTokens *int `json:"prompt_cache_miss_tokens"`
}

// cached is the OpenAI-format cached count, -1 when the answer has none.
func (u usageOf) cached() int {
	if u.PromptTokensDetails == nil || u.PromptTokensDetails.CachedTokens == nil {
		return -1
	}
	return *u.PromptTokensDetails.CachedTokens
}

// plainUsage posts body and returns the usage of the (non-streamed) answer.
func plainUsage(t *testing.T, s *Server, body string) usageOf {
	t.Helper()
	var c struct{ Usage usageOf }
	if err := json.NewDecoder(post(t, s, body).Body).Decode(&c); err != nil {
		t.Fatal(err)
	}
	return c.Usage
}

// chat is a request body with these messages' contents, one user message each.
func chat(contents ...string) string {
	var msgs []string
	for _, c := range contents {
		msgs = append(msgs, fmt.Sprintf(`{"role":"user","content":%q}`, c))
	}
	return `{"model":"m","messages":[` + strings.Join(msgs, ",") + `]}`
}

const prefixOpen = len(`[{"role":"user","content":"`) // before the first content in chat's prompt text

func TestPromptTokensAreTheToolsAndMessages(t *testing.T) {
	s := serve(t, `{"repeat": true, "steps": [{"text": "ok"}]}`)
	body := `{"model": "m", "tools": [{"type": "function", "function": {"name": "orbit_ship"}}], "messages": [{"role": "user", "content": "play"}]}`
	u := plainUsage(t, s, body)
	text := `[{"type": "function", "function": {"name": "orbit_ship"}}][{"role": "user", "content": "play"}]`
	if want := (len(text) + 3) / 4; u.PromptTokens != want {
		t.Errorf("prompt tokens = %d, want %d: the raw tools then messages, over 4, rounded up", u.PromptTokens, want)
	}
	if got := s.PromptTexts(); len(got) != 1 || string(got[0]) != text {
		t.Errorf("PromptTexts = %q, want [%q]", got, text)
	}
	if u.cached() != 0 {
		t.Errorf("a first request has %d cached tokens, want 0", u.cached())
	}
}

func TestCachedTokensFromTheSharedPrefix(t *testing.T) {
	s := serve(t, `{"repeat": true, "steps": [{"text": "ok"}]}`)
	long := strings.Repeat("a", 9000)
	plainUsage(t, s, chat(long))
	// The same first message, then one more: the shared prefix is the first message's
	// bytes up to where the first content ends (27 + 9000 bytes: 2256 tokens), which
	// is 17 whole blocks of 128.
	u := plainUsage(t, s, chat(long+"b", "next"))
	if u.cached() != 2176 {
		t.Errorf("cached = %d, want 2176 (2256 tokens shared, in whole blocks of 128)", u.cached())
	}
	if want := (prefixOpen + 9001 + len(`"},{"role":"user","content":"next"}]`) + 3) / 4; u.PromptTokens != want {
		t.Errorf("prompt tokens = %d, want %d", u.PromptTokens, want)
	}
	// The longest prefix with any recent prompt counts, not only the last one.
	plainUsage(t, s, chat(strings.Repeat("z", 9000)))
	if u := plainUsage(t, s, chat(long)); u.cached() != 2176 {
		t.Errorf("against an older prompt: cached = %d, want 2176", u.cached())
	}
}

func TestCachedTokensThresholdAndCap(t *testing.T) {
	s := serve(t, `{"repeat": true, "steps": [{"text": "ok"}]}`)
	for _, tc := range []struct {
		content string
		cached  int
	}{
		// A prompt text of 4093 bytes (1024 tokens rounded up, 1023 whole): under the minimum.
		{strings.Repeat("s", 4093-prefixOpen-3), 0},
		// 4096 bytes sent twice: all of it, exactly 1024 tokens, is cached.
		{strings.Repeat("t", 4096-prefixOpen-3), 1024},
		// 4100 bytes (1025 tokens): 1024 cached, never more than the prompt.
		{strings.Repeat("u", 4100-prefixOpen-3), 1024},
	} {
		first := plainUsage(t, s, chat(tc.content))
		again := plainUsage(t, s, chat(tc.content))
		if first.cached() != 0 || again.cached() != tc.cached || again.cached() > again.PromptTokens {
			t.Errorf("prompt of %d tokens: cached %d then %d, want 0 then %d", again.PromptTokens, first.cached(), again.cached(), tc.cached)
		}
	}
}

func TestCacheRemembersOnlyRecentProcessedPrompts(t *testing.T) {
	s := serve(t, `{"repeat": true, "steps": [{"text": "ok"}]}`)
	long := func(i int) string { return fmt.Sprintf("%03d", i) + strings.Repeat("x", 6000) }
	plainUsage(t, s, chat(long(0)))
	for i := 1; i < CacheKept; i++ {
		plainUsage(t, s, chat(long(i)))
	}
	if u := plainUsage(t, s, chat(long(0))); u.cached() == 0 {
		t.Errorf("the prompt %d requests back is forgotten: want it among the last %d", CacheKept-1, CacheKept)
	}
	for i := 100; i < 100+CacheKept; i++ {
		plainUsage(t, s, chat(long(i)))
	}
	if u := plainUsage(t, s, chat(long(0))); u.cached() != 0 {
		t.Errorf("cached = %d for a prompt %d requests back, want 0: the cache keeps the last %d", u.cached(), CacheKept, CacheKept)
	}
	if n := len(s.prompts); n != CacheKept {
		t.Errorf("the cache holds %d prompts, want at most %d", n, CacheKept)
	}

	// A request the model never read (a 429) is not cached.
	r := serve(t, `{"steps": [{"fault": "429"}, {"text": "ok"}]}`)
	post(t, r, chat(long(1)))
	if u := plainUsage(t, r, chat(long(1))); u.cached() != 0 {
		t.Errorf("cached = %d after a refused request, want 0", u.cached())
	}
}

func TestCacheWireFormats(t *testing.T) {
	long := strings.Repeat("w", 8000)
	tests := []struct {
		cassette string
		check    func(t *testing.T, u usageOf)
	}{
		{`{"repeat": true, "steps": [{"text": "ok"}]}`, func(t *testing.T, u usageOf) {
			if u.cached() != 1920 || u.PromptCacheHitTokens != nil || u.PromptCacheMissTokens != nil {
				t.Errorf("openai (default): %+v, want prompt_tokens_details.cached_tokens 1920 only", u)
			}
		}},
		{`{"cache": "deepseek", "repeat": true, "steps": [{"text": "ok"}]}`, func(t *testing.T, u usageOf) {
			if u.PromptTokensDetails != nil || u.PromptCacheHitTokens == nil || *u.PromptCacheHitTokens != 1920 ||
				u.PromptCacheMissTokens == nil || *u.PromptCacheMissTokens != u.PromptTokens-1920 {
				t.Errorf("deepseek: %+v, want prompt_cache_hit_tokens 1920 and the rest missed", u)
			}
		}},
		{`{"cache": "none", "repeat": true, "steps": [{"text": "ok"}]}`, func(t *testing.T, u usageOf) {
			if u.PromptTokensDetails != nil || u.PromptCacheHitTokens != nil || u.PromptCacheMissTokens != nil {
				t.Errorf("none: %+v, want no cache fields", u)
			}
		}},
		{`{"repeat": true, "steps": [{"text": "ok", "usage": {"prompt_tokens": 5000, "completion_tokens": 9, "cached_tokens": 4096}}]}`, func(t *testing.T, u usageOf) {
			if u.PromptTokens != 5000 || u.cached() != 4096 {
				t.Errorf("scripted: %+v, want 5000 prompt tokens, 4096 cached", u)
			}
		}},
		{`{"repeat": true, "steps": [{"text": "ok", "usage": {"prompt_tokens": 5000, "completion_tokens": 9}}]}`, func(t *testing.T, u usageOf) {
			if u.PromptTokens != 5000 || u.cached() != 0 {
				t.Errorf("scripted without cached_tokens: %+v, want 5000 prompt tokens, 0 cached", u)
			}
		}},
	}
	for _, tc := range tests {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s stream=%v", tc.cassette, stream), func(t *testing.T) {
				s := serve(t, tc.cassette)
				body := chat(long)
				if stream {
					body = strings.Replace(body, `{"model":"m",`, `{"model":"m","stream":true,"stream_options":{"include_usage":true},`, 1)
				}
				usage := func() usageOf {
					if !stream {
						return plainUsage(t, s, body)
					}
					data, err := events(t, post(t, s, body).Body)
					if err != nil {
						t.Fatal(err)
					}
					var c struct {
						Choices []json.RawMessage
						Usage   *usageOf
					}
					if err := json.Unmarshal([]byte(data[len(data)-2]), &c); err != nil || c.Usage == nil || len(c.Choices) != 0 {
						t.Fatalf("the event before [DONE] is not the usage chunk: %s", data[len(data)-2])
					}
					return *c.Usage
				}
				usage()
				tc.check(t, usage())
			})
		}
	}
}

// Through the real client: every answer's Usage carries the cached count, from
// OpenAI's field and, through the raw body, DeepSeek's.
func TestBrainReadsCachedTokens(t *testing.T) {
	system := "You play SpaceTraders. " + strings.Repeat("Rules of the game. ", 400)
	for _, cache := range []string{"openai", "deepseek"} {
		t.Run(cache, func(t *testing.T) {
			c, err := Parse([]byte(`{"cache": "` + cache + `", "repeat": true, "steps": [{"text": "Looking."}]}`))
			if err != nil {
				t.Fatal(err)
			}
			srv := NewServer(c)
			defer srv.Close()
			b, err := openai.New(BrainConfig(srv))
			if err != nil {
				t.Fatal(err)
			}
			msgs := []agent.Message{{Role: agent.RoleSystem, Content: system}, {Role: agent.RoleUser, Content: "Go."}}
			var got []agent.Usage
			for range 3 {
				reply, err := b.Next(context.Background(), agent.Request{Messages: msgs})
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, reply.Usage)
				msgs = append(msgs, agent.Message{Role: agent.RoleAssistant, Content: reply.Text}, agent.Message{Role: agent.RoleUser, Content: "Go on."})
			}
			texts := srv.PromptTexts()
			for i, u := range got {
				want := 0
				if i > 0 {
					want = cachedTokens(SharedPrefix(texts[i-1], texts[i]))
				}
				if u.CachedTokens != want || u.PromptTokens != promptTokens(texts[i]) {
					t.Errorf("answer %d: usage %+v, want %d prompt tokens of which %d cached", i+1, u, promptTokens(texts[i]), want)
				}
			}
			if got[1].CachedTokens < 1024 {
				t.Errorf("the second answer has %d cached tokens: the long system prompt is a shared prefix", got[1].CachedTokens)
			}
		})
	}
}

func TestPromptTexts(t *testing.T) {
	s := serve(t, `{"repeat": true, "steps": [{"text": "ok"}]}`)
	post(t, s, `{"messages": [{"role": "user", "content": "one"}]}`)
	post(t, s, `not json`)
	post(t, s, `{"tools": [], "messages": [{"role": "user", "content": "two"}]}`)
	got := s.PromptTexts()
	want := []string{`[{"role": "user", "content": "one"}]`, "", `[][{"role": "user", "content": "two"}]`}
	if len(got) != len(s.RawRequests()) || len(got) != 3 {
		t.Fatalf("PromptTexts has %d entries for %d bodies", len(got), len(s.RawRequests()))
	}
	for i := range want {
		if string(got[i]) != want[i] || (want[i] == "" && got[i] != nil) {
			t.Errorf("prompt text %d = %q, want %q", i, got[i], want[i])
		}
	}
	if _, err := PromptText([]byte("[1]")); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Errorf("PromptText of a list: %v", err)
	}
}

func TestSharedPrefix(t *testing.T) {
	a := bytes.Repeat([]byte("0123456789"), 30)
	for _, tc := range []struct {
		b    []byte
		want int
	}{
		{a, 300},
		{a[:150], 150},
		{nil, 0},
		{append(append([]byte{}, a[:199]...), 'x'), 199},
		{append(append([]byte{}, a[:64]...), 'x'), 64},
		{[]byte("x"), 0},
	} {
		if got := SharedPrefix(a, tc.b); got != tc.want {
			t.Errorf("SharedPrefix(a, %d bytes) = %d, want %d", len(tc.b), got, tc.want)
		}
		if got := SharedPrefix(tc.b, a); got != tc.want {
			t.Errorf("SharedPrefix(%d bytes, a) = %d, want %d", len(tc.b), got, tc.want)
		}
	}
}
