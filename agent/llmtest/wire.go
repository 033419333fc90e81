package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The answer shapes, written out rather than borrowed from go-openai so the server
// sends what OpenAI sends (type only in a call's first fragment, null content next to
// tool calls), not what one client happens to accept.

type wireFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type wireCall struct {
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function wireFunction `json:"function"`
}

type wireMessage struct {
	Role      string     `json:"role,omitempty"`
	Content   *string    `json:"content"`
	ToolCalls []wireCall `json:"tool_calls,omitempty"`
}

type wireDelta struct {
	Role      string     `json:"role,omitempty"`
	Content   *string    `json:"content,omitempty"`
	ToolCalls []wireCall `json:"tool_calls,omitempty"`
}

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	// OpenAI's (and OpenRouter's) cached prompt tokens.
	PromptTokensDetails *wirePromptDetails `json:"prompt_tokens_details,omitempty"`
	// DeepSeek's: hits and misses add up to the prompt tokens.
	PromptCacheHitTokens  *int `json:"prompt_cache_hit_tokens,omitempty"`
	PromptCacheMissTokens *int `json:"prompt_cache_miss_tokens,omitempty"`
}

type wirePromptDetails struct {
	CachedTokens int `json:"cached_tokens"`
	AudioTokens  int `json:"audio_tokens"`
}

type wireChoice struct {
	Index        int          `json:"index"`
	Message      *wireMessage `json:"message,omitempty"`
	Delta        *wireDelta   `json:"delta,omitempty"`
	FinishReason *string      `json:"finish_reason"`
}

type wireCompletion struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []wireChoice `json:"choices"`
	Usage   *wireUsage   `json:"usage,omitempty"`
}

// answer is a step ready to send.
type answer struct {
	id     string
	model  string
	text   string
	calls  []wireCall // complete, with ids and argument strings
	finish string
	usage  wireUsage
}

// completion is the whole non-streaming body.
func (a answer) completion() []byte {
	msg := &wireMessage{Role: "assistant"}
	if a.text != "" || len(a.calls) == 0 {
		msg.Content = &a.text
	}
	for _, c := range a.calls {
		c.Type = "function"
		msg.ToolCalls = append(msg.ToolCalls, c)
	}
	u := a.usage
	return mustJSON(wireCompletion{
		ID: a.id, Object: "chat.completion", Created: created, Model: a.model,
		Choices: []wireChoice{{Message: msg, FinishReason: &a.finish}},
		Usage:   &u,
	})
}

// chunks is the streamed body as SSE events, without the finish, usage and [DONE]
// events (see tail), and cut, the number of chunks a cut fault sends: the text up to
// its middle or, when there are calls, up to the first piece of the last call's
// arguments, so a call is always left unfinished.
func (a answer) chunks() (events [][]byte, cut int) {
	chunk := func(d wireDelta) []byte {
		return event(wireCompletion{
			ID: a.id, Object: "chat.completion.chunk", Created: created, Model: a.model,
			Choices: []wireChoice{{Delta: &d}},
		})
	}
	empty := ""
	events = append(events, chunk(wireDelta{Role: "assistant", Content: &empty}))
	pieces := split(a.text, 3)
	for _, p := range pieces {
		events = append(events, chunk(wireDelta{Content: &p}))
	}
	cut = 1 + (len(pieces)+1)/2
	for i, c := range a.calls {
		idx := i
		events = append(events, chunk(wireDelta{ToolCalls: []wireCall{{
			Index: &idx, ID: c.ID, Type: "function", Function: wireFunction{Name: c.Function.Name},
		}}}))
		for j, p := range split(c.Function.Arguments, 3) {
			events = append(events, chunk(wireDelta{ToolCalls: []wireCall{{
				Index: &idx, Function: wireFunction{Arguments: p},
			}}}))
			if j == 0 {
				cut = len(events)
			}
		}
	}
	return events, cut
}

// tail is what ends a stream: the finish chunk, the usage chunk when asked for, and
// [DONE].
func (a answer) tail(withUsage bool) [][]byte {
	out := [][]byte{event(wireCompletion{
		ID: a.id, Object: "chat.completion.chunk", Created: created, Model: a.model,
		Choices: []wireChoice{{Delta: &wireDelta{}, FinishReason: &a.finish}},
	})}
	if withUsage {
		u := a.usage
		out = append(out, event(wireCompletion{
			ID: a.id, Object: "chat.completion.chunk", Created: created, Model: a.model,
			Choices: []wireChoice{}, Usage: &u,
		}))
	}
	return append(out, []byte("data: [DONE]\n\n"))
}

// created is the fixed timestamp of every answer, so recorded streams are stable.
const created = 1767225600 // 2026-01-01T00:00:00Z

// split cuts s into about n pieces on rune boundaries (fewer when s is short), so
// clients must put deltas and arguments back together.
func split(s string, n int) []string {
	if s == "" {
		return nil
	}
	runes := utf8.RuneCountInString(s)
	size := max((runes+n-1)/n, 1)
	var out []string
	var b strings.Builder
	k := 0
	for _, r := range s {
		b.WriteRune(r)
		k++
		if k == size {
			out = append(out, b.String())
			b.Reset()
			k = 0
		}
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}

func event(v any) []byte { return fmt.Appendf(nil, "data: %s\n\n", mustJSON(v)) }

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("llmtest: marshal %T: %v", v, err)) // only our own plain structs get here
	}
	return b
}

// errorBody is an OpenAI error object.
func errorBody(message, typ string, code any) []byte {
	return mustJSON(map[string]any{"error": map[string]any{
		"message": message, "type": typ, "param": nil, "code": code,
	}})
}

// writeWhole sends a whole (not streamed) JSON answer; cut sends half of it and drops
// the connection, short of its Content-Length.
func writeWhole(w http.ResponseWriter, body []byte, cut bool) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	if !cut {
		w.Write(body) //nolint:errcheck // the client hung up
		return
	}
	w.Write(body[:len(body)/2])           //nolint:errcheck // the client hung up
	http.NewResponseController(w).Flush() //nolint:errcheck // best effort before the abort
	panic(http.ErrAbortHandler)           // closes the connection short of Content-Length
}

// writeEvents streams SSE events, each flushed as it goes; cut then drops the
// connection, so that the client sees the body end early.
func writeEvents(w http.ResponseWriter, events [][]byte, cut bool) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	for _, e := range events {
		if _, err := w.Write(e); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
	if cut {
		panic(http.ErrAbortHandler)
	}
}

// writeWelcomePage answers with a web server's welcome page: what a wrong base URL
// finds, and no model's answer.
func writeWelcomePage(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, "<html><head><title>Welcome</title></head><body><h1>It works!</h1></body></html>\n") //nolint:errcheck // the client hung up
}

// hold keeps a request waiting, as a timeout fault does, until the client gives up or
// the server closes (false), or for maxHold (true: the caller answers a gateway
// timeout).
func (s *Server) hold(r *http.Request) bool {
	select {
	case <-r.Context().Done():
	case <-s.done:
	case <-time.After(maxHold):
		return true
	}
	return false
}
