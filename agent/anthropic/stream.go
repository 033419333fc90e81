package anthropic

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/coplayhq/coplay/agent/brain"
)

// part is one content block of an answer, streamed or not.
type part struct {
	typ       string // text, tool_use, thinking, redacted_thinking (others are ignored)
	text      string
	id, name  string
	input     string // tool_use: the input JSON as the model wrote it
	thinking  string
	signature string
	data      string // redacted_thinking
}

// tokens is an answer's usage as Anthropic reports it: input excludes the tokens read
// from and written to the cache.
type tokens struct {
	input, cacheRead, cacheWrite, output int
	thinking                             int // reported reasoning tokens, 0 when not reported
	reported                             bool
}

// assembler puts a streamed answer back together from its events: message_start
// (usage so far), content_block_start/delta/stop for each block by index,
// message_delta (stop_reason, final usage) and message_stop.
type assembler struct {
	blocks  map[int64]*streamBlock
	started bool // message_start came
	stopped bool // message_stop came
	stop    sdk.StopReason
	usage   tokens
	events  int
	spoke   bool // some text went to OnDelta, so a retry would repeat it on screen
	texts   int  // text blocks that showed text, to separate the next one on screen
}

// streamBlock is a content block still arriving.
type streamBlock struct {
	part
	input    strings.Builder
	hasDelta bool // input_json_delta came: the input is theirs, not the start's
	done     bool
}

func (a *assembler) add(ev sdk.MessageStreamEventUnion, onDelta func(string)) {
	a.events++
	switch ev.Type {
	case "message_start":
		a.started = true
		u := ev.Message.Usage
		a.usage = tokens{input: int(u.InputTokens), cacheRead: int(u.CacheReadInputTokens),
			cacheWrite: int(u.CacheCreationInputTokens), output: int(u.OutputTokens), reported: true}
	case "content_block_start":
		if a.blocks == nil {
			a.blocks = map[int64]*streamBlock{}
		}
		cb := ev.ContentBlock
		b := &streamBlock{part: part{typ: cb.Type, id: cb.ID, name: cb.Name, thinking: cb.Thinking,
			signature: cb.Signature, data: cb.Data}}
		if cb.Type == "tool_use" {
			b.part.input = cb.JSON.Input.Raw()
		}
		a.blocks[ev.Index] = b
		if cb.Type == "text" && cb.Text != "" {
			a.text(b, cb.Text, onDelta)
		}
	case "content_block_delta":
		b := a.blocks[ev.Index]
		if b == nil {
			return // a delta for a block never started: nothing to attach it to
		}
		d := ev.Delta
		switch d.Type {
		case "text_delta":
			a.text(b, d.Text, onDelta)
		case "input_json_delta":
			b.input.WriteString(d.PartialJSON)
			b.hasDelta = true
		case "thinking_delta":
			b.thinking += d.Thinking
		case "signature_delta":
			b.signature += d.Signature
		}
	case "content_block_stop":
		if b := a.blocks[ev.Index]; b != nil {
			b.done = true
		}
	case "message_delta":
		if ev.Delta.StopReason != "" {
			a.stop = ev.Delta.StopReason
		}
		// Counts here are totals for the whole message; the ones absent keep the word
		// of message_start.
		u := ev.Usage
		a.usage.output = int(u.OutputTokens)
		a.usage.reported = true
		if u.JSON.InputTokens.Valid() {
			a.usage.input = int(u.InputTokens)
		}
		if u.JSON.CacheReadInputTokens.Valid() {
			a.usage.cacheRead = int(u.CacheReadInputTokens)
		}
		if u.JSON.CacheCreationInputTokens.Valid() {
			a.usage.cacheWrite = int(u.CacheCreationInputTokens)
		}
		if u.JSON.OutputTokensDetails.Valid() {
			a.usage.thinking = int(u.OutputTokensDetails.ThinkingTokens)
		}
	case "message_stop":
		a.stopped = true
	}
}

// text adds streamed text to a text block and shows it. A second text block (text after
// a tool call) is set off from the first on screen as in the reply.
func (a *assembler) text(b *streamBlock, s string, onDelta func(string)) {
	if s == "" {
		return
	}
	shown := s
	if b.text == "" {
		if a.texts > 0 {
			shown = "\n\n" + s
		}
		a.texts++
	}
	b.text += s
	if onDelta != nil {
		onDelta(shown)
		a.spoke = true
	}
}

// unfinishedCalls counts the tool_use blocks started and not stopped.
func (a *assembler) unfinishedCalls() int {
	n := 0
	for _, b := range a.blocks {
		if b.typ == "tool_use" && !b.done {
			n++
		}
	}
	return n
}

// finished returns the reply once the stream ended, or why it cannot be trusted. Calls
// come only from a stream the model finished (message_stop after a stop_reason).
func (a *assembler) finished() (brain.Reply, tokens, *brain.Error) {
	if !a.stopped || a.stop == "" {
		if !a.started {
			return brain.Reply{}, tokens{}, &brain.Error{Kind: brain.ErrMalformed, Detail: "the stream carried no message_start (not a Messages API event stream)"}
		}
		detail := "the stream ended without message_stop"
		if n := a.unfinishedCalls(); n > 0 {
			detail += fmt.Sprintf("; %d unfinished tool call(s) dropped", n)
		}
		return brain.Reply{}, tokens{}, &brain.Error{Kind: brain.ErrCut, Detail: detail}
	}
	idx := make([]int64, 0, len(a.blocks))
	for i := range a.blocks {
		idx = append(idx, i)
	}
	sort.Slice(idx, func(i, j int) bool { return idx[i] < idx[j] })
	parts := make([]part, 0, len(idx))
	for _, i := range idx {
		b := a.blocks[i]
		p := b.part
		if b.hasDelta {
			p.input = b.input.String()
		}
		parts = append(parts, p)
	}
	reply, e := buildReply(parts, a.stop)
	if e != nil {
		return brain.Reply{}, tokens{}, e
	}
	return reply, a.usage, nil
}

// messageParts reads the content of a whole (not streamed) answer.
func messageParts(m *sdk.Message) []part {
	parts := make([]part, 0, len(m.Content))
	for _, c := range m.Content {
		p := part{typ: c.Type, text: c.Text, id: c.ID, name: c.Name, thinking: c.Thinking, signature: c.Signature, data: c.Data}
		if c.Type == "tool_use" {
			p.input = c.JSON.Input.Raw()
			if p.input == "" {
				p.input = string(c.Input)
			}
		}
		parts = append(parts, p)
	}
	return parts
}

// messageTokens reads the usage of a whole answer.
func messageTokens(m *sdk.Message) tokens {
	u := m.Usage
	t := tokens{input: int(u.InputTokens), cacheRead: int(u.CacheReadInputTokens),
		cacheWrite: int(u.CacheCreationInputTokens), output: int(u.OutputTokens), reported: u.JSON.InputTokens.Valid() || u.JSON.OutputTokens.Valid()}
	if u.JSON.OutputTokensDetails.Valid() {
		t.thinking = int(u.OutputTokensDetails.ThinkingTokens)
	}
	return t
}

// buildReply checks a finished answer and maps it to a Reply (without usage): text
// blocks joined, tool_use blocks as calls with their input as the model wrote it,
// thinking and redacted_thinking blocks as Thinking, sealed as they came.
func buildReply(parts []part, stop sdk.StopReason) (brain.Reply, *brain.Error) {
	var reply brain.Reply
	var texts []string
	calls := 0
	for _, p := range parts {
		if p.typ == "tool_use" {
			calls++
		}
	}
	switch stop {
	case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
		if calls > 0 {
			return brain.Reply{}, &brain.Error{Kind: brain.ErrCut, NoRetry: true,
				Detail: fmt.Sprintf("the model hit its output token limit while writing tool calls (stop_reason %s): raise max tokens", stop)}
		}
	case sdk.StopReasonRefusal:
		return brain.Reply{}, &brain.Error{Kind: brain.ErrRejected, NoRetry: true, Detail: "the model declined to answer (stop_reason refusal)"}
	}
	for i, p := range parts {
		switch p.typ {
		case "text":
			if p.text != "" {
				texts = append(texts, p.text)
			}
		case "thinking":
			reply.Thinking = append(reply.Thinking, brain.Thinking{Text: p.thinking, Signature: p.signature})
		case "redacted_thinking":
			reply.Thinking = append(reply.Thinking, brain.Thinking{Redacted: p.data})
		case "tool_use":
			if p.name == "" {
				return brain.Reply{}, &brain.Error{Kind: brain.ErrMalformed, Detail: fmt.Sprintf("content block %d: a tool_use without a name", i)}
			}
			if p.id == "" {
				return brain.Reply{}, &brain.Error{Kind: brain.ErrMalformed, Detail: fmt.Sprintf("content block %d: a tool_use without an id", i)}
			}
			in := strings.TrimSpace(p.input)
			if in == "" {
				in = "{}" // a tool without arguments streams no input at all
			}
			reply.Calls = append(reply.Calls, brain.ToolCall{ID: p.id, Tool: p.name, Args: json.RawMessage(in)})
		}
	}
	reply.Text = strings.Join(texts, "\n\n")
	return reply, nil
}
