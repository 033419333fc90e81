package openai_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/agent/openai"
)

// The answers below are the providers' wire shapes, usage included: OpenAI (and
// OpenRouter) report cached prompt tokens in usage.prompt_tokens_details.cached_tokens,
// DeepSeek in usage.prompt_cache_hit_tokens (with prompt_cache_miss_tokens beside it).

const openaiBody = `{"id":"chatcmpl-AbC1","object":"chat.completion","created":1767225600,"model":"gpt-4o-mini-2024-07-18",
"choices":[{"index":0,"message":{"role":"assistant","content":"Docking first.","refusal":null},"logprobs":null,"finish_reason":"stop"}],
"usage":{"prompt_tokens":2006,"completion_tokens":300,"total_tokens":2306,
"prompt_tokens_details":{"cached_tokens":1920,"audio_tokens":0},
"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},
"service_tier":"default","system_fingerprint":"fp_0ba0d124f1"}`

const openaiStream = `data: {"id":"chatcmpl-AbC1","object":"chat.completion.chunk","created":1767225600,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-AbC1","object":"chat.completion.chunk","created":1767225600,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"content":"Docking first."},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-AbC1","object":"chat.completion.chunk","created":1767225600,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}

data: {"id":"chatcmpl-AbC1","object":"chat.completion.chunk","created":1767225600,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":[],"usage":{"prompt_tokens":2006,"completion_tokens":300,"total_tokens":2306,"prompt_tokens_details":{"cached_tokens":1920,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}

data: [DONE]

`

// The text of the DeepSeek answers carries the field's name as words, escaped inside
// a JSON string: it must not be read as usage.
const deepseekBody = `{"id":"930c60df-bf64-41c9-a88e-3ec75f81e00e","object":"chat.completion","created":1767225600,"model":"deepseek-chat",
"choices":[{"index":0,"message":{"role":"assistant","content":"I saw \"prompt_cache_hit_tokens\": 7 in the docs."},"logprobs":null,"finish_reason":"stop"}],
"usage":{"prompt_tokens":2006,"completion_tokens":300,"total_tokens":2306,"prompt_tokens_details":{"cached_tokens":0},
"prompt_cache_hit_tokens":1920,"prompt_cache_miss_tokens":86},"system_fingerprint":"fp_3a5770e1b4_prod0225"}`

const deepseekStream = `data: {"id":"930c60df","object":"chat.completion.chunk","created":1767225600,"model":"deepseek-chat","system_fingerprint":"fp_3a5770e1b4_prod0225","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}

data: {"id":"930c60df","object":"chat.completion.chunk","created":1767225600,"model":"deepseek-chat","system_fingerprint":"fp_3a5770e1b4_prod0225","choices":[{"index":0,"delta":{"content":"I saw \"prompt_cache_hit_tokens\": 7 in the docs."},"logprobs":null,"finish_reason":null}]}

data: {"id":"930c60df","object":"chat.completion.chunk","created":1767225600,"model":"deepseek-chat","system_fingerprint":"fp_3a5770e1b4_prod0225","choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":2006,"completion_tokens":300,"total_tokens":2306,"prompt_cache_hit_tokens":1920,"prompt_cache_miss_tokens":86}}

data: [DONE]

`

// wireServer answers every chat request with body, written in pieces of piece bytes
// with a flush after each, so a field name or a number is split across reads.
func wireServer(t *testing.T, contentType, body string, piece int) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		if !strings.HasPrefix(contentType, "text/event-stream") {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
		for i := 0; i < len(body); i += piece {
			w.Write([]byte(body[i:min(i+piece, len(body))]))
			rc.Flush()
		}
	}))
	t.Cleanup(ts.Close)
	return ts.URL + "/v1"
}

func TestCachedTokensRead(t *testing.T) {
	for _, tc := range []struct {
		name, contentType, body string
		stream                  bool
	}{
		{"openai plain", "application/json", openaiBody, false},
		{"openai streamed", "text/event-stream; charset=utf-8", openaiStream, true},
		{"deepseek plain", "application/json", deepseekBody, false},
		{"deepseek streamed", "text/event-stream; charset=utf-8", deepseekStream, true},
	} {
		for _, piece := range []int{1 << 20, 7, 1} {
			t.Run(tc.name+"/pieces of "+strconv.Itoa(piece), func(t *testing.T) {
				url := wireServer(t, tc.contentType, tc.body, piece)
				u := usageOf(t, openai.Config{BaseURL: url, Model: "m", Stream: tc.stream, MaxRetries: -1, Timeout: 5 * time.Second,
					PriceIn: 1, PriceOut: 2, PriceCached: 0.25})
				if u.PromptTokens != 2006 || u.CompletionTokens != 300 || u.CachedTokens != 1920 {
					t.Errorf("usage = %+v, want 2006 prompt (1920 cached) and 300 completion tokens", u)
				}
				want := (86*1 + 1920*0.25 + 300*2) / 1e6
				if u.Cost < want*0.999 || u.Cost > want*1.001 || !u.CostKnown || u.CostUpper {
					t.Errorf("cost = %g (known %v, upper %v), want exactly %g", u.Cost, u.CostKnown, u.CostUpper, want)
				}
			})
		}
	}
}

// A DeepSeek answer without the hit field after one that had it: each attempt reads
// its own answer, nothing carries over.
func TestCachedTokensPerAnswer(t *testing.T) {
	var n int
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		w.Header().Set("Content-Type", "application/json")
		if n == 1 {
			w.Write([]byte(deepseekBody))
			return
		}
		w.Write([]byte(strings.Replace(deepseekBody, `"prompt_cache_hit_tokens":1920,"prompt_cache_miss_tokens":86`, `"prompt_cache_miss_tokens":2006`, 1)))
	}))
	defer ts.Close()
	b, err := openai.New(openai.Config{BaseURL: ts.URL, Model: "deepseek-chat", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{1920, 0} {
		reply, err := b.Next(context.Background(), request(t))
		if err != nil {
			t.Fatal(err)
		}
		if reply.Usage.CachedTokens != want {
			t.Errorf("answer %d: cached = %d, want %d", i+1, reply.Usage.CachedTokens, want)
		}
	}
}

func TestCachedCost(t *testing.T) {
	for _, tc := range []struct {
		name                         string
		priceIn, priceOut, priceCach float64
		body                         string
		want                         float64
		known, upper                 bool
	}{
		{"cached price known", 1, 2, 0.25, openaiBody, (86 + 1920*0.25 + 600) / 1e6, true, false},
		{"no cached price: cached at the prompt price, an upper bound", 1, 2, 0, openaiBody, (2006 + 600) / 1e6, true, true},
		{"nothing cached: exact without a cached price", 1, 2, 0,
			strings.Replace(openaiBody, `"cached_tokens":1920`, `"cached_tokens":0`, 1), (2006 + 600) / 1e6, true, false},
		{"no price at all", 0, 0, 0, openaiBody, 0, false, false},
		{"more cached than prompt: capped", 1, 2, 0.5,
			strings.Replace(openaiBody, `"cached_tokens":1920`, `"cached_tokens":9000`, 1), (2006*0.5 + 600) / 1e6, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := wireServer(t, "application/json", tc.body, 1<<20)
			u := usageOf(t, openai.Config{BaseURL: url, Model: "m", MaxRetries: -1,
				PriceIn: tc.priceIn, PriceOut: tc.priceOut, PriceCached: tc.priceCach})
			if d := u.Cost - tc.want; d > 1e-12 || d < -1e-12 || u.CostKnown != tc.known || u.CostUpper != tc.upper {
				t.Errorf("usage = %+v: want cost %g, known %v, upper %v", u, tc.want, tc.known, tc.upper)
			}
			if u.CachedTokens > u.PromptTokens {
				t.Errorf("cached %d > prompt %d", u.CachedTokens, u.PromptTokens)
			}
		})
	}
}

// usageOf asks a brain made with cfg once and returns what its reply says it used.
func usageOf(t *testing.T, cfg openai.Config) brain.Usage {
	t.Helper()
	b, err := openai.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	reply, err := b.Next(context.Background(), request(t))
	if err != nil {
		t.Fatal(err)
	}
	return reply.Usage
}
