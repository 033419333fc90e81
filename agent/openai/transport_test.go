package openai

import (
	"slices"
	"testing"
)

func TestHitScanner(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []int
	}{
		{"compact", `{"usage":{"prompt_cache_hit_tokens":1920,"prompt_cache_miss_tokens":86}}`, []int{1920}},
		{"spaced", "{\"prompt_cache_hit_tokens\" :\n\t 64 }", []int{64}},
		{"zero", `{"prompt_cache_hit_tokens":0}`, []int{0}},
		{"at the end of the stream", `"prompt_cache_hit_tokens":12`, []int{12}},
		{"two events", "data: {\"prompt_cache_hit_tokens\":1}\n\ndata: {\"prompt_cache_hit_tokens\":2}\n\n", []int{1, 2}},
		{"escaped in a string", `{"content":"see \"prompt_cache_hit_tokens\": 7","usage":{}}`, nil},
		{"null", `{"prompt_cache_hit_tokens":null}`, nil},
		{"a key that only starts the same", `{"prompt_cache_hit_tokens_total":5}`, nil},
		{"the miss count alone", `{"prompt_cache_miss_tokens":86}`, nil},
		{"a quote inside the match restarts it", `""prompt_cache_hit_tokens":3`, []int{3}},
	} {
		for _, piece := range []int{1, 2, 5, len(tc.in)} {
			var got []int
			s := hitScanner{found: func(n int) { got = append(got, n) }}
			for i := 0; i < len(tc.in); i += piece {
				s.write([]byte(tc.in[i:min(i+piece, len(tc.in))]))
			}
			s.end()
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s in pieces of %d: found %v, want %v", tc.name, piece, got, tc.want)
			}
		}
	}
}
