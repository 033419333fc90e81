package openai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/agent/retry"
	"github.com/coplayhq/coplay/game"
)

// Ollama's OpenAI-compatible endpoint runs every model at the server's default
// context (4,096 tokens on most machines) whatever the request says, and drops the
// front of a longer prompt: the rules and the tools. Its own /api/chat takes the
// context per request (options.num_ctx). Once Prepare has found Ollama, the brain
// speaks /api/chat, with a context sized to each request plus room for the answer,
// never below the largest it asked for before (a new size reloads the model) and never
// above the model's own length.

// ollamaState is what Prepare learned about an Ollama server.
type ollamaState struct {
	root     string // the server's address, without /v1
	version  string
	maxCtx   int          // the model's context length from /api/show; 0 = unknown
	numCtx   atomic.Int64 // the largest num_ctx asked for so far
	overSaid atomic.Bool  // the person was told a prompt is longer than the model's context
}

// ollamaAnswerRoom is the tokens of context kept for the model's answer.
const ollamaAnswerRoom = 4096

// ollamaCtxStep rounds num_ctx up, so that a growing conversation changes it (and
// reloads the model) seldom.
const ollamaCtxStep = 4096

// setOllama switches the brain to Ollama's native API (nil: back to the OpenAI one).
func (b *Brain) setOllama(st *ollamaState) { b.ollama.Store(st) }

// native returns the Ollama server the brain speaks natively to, or nil.
func (b *Brain) native() *ollamaState { return b.ollama.Load() }

// ollamaMessage is a message of /api/chat.
type ollamaMessage struct {
	Role       string           `json:"role"`
	Content    string           `json:"content"`
	Thinking   string           `json:"thinking,omitempty"`
	ToolCalls  []ollamaToolCall `json:"tool_calls,omitempty"`
	ToolName   string           `json:"tool_name,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}

// ollamaToolCall is a tool call of /api/chat: its arguments are a JSON object, not a
// string as in OpenAI's format.
type ollamaToolCall struct {
	ID       string `json:"id,omitempty"`
	Function struct {
		Index     int             `json:"index,omitempty"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// ollamaRequest is the body of POST /api/chat.
type ollamaRequest struct {
	Model    string          `json:"model"`
	Messages []ollamaMessage `json:"messages"`
	Tools    []goopenai.Tool `json:"tools,omitempty"`
	Stream   bool            `json:"stream"`
	Options  map[string]any  `json:"options,omitempty"`
}

// ollamaChunk is one line of /api/chat's answer (the only one when not streaming).
type ollamaChunk struct {
	Message         ollamaMessage `json:"message"`
	Done            bool          `json:"done"`
	DoneReason      string        `json:"done_reason"`
	PromptEvalCount int           `json:"prompt_eval_count"`
	EvalCount       int           `json:"eval_count"`
	Error           string        `json:"error"`
}

// toOllama maps a chat-completions request to /api/chat. A tool message carries the
// name of the call it answers, as Ollama's templates want; arguments that are not a
// JSON object (a model's broken call, refused by the runner) go as {}.
func toOllama(wreq goopenai.ChatCompletionRequest, stream bool) ollamaRequest {
	out := ollamaRequest{Model: wreq.Model, Tools: wreq.Tools, Stream: stream, Messages: make([]ollamaMessage, 0, len(wreq.Messages))}
	names := map[string]string{}
	for _, m := range wreq.Messages {
		om := ollamaMessage{Role: m.Role, Content: m.Content}
		for _, c := range m.ToolCalls {
			var tc ollamaToolCall
			tc.ID, tc.Function.Name = c.ID, c.Function.Name
			tc.Function.Arguments = json.RawMessage("{}")
			if a := strings.TrimSpace(c.Function.Arguments); strings.HasPrefix(a, "{") && json.Valid([]byte(a)) {
				tc.Function.Arguments = json.RawMessage(a)
			}
			names[c.ID] = c.Function.Name
			om.ToolCalls = append(om.ToolCalls, tc)
		}
		if m.Role == goopenai.ChatMessageRoleTool {
			om.ToolCallID, om.ToolName = m.ToolCallID, names[m.ToolCallID]
		}
		out.Messages = append(out.Messages, om)
	}
	if t := wreq.Temperature; t != 0 {
		out.Options = map[string]any{"temperature": t}
	}
	return out
}

// sizeContext picks num_ctx for a request body of n bytes: its tokens (three bytes a
// token, which few tokenizers go below) plus the answer's room, rounded up, at least
// the largest asked before, at most the model's length. over is set when the request
// needs more than the model has.
func (st *ollamaState) sizeContext(n int) (numCtx, need int, over bool) {
	need = n/3 + ollamaAnswerRoom
	numCtx = (need + ollamaCtxStep - 1) / ollamaCtxStep * ollamaCtxStep
	numCtx = max(numCtx, int(st.numCtx.Load()))
	if st.maxCtx > 0 && numCtx > st.maxCtx {
		numCtx, over = st.maxCtx, need > st.maxCtx
	}
	if int64(numCtx) > st.numCtx.Load() {
		st.numCtx.Store(int64(numCtx))
	}
	return numCtx, need, over
}

// ollamaOnce makes one /api/chat request, streamed when the brain streams. The
// timeout is a silence limit, as for an OpenAI stream. A server that answers
// /api/version but has no /api/chat (a shim) sends the brain back to the OpenAI
// endpoint for good.
func (b *Brain) ollamaOnce(ctx context.Context, st *ollamaState, wreq goopenai.ChatCompletionRequest, onDelta func(string), idPrefix string) (brain.Reply, *brain.Error) {
	body, need, over, err := st.body(wreq, b.cfg.Stream)
	if err != nil {
		return brain.Reply{}, &brain.Error{Kind: brain.ErrMalformed, Detail: "encoding the request: " + err.Error(), NoRetry: true}
	}
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	actx, slot := withSlot(actx)
	quiet := retry.NewSilence(ctx, b.cfg.Timeout, cancel)
	defer quiet.Stop()
	fail := func(err error, spoke bool) (brain.Reply, *brain.Error) {
		e := quiet.Err()
		if !quiet.Fired() {
			e = classify(err)
		}
		e.NoRetry = e.NoRetry || spoke
		e.Wait = slot.get()
		return brain.Reply{}, e
	}

	req, err := http.NewRequestWithContext(actx, http.MethodPost, st.root+"/api/chat", bytes.NewReader(body))
	if err != nil {
		return brain.Reply{}, &brain.Error{Kind: brain.ErrNetwork, Detail: err.Error(), NoRetry: true}
	}
	req.Header.Set("Content-Type", "application/json")
	if b.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+b.cfg.APIKey)
	}
	resp, err := b.http.Do(req)
	if err != nil {
		return fail(err, false)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		msg := ollamaError(data)
		if resp.StatusCode == http.StatusNotFound && !strings.Contains(strings.ToLower(msg), "model") {
			b.setOllama(nil)
			return b.attempt(ctx, wreq, onDelta, idPrefix)
		}
		e := byStatus(resp.StatusCode, msg)
		e.Wait = slot.get()
		return brain.Reply{}, e
	}

	var ans ollamaAnswer
	if e, err := ans.read(resp.Body, quiet, onDelta); e != nil {
		return brain.Reply{}, e
	} else if err != nil {
		return fail(err, ans.spoke)
	}
	reply, e := ans.reply(idPrefix, quiet)
	if e != nil {
		return brain.Reply{}, e
	}
	if over && st.overSaid.CompareAndSwap(false, true) {
		reply.Notices = append(reply.Notices, fmt.Sprintf(
			"the prompt needs about %d tokens of context with room for the answer, more than %s's %d: Ollama cuts the front of what does not fit. Pick a model with a longer context, or play with fewer tools (--tool-budget)",
			need, b.cfg.Model, st.maxCtx))
	}
	return reply, nil
}

// body encodes the /api/chat request for wreq with its num_ctx (sizeContext): need is
// the context it needs, over whether that is more than the model has.
func (st *ollamaState) body(wreq goopenai.ChatCompletionRequest, stream bool) (body []byte, need int, over bool, err error) {
	oreq := toOllama(wreq, stream)
	probe, err := json.Marshal(oreq)
	if err != nil {
		return nil, 0, false, err
	}
	numCtx, need, over := st.sizeContext(len(probe))
	if oreq.Options == nil {
		oreq.Options = map[string]any{}
	}
	oreq.Options["num_ctx"] = numCtx
	body, err = json.Marshal(oreq)
	return body, need, over, err
}

// ollamaAnswer is what an /api/chat answer carried, line by line.
type ollamaAnswer struct {
	text, thinking strings.Builder
	calls          []goopenai.ToolCall
	last           *ollamaChunk // the line that said done; nil while none has
	spoke          bool         // text reached onDelta: a retry would show it twice
}

// read reads the answer's lines until Ollama says it is done or the body ends, rearming
// quiet at each. A line that is not JSON or that carries an error comes back as e, a
// failed read as err.
func (a *ollamaAnswer) read(body io.Reader, quiet *retry.Silence, onDelta func(string)) (e *brain.Error, err error) {
	vis := &visibleText{}
	if onDelta != nil {
		vis.out = func(s string) { onDelta(s); a.spoke = true }
	}
	dec := bufio.NewReader(body)
	for {
		line, err := dec.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			quiet.Heard()
			var c ollamaChunk
			if jerr := json.Unmarshal(line, &c); jerr != nil {
				return &brain.Error{Kind: brain.ErrMalformed, NoRetry: a.spoke, Detail: "not an Ollama chat answer: " + jerr.Error()}, nil
			}
			if c.Error != "" {
				e := byStatus(0, c.Error)
				e.NoRetry = e.NoRetry || a.spoke
				return e, nil
			}
			a.add(c, vis)
			if c.Done {
				a.last = &c
				return nil, nil
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, nil
			}
			return nil, err
		}
	}
}

// add takes in one line of the answer.
func (a *ollamaAnswer) add(c ollamaChunk, vis *visibleText) {
	a.text.WriteString(c.Message.Content)
	vis.write(c.Message.Content)
	a.thinking.WriteString(c.Message.Thinking)
	for _, tc := range c.Message.ToolCalls {
		a.calls = append(a.calls, goopenai.ToolCall{ID: tc.ID, Function: goopenai.FunctionCall{Name: tc.Function.Name, Arguments: string(tc.Function.Arguments)}})
	}
}

// reply is the brain's reply from a whole answer; an answer that never said it was done
// was cut (or timed out, when quiet fired).
func (a *ollamaAnswer) reply(idPrefix string, quiet *retry.Silence) (brain.Reply, *brain.Error) {
	if a.last == nil {
		if quiet.Fired() {
			e := quiet.Err()
			e.NoRetry = a.spoke
			return brain.Reply{}, e
		}
		detail := "the answer ended before Ollama said it was done"
		if len(a.calls) > 0 {
			detail += fmt.Sprintf("; %d tool call(s) dropped", len(a.calls))
		}
		return brain.Reply{}, &brain.Error{Kind: brain.ErrCut, NoRetry: a.spoke, Detail: detail}
	}
	finish := goopenai.FinishReason(a.last.DoneReason)
	if finish == "" {
		finish = goopenai.FinishReasonStop
	}
	reply, e := buildReply(a.text.String(), a.calls, finish, idPrefix)
	if e != nil {
		e.NoRetry = e.NoRetry || a.spoke
		return brain.Reply{}, e
	}
	reply.Thinking = thinkingOf(a.thinking.String())
	reply.Usage = brain.Usage{PromptTokens: a.last.PromptEvalCount, CompletionTokens: a.last.EvalCount}
	return reply, nil
}

// ollamaError reads Ollama's {"error": "..."} body, or returns the body as it is.
func ollamaError(data []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(data, &e) == nil && e.Error != "" {
		return e.Error
	}
	return game.Clip(strings.TrimSpace(string(data)), 300)
}
