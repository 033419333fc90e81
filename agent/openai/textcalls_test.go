package openai

import (
	"io"
	"strings"
	"testing"
)

func knownTools(n string) bool { return n == "observe_game" || n == "orbit_ship" }

func TestReadTextCalls(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		calls      []string // tool args, in order
		rest       string
		problem    string // a part of the one problem, if any
	}{
		{"hermes two", "Go.\n<tool_call>{\"name\":\"observe_game\",\"arguments\":{}}</tool_call>\n<tool_call>{\"name\":\"orbit_ship\",\"arguments\":{\"shipSymbol\":\"S-1\"}}</tool_call>",
			[]string{"observe_game {}", `orbit_ship {"shipSymbol":"S-1"}`}, "Go.", ""},
		{"hermes unclosed", "<tool_call>{\"name\":\"observe_game\",\"arguments\":{}}", []string{"observe_game {}"}, "", ""},
		{"arguments as a string", `<tool_call>{"name":"orbit_ship","arguments":"{\"shipSymbol\":\"S-1\"}"}</tool_call>`, []string{`orbit_ship {"shipSymbol":"S-1"}`}, "", ""},
		{"mistral list", `[TOOL_CALLS][{"name":"observe_game","arguments":{}},{"name":"orbit_ship","arguments":{"shipSymbol":"S-1"}}]`,
			[]string{"observe_game {}", `orbit_ship {"shipSymbol":"S-1"}`}, "", ""},
		{"python_tag semicolons", `<|python_tag|>{"name":"observe_game","parameters":{}}; {"name":"orbit_ship","parameters":{"shipSymbol":"S-1"}}<|eot_id|>`,
			[]string{"observe_game {}", `orbit_ship {"shipSymbol":"S-1"}`}, "", ""},
		{"bare on its own line after prose", "I will look.\n{\"name\": \"observe_game\", \"parameters\": {}}", []string{"observe_game {}"}, "I will look.", ""},
		{"bare unknown tool is prose", `{"name": "launch_missiles", "parameters": {}}`, nil, `{"name": "launch_missiles", "parameters": {}}`, ""},
		{"bare with other keys is prose", `{"name": "orbit_ship", "arguments": {}, "reason": "x"}`, nil, `{"name": "orbit_ship", "arguments": {}, "reason": "x"}`, ""},
		{"inline JSON is a mention", `Write {"name": "orbit_ship", "arguments": {}} to orbit.`, nil, `Write {"name": "orbit_ship", "arguments": {}} to orbit.`, ""},
		{"a name in prose is a mention", "I could use orbit_ship or observe_game.", nil, "I could use orbit_ship or observe_game.", ""},
		{"fence of game data is prose", "```json\n{\"symbol\": \"X1\", \"name\": \"orbit_ship\"}\n```", nil, "```json\n{\"symbol\": \"X1\", \"name\": \"orbit_ship\"}\n```", ""},
		{"hermes quoted in a sentence is prose", `The sign reads: "<tool_call>{"name":"orbit_ship","arguments":{}}</tool_call>". I will ignore it.`,
			nil, `The sign reads: "<tool_call>{"name":"orbit_ship","arguments":{}}</tool_call>". I will ignore it.`, ""},
		{"inline code is prose", "Servers write `[TOOL_CALLS][{\"name\":\"orbit_ship\"}]` for that.", nil, "Servers write `[TOOL_CALLS][{\"name\":\"orbit_ship\"}]` for that.", ""},
		{"curly quotes are prose", `It said “<|python_tag|>{"name":"orbit_ship","parameters":{}}” twice.`, nil, `It said “<|python_tag|>{"name":"orbit_ship","parameters":{}}” twice.`, ""},
		{"hermes after a quote that closed", `I read "the sign". <tool_call>{"name":"observe_game","arguments":{}}</tool_call>`, []string{"observe_game {}"}, `I read "the sign".`, ""},
		{"hermes not JSON", "<tool_call>{name: observe_game}</tool_call>", nil, "", "is not a JSON object"},
		{"hermes unknown tool", `<tool_call>{"name":"launch","arguments":{}}</tool_call>`, nil, "", `names "launch"`},
		{"hermes no name", `<tool_call>{"arguments":{}}</tool_call>`, nil, "", `no "name"`},
		{"hermes arguments not an object", `<tool_call>{"name":"orbit_ship","arguments":"S-1"}</tool_call>`, nil, "", "not a JSON object"},
		{"mistral v11 broken arguments", `[TOOL_CALLS]orbit_ship[ARGS]{"shipSymbol":`, nil, "", "is not a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := readTextCalls(tc.text, knownTools, "p_")
			var calls []string
			for _, c := range got.calls {
				if !c.FromText || c.ID == "" {
					t.Errorf("call %+v not marked or without id", c)
				}
				calls = append(calls, c.Tool+" "+string(c.Args))
			}
			if strings.Join(calls, "|") != strings.Join(tc.calls, "|") {
				t.Errorf("calls %q, want %q", calls, tc.calls)
			}
			if tc.problem == "" && len(got.problems) > 0 || tc.problem != "" && (len(got.problems) != 1 || !strings.Contains(got.problems[0], tc.problem)) {
				t.Errorf("problems %q, want %q", got.problems, tc.problem)
			}
			if tc.problem == "" && got.rest != tc.rest {
				t.Errorf("rest %q, want %q", got.rest, tc.rest)
			}
		})
	}
}

func TestSplitThink(t *testing.T) {
	for in, want := range map[string][2]string{
		"<think>a</think>b":                 {"b", "a"},
		"<think>a</think>b<think>c</think>": {"b", "a\n\nc"},
		"plan first</think>\n\nanswer":      {"answer", "plan first"},
		"<think>still thinking":             {"", "still thinking"},
		"no tags at all":                    {"no tags at all", ""},
		"<thinking>x</thinking> y":          {"y", "x"},
	} {
		vis, th := splitThink(in)
		if vis != want[0] || th != want[1] {
			t.Errorf("splitThink(%q) = %q, %q; want %q, %q", in, vis, th, want[0], want[1])
		}
	}
}

// The streamed text never carries a think block or call markup, however the chunks
// split the tags; everything else comes through in order.
func TestVisibleTextSplitsAnywhere(t *testing.T) {
	in := "<think>secret</think>\n\nHello there. <tool_call>{\"name\":\"x\"}</tool_call>"
	for size := 1; size <= len(in); size++ {
		var out strings.Builder
		v := &visibleText{out: func(s string) { out.WriteString(s) }}
		for i := 0; i < len(in); i += size {
			v.write(in[i:min(i+size, len(in))])
		}
		if out.String() != "Hello there. " {
			t.Fatalf("chunks of %d: shown %q", size, out.String())
		}
	}
	var out strings.Builder
	v := &visibleText{out: func(s string) { out.WriteString(s) }}
	v.write("a < b and [c]")
	if out.String() != "a < b and [c]" {
		t.Errorf("plain brackets held back: %q", out.String())
	}
}

// The reasoning key is renamed however the body's reads split it, and nothing else
// changes: not a value "reasoning", not the key inside a string.
func TestRenameReasoningKey(t *testing.T) {
	in := `{"reasoning" : "r1","content":"the \"reasoning\": x","x":"reasoning","reasoning_details":[]}` + "\n" + `data: {"delta":{"reasoning":"r2"}}`
	want := `{"reasoning_content" : "r1","content":"the \"reasoning\": x","x":"reasoning","reasoning_details":[]}` + "\n" + `data: {"delta":{"reasoning_content":"r2"}}`
	for size := 1; size <= len(in); size++ {
		r := renameReasoning(io.NopCloser(&chunked{s: in, n: size}))
		got, err := io.ReadAll(r)
		if err != nil || string(got) != want {
			t.Fatalf("reads of %d: %q, %v", size, got, err)
		}
	}
}

// chunked reads s n bytes at a time.
type chunked struct {
	s string
	n int
}

func (c *chunked) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.s)
	c.s = c.s[k:]
	return k, nil
}

func TestSuspectCut(t *testing.T) {
	for _, tc := range []struct {
		reported, estimate int
		want               bool
	}{
		{4096, 5250, true},   // cut to a 4k window
		{2048, 6000, true},   // far below
		{6100, 5250, false},  // honest, more tokens than the estimate
		{4500, 5250, false},  // honest, a tokenizer of 4.7 bytes a token
		{100, 500, false},    // too small to tell
		{0, 6000, false},     // no count at all
		{32700, 40000, true}, // at a 32k window
	} {
		if got := suspectCut(tc.reported, tc.estimate); got != tc.want {
			t.Errorf("suspectCut(%d, %d) = %v", tc.reported, tc.estimate, got)
		}
	}
}
