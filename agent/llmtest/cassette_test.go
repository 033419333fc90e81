package llmtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseErrorsNameTheField(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"steps": [{"text": "a"}, {"fault": "502"}]}`, `steps[1].fault: unknown fault "502" (want 429, 500, cut, timeout, no_tools, malformed_body, 529, overloaded_event, too_long, 401)`},
		{`{"steps": [{"txt": "a"}]}`, `steps[0]: unknown field "txt" (want text, calls, fault, usage, thinking)`},
		{`{"stepz": []}`, `cassette: unknown field "stepz"`},
		{`{"steps": [{"calls": [{"tool": "x", "args": [1]}]}]}`, `steps[0].calls[0].args: want a JSON object`},
		{`{"steps": [{"calls": [{"tool": "x", "args": {}, "raw_args": "{"}]}]}`, `steps[0].calls[0]: both args and raw_args`},
		{`{"steps": [{"calls": [{"args": {}}]}]}`, `steps[0].calls[0].tool: missing`},
		{`{"steps": [{"calls": [{"tool": "x", "raw_args": 3}]}]}`, `steps[0].calls[0].raw_args: want a string (sent verbatim as the arguments), got the number 3`},
		{`{"steps": [{}]}`, `steps[0]: empty step`},
		{`{"steps": [{"fault": "429", "text": "a"}]}`, `steps[0]: a "429" fault sends no answer`},
		{`{"steps": [{"text": "a", "usage": {"prompt_tokens": "many"}}]}`, `steps[0].usage.prompt_tokens: want a whole number, got a string "many"`},
		{`{"steps": []}`, `the cassette has no steps`},
		{`{"repeat": true, "steps": [{"fault": "500"}]}`, `repeat: every step is a fault`},
		{"{\n  \"steps\": [\n    {\"text\": \"a\",}\n  ]\n}", `line 3, column 18: not JSON`},
		{`[]`, `cassette: want a JSON object, got a list`},
		{`{"repeat": "yes", "steps": [{"text": "a"}]}`, `cassette.repeat: want true or false`},
		{`{"cache": "anthropic", "steps": [{"text": "a"}]}`, `cassette.cache: unknown cache "anthropic" (want openai, deepseek, none)`},
		{`{"cache": "", "steps": [{"text": "a"}]}`, `cassette.cache: unknown cache ""`},
		{`{"cache": true, "steps": [{"text": "a"}]}`, `cassette.cache: want a string, got true`},
		{`{"steps": [{"text": "a", "usage": {"cached": 3}}]}`, `steps[0].usage: unknown field "cached" (want prompt_tokens, completion_tokens, cached_tokens)`},
		{`{"steps": [{"text": "a", "usage": {"prompt_tokens": 10, "cached_tokens": 11}}]}`, `steps[0].usage.cached_tokens: 11 is more than prompt_tokens 10`},
		{`{"steps": [{"text": "a", "usage": {"prompt_tokens": 10, "cached_tokens": -1}}]}`, `steps[0].usage: token counts cannot be negative`},
		{`{"steps": [{"text": "a", "usage": {"prompt_tokens": 10, "cached_tokens": "2"}}]}`, `steps[0].usage.cached_tokens: want a whole number, got a string "2"`},
		{`{"price": {"prompt": -1}, "steps": [{"text": "a"}]}`, `cassette.price.prompt: a price cannot be negative`},
		{`{"price": {"input": 1}, "steps": [{"text": "a"}]}`, `cassette.price: unknown field "input"`},
		{`{"price": {"completion": "cheap"}, "steps": [{"text": "a"}]}`, `cassette.price.completion: want dollars per million tokens, got a string "cheap"`},
		{`{"price": 3, "steps": [{"text": "a"}]}`, `cassette.price: want a JSON object, got the number 3`},
		{`{"cache": "none", "steps": [{"text": "a", "usage": {"prompt_tokens": 10, "cached_tokens": 2}}]}`, `steps[0].usage.cached_tokens: the cassette's cache is "none", which reports no cached tokens`},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%s)\n  = %v\nwant an error containing %q", tt.in, err, tt.want)
		}
	}
}

func TestParse(t *testing.T) {
	c, err := Parse([]byte(`{"name": "n", "steps": [
		{"text": "hi", "calls": [{"tool": "a", "args": {"x": [1, 2]}}, {"id": "mine", "tool": "b", "raw_args": "{\"x"}]},
		{"fault": "cut", "text": "partial"},
		{"text": "u", "usage": {"prompt_tokens": 5, "completion_tokens": 6}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "scripted" || c.Name != "n" || len(c.Steps) != 3 || c.Cache != CacheOpenAI {
		t.Fatalf("cassette = %+v", c)
	}
	calls := c.Steps[0].Calls
	if calls[0].Arguments() != `{"x":[1,2]}` || calls[1].Arguments() != `{"x` || calls[1].ID != "mine" {
		t.Errorf("calls = %+v", calls)
	}
	if (Call{Tool: "t"}).Arguments() != "{}" {
		t.Error("a call without args must send {}")
	}
	if c.Steps[1].Fault != FaultCut || c.Steps[1].Text != "partial" {
		t.Errorf("cut step = %+v", c.Steps[1])
	}
	if u := c.Steps[2].Usage; u == nil || u.PromptTokens != 5 || u.CompletionTokens != 6 || u.CachedTokens != 0 {
		t.Errorf("usage = %+v", u)
	}
	d, err := Parse([]byte(`{"cache": "deepseek", "steps": [{"text": "u", "usage": {"prompt_tokens": 5, "completion_tokens": 6, "cached_tokens": 4}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if d.Cache != CacheDeepSeek || d.Steps[0].Usage.CachedTokens != 4 {
		t.Errorf("cassette = %+v, usage %+v: want cache deepseek and 4 cached tokens", d, d.Steps[0].Usage)
	}
}

func TestLoadNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.cassette.json")
	if err := os.WriteFile(path, []byte(`{"steps": [{"fault": "oops"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if err == nil || !strings.Contains(err.Error(), path+": steps[0].fault") {
		t.Errorf("Load = %v, want the file and field named", err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("Load(missing) = %v", err)
	}
}

func TestShippedCassettesLoad(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*.cassette.json")
	shared, _ := filepath.Glob("../../testdata/cassettes/*.cassette.json")
	paths = append(paths, shared...)
	if len(paths) < 4 {
		t.Fatalf("found %d cassettes in testdata", len(paths))
	}
	for _, p := range paths {
		if _, err := Load(p); err != nil {
			t.Error(err)
		}
	}
}
