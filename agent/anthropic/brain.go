package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/agent/client"
	"github.com/coplayhq/coplay/agent/retry"
)

// Brain is a brain.Brain that asks Claude through Anthropic's Messages API. It is safe
// for concurrent use, though the runner calls it from one goroutine.
type Brain struct {
	cfg    Config
	client sdk.Client

	// sleep waits between attempts; tests replace it to record the waits.
	sleep func(ctx context.Context, d time.Duration) error
}

var _ brain.Brain = (*Brain)(nil)

// New returns a Brain for cfg, filling zero fields with the defaults. It makes no
// request: a wrong URL or key shows on the first Next.
func New(cfg Config) (*Brain, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	// The key (x-api-key) goes only to the API root's origin: net/http copies such a
	// header to any host a redirect names, so the guard takes it off, and refuses
	// https → http.
	hc := client.KeyToOrigin(client.HTTP(cfg.HTTPClient), cfg.BaseURL, "X-Api-Key")
	sc := sdk.NewClient(
		// Nothing from the environment or a profile on disk: the caller said what to use.
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(cfg.APIKey),
		option.WithBaseURL(cfg.BaseURL+"/"),
		option.WithHTTPClient(hc),
		// The brain retries itself, so that a retry can shrink the prompt, is never
		// made once text is on screen, and its waits can be seen.
		option.WithMaxRetries(0),
	)
	return &Brain{cfg: cfg, client: sc, sleep: retry.Sleep}, nil
}

// Name returns the model name.
func (b *Brain) Name() string { return b.cfg.Model }

// BaseURL returns the API root the brain talks to.
func (b *Brain) BaseURL() string { return b.cfg.BaseURL }

// Format prints the Brain as its Config, without the key.
func (b *Brain) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "anthropic.Brain{%v}", b.cfg)
}

// Next asks Claude for its next move. Text streams to req.OnDelta when Config.Stream is
// set. Retryable failures (429, 529, 5xx, timeouts, dropped connections) are retried up
// to Config.MaxRetries times with backoff, honouring retry-after, except once text has
// reached OnDelta: a retry would show it twice. A prompt refused as too long is shrunk
// and sent again. Cancelling ctx stops at once, in a request or in a backoff. Errors
// are *brain.Error (test with errors.Is against the Err* kinds) or, on cancellation, wrap
// ctx's error.
func (b *Brain) Next(ctx context.Context, req brain.Request) (brain.Reply, error) {
	tools, err := toWireTools(req.Tools)
	if err != nil {
		return brain.Reply{}, err
	}
	msgs := req.Messages
	params, conv := b.request(msgs, tools, req.ToolChoice)
	at := brain.Endpoint{Provider: "anthropic", KeyEnv: KeyEnv, Model: b.cfg.Model, BaseURL: b.cfg.BaseURL, Key: b.cfg.APIKey}
	shrinks := 0
	for attempt := 1; ; attempt++ {
		var reply brain.Reply
		var used tokens
		var e *brain.Error
		if b.cfg.Stream {
			reply, used, e = b.streamOnce(ctx, params, req.OnDelta)
		} else {
			reply, used, e = b.once(ctx, params)
		}
		if e == nil {
			b.fillUsage(&reply, used, params, conv)
			return reply, nil
		}
		if ctx.Err() != nil {
			return brain.Reply{}, at.Stopped(ctx)
		}
		at.Mark(e, attempt)
		if e.Kind == brain.ErrContextLength && !e.NoRetry && shrinks < brain.MaxShrinks {
			// Too long for this model: send less of the conversation, at once. A session
			// can never be stuck on its own history. This costs no attempt.
			if shorter, ok := brain.Shrink(msgs); ok {
				msgs = shorter
				params, conv = b.request(msgs, tools, req.ToolChoice)
				shrinks++
				attempt--
				continue
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

// request builds the Messages API request for msgs. choice brain.ToolChoiceNone sets
// tool_choice {"type":"none"}: the tools stay (the cached prefix is theirs), and the
// model answers in words.
func (b *Brain) request(msgs []brain.Message, tools []sdk.ToolUnionParam, choice string) (sdk.MessageNewParams, conversation) {
	conv := toConversation(msgs, b.cfg.ThinkingBudget > 0)
	p := sdk.MessageNewParams{
		Model:     sdk.Model(b.cfg.Model),
		MaxTokens: int64(b.cfg.MaxTokens),
		Messages:  conv.params(tools),
		System:    conv.system,
		Tools:     tools,
	}
	if choice == brain.ToolChoiceNone && len(tools) > 0 {
		p.ToolChoice = sdk.ToolChoiceUnionParam{OfNone: &sdk.ToolChoiceNoneParam{}}
	}
	extra := map[string]any{}
	if conv.thinking {
		// Sent as a plain field rather than through p.Thinking: for some models the SDK
		// prints a deprecation warning to stderr when it sees the typed field, which
		// would land in the middle of the screen.
		extra["thinking"] = map[string]any{"type": "enabled", "budget_tokens": b.cfg.ThinkingBudget}
	} else if t := b.cfg.Temperature; t != nil {
		// The SDK has no temperature field; the API refuses one with thinking on.
		extra["temperature"] = *t
	}
	if len(extra) > 0 {
		p.SetExtraFields(extra)
	}
	return p, conv
}

// once makes one plain (not streamed) request.
func (b *Brain) once(ctx context.Context, params sdk.MessageNewParams) (brain.Reply, tokens, *brain.Error) {
	actx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	// Our own timeout also stands in for the SDK's, which refuses a large max_tokens
	// without streaming.
	msg, err := b.client.Messages.New(actx, params, option.WithRequestTimeout(b.cfg.Timeout))
	if err != nil {
		if ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
			return brain.Reply{}, tokens{}, &brain.Error{Kind: brain.ErrTimeout, Detail: fmt.Sprintf("no complete answer within %s", b.cfg.Timeout)}
		}
		return brain.Reply{}, tokens{}, classify(err)
	}
	if msg == nil || msg.Type != "message" {
		return brain.Reply{}, tokens{}, &brain.Error{Kind: brain.ErrMalformed, Detail: "the answer is not a message object"}
	}
	if msg.StopReason == "" {
		return brain.Reply{}, tokens{}, &brain.Error{Kind: brain.ErrCut, Detail: "the answer has no stop_reason"}
	}
	reply, e := buildReply(messageParts(msg), msg.StopReason)
	if e != nil {
		return brain.Reply{}, tokens{}, e
	}
	return reply, messageTokens(msg), nil
}

// streamOnce makes one streamed request. The timeout is a silence limit: every event
// rearms it.
func (b *Brain) streamOnce(ctx context.Context, params sdk.MessageNewParams, onDelta func(string)) (brain.Reply, tokens, *brain.Error) {
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	quiet := retry.NewSilence(ctx, b.cfg.Timeout, cancel)
	defer quiet.Stop()

	var asm assembler
	fail := func(err error) (brain.Reply, tokens, *brain.Error) {
		e := quiet.Err()
		if !quiet.Fired() {
			e = classify(err)
			if n := asm.unfinishedCalls(); (e.Kind == brain.ErrCut || e.Status == 0) && n > 0 {
				e.Detail += fmt.Sprintf("; %d unfinished tool call(s) dropped", n)
			}
		}
		// Text already on screen would be shown twice by a retry.
		e.NoRetry = e.NoRetry || asm.spoke
		return brain.Reply{}, tokens{}, e
	}
	stream := b.client.Messages.NewStreaming(actx, params)
	defer stream.Close()
	for stream.Next() {
		quiet.Heard()
		asm.add(stream.Current(), onDelta)
	}
	if err := stream.Err(); err != nil {
		return fail(err)
	}
	if quiet.Fired() && !asm.stopped {
		return fail(context.DeadlineExceeded)
	}
	reply, used, e := asm.finished()
	if e != nil {
		e.NoRetry = e.NoRetry || asm.spoke
		return brain.Reply{}, tokens{}, e
	}
	return reply, used, nil
}

// fillUsage turns Anthropic's counts into brain.Usage, estimates what the server did not
// give, and prices it. Anthropic's input_tokens leaves out the tokens read from and
// written to the cache; PromptTokens is all three, so that CachedTokens is a share of it.
func (b *Brain) fillUsage(r *brain.Reply, t tokens, params sdk.MessageNewParams, conv conversation) {
	u := brain.Usage{
		PromptTokens:     t.input + t.cacheRead + t.cacheWrite,
		CompletionTokens: t.output,
		CachedTokens:     t.cacheRead,
		CacheWriteTokens: t.cacheWrite,
		ThinkingTokens:   t.thinking,
	}
	if u.PromptTokens == 0 && u.CompletionTokens == 0 {
		u = brain.Usage{PromptTokens: client.EstimateTokens(promptChars(params, conv)), CompletionTokens: client.EstimateTokens(client.CompletionChars(*r))}
		t = tokens{input: u.PromptTokens, output: u.CompletionTokens}
	}
	if u.ThinkingTokens == 0 {
		// Not reported: estimate from the thinking shown (a summary, so at most a floor
		// of what was billed), never more than the whole output.
		n := 0
		for _, th := range r.Thinking {
			n += len(th.Text)
		}
		u.ThinkingTokens = min(client.EstimateTokens(n), u.CompletionTokens)
	}
	u.Cost = b.cfg.cost(t.input, t.cacheRead, t.cacheWrite, t.output)
	u.CostKnown = b.cfg.priceKnown()
	r.Usage = u
}

// promptChars counts the characters the model is shown, for estimating tokens.
func promptChars(p sdk.MessageNewParams, conv conversation) int {
	n := 0
	for _, s := range conv.system {
		n += len(s.Text)
	}
	for _, m := range conv.msgs {
		for _, bl := range m.blocks {
			switch {
			case bl.OfText != nil:
				n += len(bl.OfText.Text)
			case bl.OfToolUse != nil:
				n += len(bl.OfToolUse.Name)
				if raw, ok := bl.OfToolUse.Input.(json.RawMessage); ok {
					n += len(raw)
				}
			case bl.OfToolResult != nil:
				n += len(resultText(bl.OfToolResult))
			case bl.OfThinking != nil:
				n += len(bl.OfThinking.Thinking)
			}
		}
	}
	for _, t := range p.Tools {
		if t.OfTool != nil {
			n += len(t.OfTool.Name) + len(t.OfTool.Description.Value)
			if raw, ok := t.OfTool.InputSchema.Overrides(); ok {
				if b, ok := raw.(json.RawMessage); ok {
					n += len(b)
				}
			}
		}
	}
	return n
}
