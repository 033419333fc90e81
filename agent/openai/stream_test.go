package openai

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent/brain"
	goopenai "github.com/sashabaranov/go-openai"
)

func ptr(i int) *int { return &i }

func chunk(deltas ...goopenai.ToolCall) goopenai.ChatCompletionStreamResponse {
	return goopenai.ChatCompletionStreamResponse{Choices: []goopenai.ChatCompletionStreamChoice{{Delta: goopenai.ChatCompletionStreamChoiceDelta{ToolCalls: deltas}}}}
}

func finish(r goopenai.FinishReason) goopenai.ChatCompletionStreamResponse {
	return goopenai.ChatCompletionStreamResponse{Choices: []goopenai.ChatCompletionStreamChoice{{FinishReason: r}}}
}

func fn(name, args string) goopenai.FunctionCall {
	return goopenai.FunctionCall{Name: name, Arguments: args}
}

func TestAssemblerServerQuirks(t *testing.T) {
	tests := []struct {
		name   string
		chunks []goopenai.ChatCompletionStreamResponse
		want   []string // id tool args
	}{
		{"openai: index, id once, args in pieces, interleaved", []goopenai.ChatCompletionStreamResponse{
			chunk(goopenai.ToolCall{Index: ptr(0), ID: "a", Function: fn("orbit_ship", "")}),
			chunk(goopenai.ToolCall{Index: ptr(0), Function: fn("", `{"ship`)}),
			chunk(goopenai.ToolCall{Index: ptr(1), ID: "b", Function: fn("dock_ship", `{"x":`)}),
			chunk(goopenai.ToolCall{Index: ptr(0), Function: fn("", `Symbol":"S"}`)}),
			chunk(goopenai.ToolCall{Index: ptr(1), Function: fn("", `1}`)}),
			finish("tool_calls"),
		}, []string{`a orbit_ship {"shipSymbol":"S"}`, `b dock_ship {"x":1}`}},
		{"index 0 reused with new ids", []goopenai.ChatCompletionStreamResponse{
			chunk(goopenai.ToolCall{Index: ptr(0), ID: "a", Function: fn("orbit_ship", `{}`)}),
			chunk(goopenai.ToolCall{Index: ptr(0), ID: "b", Function: fn("dock_ship", `{}`)}),
			finish("tool_calls"),
		}, []string{`a orbit_ship {}`, `b dock_ship {}`}},
		{"no index, no ids, name repeated", []goopenai.ChatCompletionStreamResponse{
			chunk(goopenai.ToolCall{Function: fn("orbit_ship", `{"a":`)}),
			chunk(goopenai.ToolCall{Function: fn("orbit_ship", `2}`)}),
			finish("stop"),
		}, []string{`call_7_0 orbit_ship {"a":2}`}},
		{"several calls in one chunk", []goopenai.ChatCompletionStreamResponse{
			chunk(goopenai.ToolCall{Index: ptr(0), ID: "a", Function: fn("x", `{}`)}, goopenai.ToolCall{Index: ptr(1), ID: "b", Function: fn("y", `{}`)}),
			finish("tool_calls"),
		}, []string{`a x {}`, `b y {}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply, e := assemble(tt.chunks, "call_7_")
			if e != nil {
				t.Fatal(e)
			}
			var got []string
			for _, c := range reply.Calls {
				got = append(got, c.ID+" "+c.Tool+" "+string(c.Args))
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("calls = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAssemblerRefusesUnfinished(t *testing.T) {
	tests := []struct {
		name   string
		chunks []goopenai.ChatCompletionStreamResponse
		kind   error
		detail string
	}{
		{"no finish_reason", []goopenai.ChatCompletionStreamResponse{
			chunk(goopenai.ToolCall{Index: ptr(0), ID: "a", Function: fn("orbit_ship", `{"sh`)}),
		}, brain.ErrCut, "1 unfinished tool call(s) dropped"},
		{"nothing at all", nil, brain.ErrMalformed, "no chunks"},
		{"token limit mid call", []goopenai.ChatCompletionStreamResponse{
			chunk(goopenai.ToolCall{Index: ptr(0), ID: "a", Function: fn("orbit_ship", `{"sh`)}), finish("length"),
		}, brain.ErrCut, "output token limit"},
		{"call without a name", []goopenai.ChatCompletionStreamResponse{
			chunk(goopenai.ToolCall{Index: ptr(0), ID: "a", Function: fn("", `{}`)}), finish("tool_calls"),
		}, brain.ErrMalformed, "no function name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply, e := assemble(tt.chunks, "c")
			if e == nil || !errors.Is(e, tt.kind) || !strings.Contains(e.Detail, tt.detail) {
				t.Fatalf("finished() = %+v, %v; want %v mentioning %q", reply, e, tt.kind, tt.detail)
			}
			if len(reply.Calls) != 0 {
				t.Errorf("calls returned from an unfinished answer: %+v", reply.Calls)
			}
		})
	}
}

func TestAssemblerTextAndUsage(t *testing.T) {
	var a assembler
	var deltas []string
	for _, s := range []string{"Hel", "lo", ""} {
		a.add(goopenai.ChatCompletionStreamResponse{Choices: []goopenai.ChatCompletionStreamChoice{{Delta: goopenai.ChatCompletionStreamChoiceDelta{Content: s}}}},
			func(d string) { deltas = append(deltas, d) })
	}
	a.add(finish("stop"), nil)
	a.add(goopenai.ChatCompletionStreamResponse{Usage: &goopenai.Usage{PromptTokens: 10, CompletionTokens: 2}}, nil)
	reply, e := a.finished("c")
	if e != nil || reply.Text != "Hello" || strings.Join(deltas, ",") != "Hel,lo" || !a.spoke {
		t.Fatalf("reply %+v, err %v, deltas %q", reply, e, deltas)
	}
	if a.usage == nil || a.usage.PromptTokens != 10 {
		t.Errorf("usage = %+v", a.usage)
	}
}

func timeNow() time.Time { return time.Unix(1767225600, 0) }

// assemble feeds chunks to an assembler and returns what it finishes with, its call
// ids made from prefix.
func assemble(chunks []goopenai.ChatCompletionStreamResponse, prefix string) (brain.Reply, *brain.Error) {
	var a assembler
	for _, c := range chunks {
		a.add(c, nil)
	}
	return a.finished(prefix)
}
