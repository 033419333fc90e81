package openai

import (
	"fmt"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/coplayhq/coplay/agent/brain"
)

// assembler puts a streamed answer back together: text deltas in order, tool calls
// from their pieces (name first, arguments in any number of fragments), the finish
// reason and the usage chunk.
type assembler struct {
	text   strings.Builder
	vis    *visibleText    // the text as shown while it streams: no think blocks, no call markup
	reason strings.Builder // reasoning_content (or reasoning) deltas
	calls  []*partCall
	finish goopenai.FinishReason // empty until the model says it is done
	usage  *goopenai.Usage
	chunks int  // chunks received, to tell "no stream at all" from "cut short"
	spoke  bool // some text went to OnDelta, so a retry would repeat it on screen
}

// partCall is a tool call still arriving.
type partCall struct {
	index    int
	hasIndex bool
	id       string
	name     string
	args     strings.Builder
}

// add takes one chunk. Only the first choice counts: the brain never asks for n > 1.
func (a *assembler) add(chunk goopenai.ChatCompletionStreamResponse, onDelta func(string)) {
	a.chunks++
	if chunk.Usage != nil {
		a.usage = chunk.Usage
	}
	for _, ch := range chunk.Choices {
		if ch.Index != 0 {
			continue
		}
		if d := ch.Delta.Content; d != "" {
			a.text.WriteString(d)
			if onDelta != nil {
				if a.vis == nil {
					a.vis = &visibleText{out: func(s string) { onDelta(s); a.spoke = true }}
				}
				a.vis.write(d)
			}
		}
		a.reason.WriteString(ch.Delta.ReasoningContent)
		for _, tc := range ch.Delta.ToolCalls {
			a.addCall(tc)
		}
		if fc := ch.Delta.FunctionCall; fc != nil {
			// The legacy single function_call: one call, no id.
			zero := 0
			a.addCall(goopenai.ToolCall{Index: &zero, Function: *fc})
		}
		if ch.FinishReason != "" {
			a.finish = ch.FinishReason
		}
	}
}

// addCall routes a tool-call fragment to its call. OpenAI marks fragments with an
// index and sends the id once; some servers omit the index, others reuse index 0 for
// every call but give each its own id, so a new id always starts a new call.
func (a *assembler) addCall(tc goopenai.ToolCall) {
	var target *partCall
	if tc.Index != nil {
		for i := len(a.calls) - 1; i >= 0; i-- {
			if c := a.calls[i]; c.hasIndex && c.index == *tc.Index {
				target = c
				break
			}
		}
	} else if n := len(a.calls); n > 0 {
		target = a.calls[n-1]
	}
	if target != nil && tc.ID != "" && target.id != "" && tc.ID != target.id {
		target = nil
	}
	if target == nil {
		target = &partCall{}
		if tc.Index != nil {
			target.index, target.hasIndex = *tc.Index, true
		}
		a.calls = append(a.calls, target)
	}
	if tc.ID != "" {
		target.id = tc.ID
	}
	// The name comes whole in one fragment; a server that repeats it in every
	// fragment must not make "orbit_shiporbit_ship".
	if n := tc.Function.Name; n != "" && n != target.name {
		target.name += n
	}
	target.args.WriteString(tc.Function.Arguments)
}

// finished returns the reply once the stream ended, or why it cannot be trusted.
// Calls are only ever returned from a stream the model finished.
func (a *assembler) finished(idPrefix string) (brain.Reply, *brain.Error) {
	if a.finish == "" {
		if a.chunks == 0 {
			return brain.Reply{}, &brain.Error{Kind: brain.ErrMalformed, Detail: "the stream carried no chunks (not an OpenAI event stream)"}
		}
		detail := "the stream ended without a finish_reason"
		if n := len(a.calls); n > 0 {
			detail += fmt.Sprintf("; %d unfinished tool call(s) dropped", n)
		}
		return brain.Reply{}, &brain.Error{Kind: brain.ErrCut, Detail: detail}
	}
	wire := make([]goopenai.ToolCall, len(a.calls))
	for i, c := range a.calls {
		wire[i] = goopenai.ToolCall{ID: c.id, Function: goopenai.FunctionCall{Name: c.name, Arguments: c.args.String()}}
	}
	reply, e := buildReply(a.text.String(), wire, a.finish, idPrefix)
	reply.Thinking = thinkingOf(a.reason.String())
	return reply, e
}

// buildReply checks a finished message and maps it to a Reply (without usage).
// Calls without an id get idPrefix plus their position.
func buildReply(text string, wire []goopenai.ToolCall, finish goopenai.FinishReason, idPrefix string) (brain.Reply, *brain.Error) {
	if finish == goopenai.FinishReasonLength && len(wire) > 0 {
		return brain.Reply{}, &brain.Error{Kind: brain.ErrCut, NoRetry: true,
			Detail: "the model hit its output token limit while writing tool calls (finish_reason length)"}
	}
	reply := brain.Reply{Text: text}
	for i, c := range wire {
		if c.Function.Name == "" {
			return brain.Reply{}, &brain.Error{Kind: brain.ErrMalformed, Detail: fmt.Sprintf("tool call %d has no function name", i)}
		}
		id := c.ID
		if id == "" {
			// Some local servers send no ids; the runner needs one to pair results.
			id = fmt.Sprintf("%s%d", idPrefix, i)
		}
		reply.Calls = append(reply.Calls, toCall(id, c.Function.Name, c.Function.Arguments))
	}
	return reply, nil
}
