package openai

import (
	"bytes"
	"io"
	"strings"

	"github.com/coplayhq/coplay/agent/brain"
)

// A reasoning model's thinking reaches the brain three ways: <think>…</think> in the
// content (DeepSeek R1 and Qwen3 on most local servers), a reasoning_content field
// (DeepSeek's API, vLLM, llama.cpp with --reasoning-format) or a reasoning field
// (OpenRouter, Ollama's OpenAI endpoint, newer vLLM). All of it becomes
// Reply.Thinking: shown dimmed, counted, and never sent back, since the next request
// would pay for it again.

// thinkTags are the open and close tags of reasoning written into the content.
var thinkTags = [][2]string{{"<think>", "</think>"}, {"<thinking>", "</thinking>"}}

// splitThink takes the reasoning out of content: every <think>…</think> block (one
// left open at the end runs to the end: the model stopped while thinking), and the
// text before a lone </think> (a chat template that opens the block in the prompt).
// visible is the rest, trimmed.
func splitThink(content string) (visible, thinking string) {
	var think, vis strings.Builder
	s := content
	for _, tag := range thinkTags {
		if i := strings.Index(s, tag[1]); i >= 0 && !strings.Contains(s[:i], tag[0]) {
			think.WriteString(s[:i])
			s = s[i+len(tag[1]):]
		}
	}
	for {
		i, tag := -1, [2]string{}
		for _, t := range thinkTags {
			if j := strings.Index(s, t[0]); j >= 0 && (i < 0 || j < i) {
				i, tag = j, t
			}
		}
		if i < 0 {
			vis.WriteString(s)
			break
		}
		vis.WriteString(s[:i])
		s = s[i+len(tag[0]):]
		j := strings.Index(s, tag[1])
		if j < 0 {
			addThought(&think, s)
			break
		}
		addThought(&think, s[:j])
		s = s[j+len(tag[1]):]
	}
	return strings.TrimSpace(vis.String()), strings.TrimSpace(think.String())
}

// addThought appends a piece of reasoning, a blank line apart from the one before.
func addThought(b *strings.Builder, s string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return
	}
	if b.Len() > 0 {
		b.WriteString("\n\n")
	}
	b.WriteString(s)
}

// thinkingOf joins the reasoning fields and the content's think blocks into the
// reply's Thinking, dropping empty pieces.
func thinkingOf(parts ...string) []brain.Thinking {
	var out []brain.Thinking
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, brain.Thinking{Text: p})
		}
	}
	return out
}

// visibleText filters streamed content before it reaches the screen: think blocks are
// dropped, and a tool call written as text (from its marker on, or an answer that
// opens with a JSON object or a code fence) is held back. The whole answer is
// separated properly once it has arrived (splitThink, readTextCalls); this only keeps
// the markup off the screen as it streams. A tag split across two chunks is held
// until the next one says what it is.
type visibleText struct {
	out     func(string)
	pending string // text not yet passed on: a possible partial tag
	closing string // the close tag awaited while inside a think block; "" outside
	held    bool   // from here on everything is held (a text tool call)
	shown   bool   // visible text went out: leading white space is no longer dropped
}

// write takes the next piece of the stream.
func (v *visibleText) write(s string) {
	if v.held {
		return
	}
	v.pending += s
	for v.pending != "" {
		if v.closing != "" {
			i := strings.Index(v.pending, v.closing)
			if i < 0 {
				v.pending = v.pending[max(0, len(v.pending)-len(v.closing)+1):] // may hold a partial close tag
				return
			}
			v.pending = v.pending[i+len(v.closing):]
			v.closing = ""
			continue
		}
		if !v.shown {
			v.pending = strings.TrimLeft(v.pending, " \t\r\n")
			if v.pending == "" {
				return
			}
			if strings.HasPrefix(v.pending, "{") || strings.HasPrefix(v.pending, "[{") || strings.HasPrefix(v.pending, "```") {
				v.held = true // perhaps a bare or fenced call: shown whole at the end if not
				return
			}
		}
		at, tag, think := v.firstTag()
		if at < 0 {
			keep := partialTag(v.pending)
			v.emit(v.pending[:len(v.pending)-keep])
			v.pending = v.pending[len(v.pending)-keep:]
			return
		}
		v.emit(v.pending[:at])
		if !think {
			v.held, v.pending = true, ""
			return
		}
		v.pending = v.pending[at+len(tag[0]):]
		v.closing = tag[1]
	}
}

// firstTag finds the earliest think tag or text-call marker in pending.
func (v *visibleText) firstTag() (at int, tag [2]string, think bool) {
	at = -1
	for _, t := range thinkTags {
		if i := strings.Index(v.pending, t[0]); i >= 0 && (at < 0 || i < at) {
			at, tag, think = i, t, true
		}
	}
	for _, m := range textCallMarkers {
		if i := strings.Index(v.pending, m); i >= 0 && (at < 0 || i < at) {
			at, tag, think = i, [2]string{m, ""}, false
		}
	}
	return at, tag, think
}

// emit passes visible text on.
func (v *visibleText) emit(s string) {
	if s == "" || v.out == nil {
		return
	}
	v.shown = true
	v.out(s)
}

// partialTag is how many bytes at the end of s may begin a tag or marker.
func partialTag(s string) int {
	i := strings.LastIndexAny(s, "<[")
	if i < 0 {
		return 0
	}
	tail := s[i:]
	for _, t := range thinkTags {
		if strings.HasPrefix(t[0], tail) {
			return len(tail)
		}
	}
	for _, m := range textCallMarkers {
		if strings.HasPrefix(m, tail) {
			return len(tail)
		}
	}
	return 0
}

// reasoningKey is the key OpenRouter, Ollama's OpenAI endpoint and newer vLLM put
// reasoning under; go-openai decodes only reasoning_content.
const (
	reasoningKey     = `"reasoning"`
	reasoningAsKnown = `"reasoning_content"`
)

// renameReasoning passes an answer's body through with every "reasoning" key renamed
// to "reasoning_content", so that go-openai decodes it (a JSON body or an event stream
// alike). Only a key is renamed: the quoted word followed by a colon. Inside a JSON
// string its quotes would be escaped (\"), which never matches.
func renameReasoning(body io.ReadCloser) io.ReadCloser {
	return &keyRenamer{ReadCloser: body}
}

// keyRenamer is renameReasoning's reader.
type keyRenamer struct {
	io.ReadCloser
	ready []byte // renamed bytes not yet read
	carry []byte // the end of what was read, which may be the start of a key
	err   error  // the body's error, returned once ready is empty
	chunk []byte
}

// Read implements io.Reader.
func (k *keyRenamer) Read(p []byte) (int, error) {
	for len(k.ready) == 0 && k.err == nil {
		if k.chunk == nil {
			k.chunk = make([]byte, 4096)
		}
		n, err := k.ReadCloser.Read(k.chunk)
		k.err = err
		data := append(k.carry, k.chunk[:n]...)
		k.ready, k.carry = renameKeys(data, err != nil)
	}
	n := copy(p, k.ready)
	k.ready = k.ready[n:]
	if len(k.ready) == 0 && len(k.carry) == 0 && k.err != nil {
		return n, k.err
	}
	return n, nil
}

// renameKeys renames the reasoning keys in data. Unless final, a tail that may still
// become a key (a part of the quoted word, or the word and white space before its
// colon) is returned as carry, for the next read.
func renameKeys(data []byte, final bool) (out, carry []byte) {
	out = make([]byte, 0, len(data)+len(reasoningAsKnown))
	for {
		i := bytes.Index(data, []byte(reasoningKey))
		if i < 0 {
			keep := 0
			if !final {
				for k := min(len(reasoningKey)-1, len(data)); k > 0; k-- {
					if bytes.HasSuffix(data, []byte(reasoningKey[:k])) {
						keep = k
						break
					}
				}
			}
			out = append(out, data[:len(data)-keep]...)
			return out, append([]byte(nil), data[len(data)-keep:]...)
		}
		j := i + len(reasoningKey)
		for j < len(data) && isSpace(data[j]) {
			j++
		}
		if j == len(data) && !final {
			out = append(out, data[:i]...)
			return out, append([]byte(nil), data[i:]...)
		}
		out = append(out, data[:i]...)
		if j < len(data) && data[j] == ':' {
			out = append(out, reasoningAsKnown...)
		} else {
			out = append(out, reasoningKey...)
		}
		data = data[i+len(reasoningKey):]
	}
}
