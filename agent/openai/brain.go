package openai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coplayhq/coplay/agent/client"
	"github.com/coplayhq/coplay/agent/retry"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/coplayhq/coplay/agent/brain"
)

// Brain is a brain.Brain that asks an OpenAI-compatible endpoint. It is safe for
// concurrent use, though the runner calls it from one goroutine.
type Brain struct {
	cfg    Config
	client *goopenai.Client
	http   *http.Client // the client's, for the questions and the Ollama API go-openai does not ask
	// ollama is the Ollama server spoken to natively (ollama.go), once Prepare found one.
	ollama atomic.Pointer[ollamaState]

	// sleep waits between attempts; tests replace it to record the waits.
	sleep func(ctx context.Context, d time.Duration) error
	// noStreamUsage is set once the server refused stream_options.
	noStreamUsage atomic.Bool
	// calls numbers the model calls, for ids of tool calls that came without one.
	calls atomic.Int64
	// cutSaid is set once the person was told the server probably cut a prompt.
	cutSaid atomic.Bool
	// textCalls: answers are read for calls written as text (Config.readsTextCalls).
	textCalls bool
	// stripMu guards strip: schema keywords the server refused, left out from then on.
	stripMu   sync.Mutex
	stripKeys []string
}

// maxStrip bounds the schema keywords learned from refusals: a server that refuses more
// is not one a schema can be made for by leaving things out.
const maxStrip = 8

// strip adds a keyword the server refused; false when it was already left out (the
// refusal is about something else) or too many have been.
func (b *Brain) strip(kw string) bool {
	b.stripMu.Lock()
	defer b.stripMu.Unlock()
	if slices.Contains(b.stripKeys, kw) || len(b.stripKeys) >= maxStrip {
		return false
	}
	b.stripKeys = append(b.stripKeys, kw)
	return true
}

// stripped is the keywords left out so far.
func (b *Brain) stripped() []string {
	b.stripMu.Lock()
	defer b.stripMu.Unlock()
	return slices.Clone(b.stripKeys)
}

var _ brain.Brain = (*Brain)(nil)

// New returns a Brain for cfg, filling zero fields from cfg.Preset and the defaults.
// It makes no request: a wrong URL or key shows on the first Next.
func New(cfg Config) (*Brain, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	hc := client.HTTP(cfg.HTTPClient)
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	if cachesByBreakpoint(cfg.Dialect, cfg.Model) {
		base = EditRequests(base, markBreakpoints)
	}
	hc.Transport = headerTransport{base: base}
	// The key goes only to the endpoint's origin: a redirect elsewhere goes without
	// it (go-openai sets it as Authorization, or api-key for Azure), and https → http
	// is refused.
	hc = client.KeyToOrigin(hc, cfg.BaseURL, "Api-Key")

	wc := goopenai.DefaultConfig(cfg.APIKey)
	wc.BaseURL = cfg.BaseURL
	wc.HTTPClient = hc
	return &Brain{cfg: cfg, client: goopenai.NewClientWithConfig(wc), http: hc, sleep: retry.Sleep, textCalls: cfg.readsTextCalls()}, nil
}

// Name returns the model name.
func (b *Brain) Name() string { return b.cfg.Model }

// BaseURL returns the endpoint the brain talks to.
func (b *Brain) BaseURL() string { return b.cfg.BaseURL }

// Next asks the model for its next move. Text streams to req.OnDelta when Config.Stream
// is set. Retryable failures (429, 5xx, timeouts, dropped connections) are retried up
// to Config.MaxRetries times with backoff, honouring Retry-After, except once text has
// reached OnDelta: a retry would show it twice. Cancelling ctx stops at once, in a
// request or in a backoff. Errors are *brain.Error (test with errors.Is against the Err*
// kinds) or, on cancellation, wrap ctx's error.
func (b *Brain) Next(ctx context.Context, req brain.Request) (brain.Reply, error) {
	tools, err := toWireTools(req.Tools, b.cfg.Dialect, b.stripped())
	if err != nil {
		return brain.Reply{}, err
	}
	sent := req.Messages // what is sent, shorter after each refusal as too long
	wreq := goopenai.ChatCompletionRequest{
		Model:    b.cfg.Model,
		Messages: dialectMessages(b.cfg.Dialect, toWireMessages(req.Messages)),
		Tools:    tools,
	}
	if req.ToolChoice == brain.ToolChoiceNone && len(tools) > 0 {
		// The person asked a question: the tools stay (the cached prefix is theirs),
		// and the model answers in words.
		wreq.ToolChoice = "none"
	}
	if t := b.cfg.Temperature; t != nil {
		wreq.Temperature = *t
		if wreq.Temperature == 0 {
			wreq.Temperature = 1e-6
		}
	}
	idPrefix := fmt.Sprintf("call_%d_", b.calls.Add(1))
	at := brain.Endpoint{Provider: "openai", KeyEnv: keyEnv, Model: b.cfg.Model, BaseURL: b.cfg.BaseURL, Key: b.cfg.APIKey}

	shrinks := 0
	for attempt := 1; ; attempt++ {
		reply, e := b.attempt(ctx, wreq, req.OnDelta, idPrefix)
		if e == nil {
			readAnswer(&reply, req.Tools, idPrefix, b.textCalls)
			b.fillUsage(&reply, wreq)
			b.checkCut(&reply, wreq)
			return reply, nil
		}
		if ctx.Err() != nil {
			return brain.Reply{}, at.Stopped(ctx)
		}
		at.Mark(e, attempt)
		if e.Kind == brain.ErrRejected && b.cfg.Stream && !b.noStreamUsage.Load() && strings.Contains(e.Detail, "stream_options") {
			// An older server that does not know stream_options: ask again without,
			// and estimate usage from now on. This costs no attempt.
			b.noStreamUsage.Store(true)
			attempt--
			continue
		}
		if e.Kind == brain.ErrContextLength && !e.NoRetry && shrinks < brain.MaxShrinks {
			// Too long for this model: send less of the conversation, at once. A session
			// can never be stuck on its own history. This costs no attempt.
			if msgs, ok := brain.Shrink(sent); ok {
				sent = msgs
				wreq.Messages = dialectMessages(b.cfg.Dialect, toWireMessages(sent))
				shrinks++
				attempt--
				continue
			}
		}
		if e.Kind == brain.ErrRejected {
			if kw, i, ok := schemaRefusal(e.Detail); ok {
				// A server that refuses a schema keyword refuses it in every request:
				// leave it out from now on and ask again at once (no attempt spent).
				tool := fmt.Sprintf("#%d", i)
				if i < len(req.Tools) {
					tool = req.Tools[i].Name
				}
				if b.strip(kw) {
					if wreq.Tools, err = toWireTools(req.Tools, b.cfg.Dialect, b.stripped()); err == nil {
						attempt--
						continue
					}
				}
				e.Kind, e.Detail = brain.ErrSchema, schemaError(tool, kw, b.stripped())
			}
		}
		if shrinks > 0 {
			e.Detail += fmt.Sprintf("; still too long after shrinking the prompt %d times", shrinks)
		}
		if err := retry.Again(ctx, e, attempt, b.cfg.MaxRetries, b.sleep); err != nil {
			return brain.Reply{}, err
		}
	}
}

// attempt makes one request: to Ollama's own API once Prepare found one, else to the
// OpenAI endpoint, streamed when the brain streams. An error's Wait is what the server
// asked to wait before a retry, if anything.
func (b *Brain) attempt(ctx context.Context, wreq goopenai.ChatCompletionRequest, onDelta func(string), idPrefix string) (brain.Reply, *brain.Error) {
	if st := b.native(); st != nil {
		return b.ollamaOnce(ctx, st, wreq, onDelta, idPrefix)
	}
	if b.cfg.Stream {
		return b.streamOnce(ctx, wreq, onDelta, idPrefix)
	}
	return b.once(ctx, wreq, idPrefix)
}

// once makes one plain (non-streaming) request.
func (b *Brain) once(ctx context.Context, wreq goopenai.ChatCompletionRequest, idPrefix string) (brain.Reply, *brain.Error) {
	actx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	actx, slot := withSlot(actx)
	resp, err := b.client.CreateChatCompletion(actx, wreq)
	if err != nil {
		if ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
			return brain.Reply{}, &brain.Error{Kind: brain.ErrTimeout, Detail: fmt.Sprintf("no complete answer within %s", b.cfg.Timeout)}
		}
		e := classify(err)
		e.Wait = slot.get()
		return brain.Reply{}, e
	}
	if len(resp.Choices) == 0 {
		return brain.Reply{}, &brain.Error{Kind: brain.ErrMalformed, Detail: "the answer has no choices"}
	}
	msg := resp.Choices[0].Message
	reply, e := buildReply(msg.Content, msg.ToolCalls, resp.Choices[0].FinishReason, idPrefix)
	if e != nil {
		return brain.Reply{}, e
	}
	reply.Thinking = thinkingOf(msg.ReasoningContent)
	reply.Usage = toUsage(&resp.Usage, slot)
	return reply, nil
}

// streamOnce makes one streaming request. The timeout is a silence limit: it is
// rearmed by every chunk.
func (b *Brain) streamOnce(ctx context.Context, wreq goopenai.ChatCompletionRequest, onDelta func(string), idPrefix string) (brain.Reply, *brain.Error) {
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	actx, slot := withSlot(actx)
	quiet := retry.NewSilence(ctx, b.cfg.Timeout, cancel)
	defer quiet.Stop()

	wreq.Stream = true
	if !b.noStreamUsage.Load() {
		wreq.StreamOptions = &goopenai.StreamOptions{IncludeUsage: true}
	}
	var asm assembler
	fail := func(err error) (brain.Reply, *brain.Error) {
		e := quiet.Err()
		if !quiet.Fired() {
			e = classify(err)
			if e.Kind == brain.ErrCut && len(asm.calls) > 0 {
				e.Detail += fmt.Sprintf("; %d unfinished tool call(s) dropped", len(asm.calls))
			}
		}
		// Text already on screen would be shown twice by a retry.
		e.NoRetry = e.NoRetry || asm.spoke
		e.Wait = slot.get()
		return brain.Reply{}, e
	}
	stream, err := b.client.CreateChatCompletionStream(actx, wreq)
	if err != nil {
		return fail(err)
	}
	defer stream.Close()
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fail(err)
		}
		quiet.Heard()
		asm.add(chunk, onDelta)
	}
	reply, e := asm.finished(idPrefix)
	if e != nil {
		e.NoRetry = e.NoRetry || asm.spoke
		return brain.Reply{}, e
	}
	if u := asm.usage; u != nil {
		reply.Usage = toUsage(u, slot)
	}
	return reply, nil
}

// toUsage reads the token counts of an answer: go-openai's Usage, and the cached
// prompt tokens from OpenAI's prompt_tokens_details.cached_tokens or, failing that,
// DeepSeek's prompt_cache_hit_tokens, which the transport noted in slot.
func toUsage(u *goopenai.Usage, slot *retrySlot) brain.Usage {
	out := brain.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
	if d := u.CompletionTokensDetails; d != nil {
		out.ThinkingTokens = d.ReasoningTokens
	}
	if d := u.PromptTokensDetails; d != nil && d.CachedTokens > 0 {
		out.CachedTokens = d.CachedTokens
	} else if n, ok := slot.cacheHits(); ok {
		out.CachedTokens = n
	}
	// Cached tokens are some of the prompt's: a server that says more is wrong, and
	// the uncached count must not go negative.
	out.CachedTokens = max(min(out.CachedTokens, out.PromptTokens), 0)
	return out
}

// fillUsage estimates token counts the server did not give, and prices them.
func (b *Brain) fillUsage(r *brain.Reply, wreq goopenai.ChatCompletionRequest) {
	if r.Usage.PromptTokens == 0 && r.Usage.CompletionTokens == 0 {
		r.Usage.PromptTokens = client.EstimateTokens(promptChars(wreq))
		r.Usage.CompletionTokens = client.EstimateTokens(client.CompletionChars(*r))
		r.Usage.CachedTokens = 0
	}
	if r.Usage.ThinkingTokens == 0 && len(r.Thinking) > 0 {
		// The server did not say how much was reasoning: estimate it, within the count.
		n := 0
		for _, t := range r.Thinking {
			n += len(t.Text)
		}
		r.Usage.ThinkingTokens = min(client.EstimateTokens(n), r.Usage.CompletionTokens)
	}
	r.Usage.Cost, r.Usage.CostUpper = b.cfg.cost(r.Usage.PromptTokens, r.Usage.CachedTokens, r.Usage.CompletionTokens)
	r.Usage.CostKnown = b.cfg.PriceIn > 0 || b.cfg.PriceOut > 0 || b.cfg.PriceCached > 0
}
