package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/openai"
	"github.com/coplayhq/coplay/agent/retry"
	"github.com/coplayhq/coplay/secret"
)

// maxWait is the longest the brain sleeps before a retry. A server that asks for more
// is reported to the person instead: they may prefer another model.
const maxWait = 60 * time.Second

// Brain is an agent.Brain that asks Claude through Anthropic's Messages API. It is safe
// for concurrent use, though the runner calls it from one goroutine.
type Brain struct {
	cfg    Config
	client sdk.Client

	// sleep waits between attempts; tests replace it to record the waits.
	sleep func(ctx context.Context, d time.Duration) error
}

var _ agent.Brain = (*Brain)(nil)

// New returns a Brain for cfg, filling zero fields with the defaults. It makes no
// request: a wrong URL or key shows on the first Next.
func New(cfg Config) (*Brain, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	hc := &http.Client{}
	if cfg.HTTPClient != nil {
		c := *cfg.HTTPClient
		hc = &c
	}
	// The brain bounds each attempt itself (Config.Timeout), and a client timeout
	// would also cut a long stream that is still flowing.
	hc.Timeout = 0
	// The key (x-api-key) goes only to the API root's origin: net/http copies such a
	// header to any host a redirect names, so the guard takes it off, and refuses
	// https → http.
	if o, err := secret.ParseOrigin(cfg.BaseURL); err == nil {
		hc = (&secret.Guard{Origin: o, Headers: []string{"X-Api-Key"}}).Client(hc)
	}
	client := sdk.NewClient(
		// Nothing from the environment or a profile on disk: the caller said what to use.
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(cfg.APIKey),
		option.WithBaseURL(cfg.BaseURL+"/"),
		option.WithHTTPClient(hc),
		// The brain retries itself, so that a retry can shrink the prompt, is never
		// made once text is on screen, and its waits can be seen.
		option.WithMaxRetries(0),
	)
	return &Brain{cfg: cfg, client: client, sleep: retry.Sleep}, nil
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
// are *Error (test with errors.Is against the Err* kinds) or, on cancellation, wrap
// ctx's error.
func (b *Brain) Next(ctx context.Context, req agent.Request) (agent.Reply, error) {
	tools, err := toWireTools(req.Tools)
	if err != nil {
		return agent.Reply{}, err
	}
	msgs := req.Messages
	params, conv := b.request(msgs, tools)
	shrinks := 0
	for attempt := 1; ; attempt++ {
		var reply agent.Reply
		var used tokens
		var e *Error
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
			return agent.Reply{}, fmt.Errorf("anthropic: %s at %s: stopped: %w", b.cfg.Model, b.cfg.BaseURL, context.Cause(ctx))
		}
		e.Model, e.BaseURL, e.Attempts = b.cfg.Model, b.cfg.BaseURL, attempt
		e.Detail = secret.New(b.cfg.APIKey).String(e.Detail)
		if e.Kind == ErrContextLength && !e.noRetry && shrinks < agent.MaxShrinks {
			// Too long for this model: send less of the conversation, at once. A session
			// can never be stuck on its own history. This costs no attempt.
			if shorter, ok := agent.Shrink(msgs); ok {
				msgs = shorter
				params, conv = b.request(msgs, tools)
				shrinks++
				attempt--
				continue
			}
		}
		if shrinks > 0 {
			e.Detail += fmt.Sprintf("; still too long after shrinking the prompt %d times", shrinks)
		}
		if e.noRetry || !openai.Retryable(e.Kind) || attempt > b.cfg.MaxRetries {
			return agent.Reply{}, e
		}
		d := retry.Backoff(attempt, e.wait)
		if d > maxWait {
			e.Detail += fmt.Sprintf("; the server asks to wait %s before retrying", d.Round(time.Second))
			return agent.Reply{}, e
		}
		if err := b.sleep(ctx, d); err != nil {
			return agent.Reply{}, fmt.Errorf("anthropic: %s at %s: stopped while waiting to retry: %w", b.cfg.Model, b.cfg.BaseURL, err)
		}
	}
}

// request builds the Messages API request for msgs.
func (b *Brain) request(msgs []agent.Message, tools []sdk.ToolUnionParam) (sdk.MessageNewParams, conversation) {
	conv := toConversation(msgs, b.cfg.ThinkingBudget > 0)
	p := sdk.MessageNewParams{
		Model:     sdk.Model(b.cfg.Model),
		MaxTokens: int64(b.cfg.MaxTokens),
		Messages:  conv.params(tools),
		System:    conv.system,
		Tools:     tools,
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
func (b *Brain) once(ctx context.Context, params sdk.MessageNewParams) (agent.Reply, tokens, *Error) {
	actx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	// Our own timeout also stands in for the SDK's, which refuses a large max_tokens
	// without streaming.
	msg, err := b.client.Messages.New(actx, params, option.WithRequestTimeout(b.cfg.Timeout))
	if err != nil {
		if ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
			return agent.Reply{}, tokens{}, &Error{Kind: ErrTimeout, Detail: fmt.Sprintf("no complete answer within %s", b.cfg.Timeout)}
		}
		return agent.Reply{}, tokens{}, classify(err)
	}
	if msg == nil || msg.Type != "message" {
		return agent.Reply{}, tokens{}, &Error{Kind: ErrMalformed, Detail: "the answer is not a message object"}
	}
	if msg.StopReason == "" {
		return agent.Reply{}, tokens{}, &Error{Kind: ErrCut, Detail: "the answer has no stop_reason"}
	}
	reply, e := buildReply(messageParts(msg), msg.StopReason)
	if e != nil {
		return agent.Reply{}, tokens{}, e
	}
	return reply, messageTokens(msg), nil
}

// streamOnce makes one streamed request. The timeout is a silence limit: every event
// rearms it.
func (b *Brain) streamOnce(ctx context.Context, params sdk.MessageNewParams, onDelta func(string)) (agent.Reply, tokens, *Error) {
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	var silent atomic.Bool
	timer := time.AfterFunc(b.cfg.Timeout, func() { silent.Store(true); cancel() })
	defer timer.Stop()

	var asm assembler
	fail := func(err error) (agent.Reply, tokens, *Error) {
		var e *Error
		if silent.Load() && ctx.Err() == nil {
			e = &Error{Kind: ErrTimeout, Detail: fmt.Sprintf("the server was silent for %s", b.cfg.Timeout)}
		} else {
			e = classify(err)
			if n := asm.unfinishedCalls(); (e.Kind == ErrCut || e.Status == 0) && n > 0 {
				e.Detail += fmt.Sprintf("; %d unfinished tool call(s) dropped", n)
			}
		}
		// Text already on screen would be shown twice by a retry.
		e.noRetry = e.noRetry || asm.spoke
		return agent.Reply{}, tokens{}, e
	}
	stream := b.client.Messages.NewStreaming(actx, params)
	defer stream.Close()
	for stream.Next() {
		timer.Reset(b.cfg.Timeout)
		asm.add(stream.Current(), onDelta)
	}
	if err := stream.Err(); err != nil {
		return fail(err)
	}
	if silent.Load() && ctx.Err() == nil && !asm.stopped {
		return fail(context.DeadlineExceeded)
	}
	reply, used, e := asm.finished()
	if e != nil {
		e.noRetry = e.noRetry || asm.spoke
		return agent.Reply{}, tokens{}, e
	}
	return reply, used, nil
}

// fillUsage turns Anthropic's counts into agent.Usage, estimates what the server did not
// give, and prices it. Anthropic's input_tokens leaves out the tokens read from and
// written to the cache; PromptTokens is all three, so that CachedTokens is a share of it.
func (b *Brain) fillUsage(r *agent.Reply, t tokens, params sdk.MessageNewParams, conv conversation) {
	u := agent.Usage{
		PromptTokens:     t.input + t.cacheRead + t.cacheWrite,
		CompletionTokens: t.output,
		CachedTokens:     t.cacheRead,
		CacheWriteTokens: t.cacheWrite,
		ThinkingTokens:   t.thinking,
	}
	if u.PromptTokens == 0 && u.CompletionTokens == 0 {
		u = agent.Usage{PromptTokens: estimateTokens(promptChars(params, conv)), CompletionTokens: estimateTokens(completionChars(*r))}
		t = tokens{input: u.PromptTokens, output: u.CompletionTokens}
	}
	if u.ThinkingTokens == 0 {
		// Not reported: estimate from the thinking shown (a summary, so at most a floor
		// of what was billed), never more than the whole output.
		n := 0
		for _, th := range r.Thinking {
			n += len(th.Text)
		}
		u.ThinkingTokens = min(estimateTokens(n), u.CompletionTokens)
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

// completionChars measures what the model wrote, for estimating tokens.
func completionChars(r agent.Reply) int {
	n := len(r.Text)
	for _, c := range r.Calls {
		n += len(c.Tool) + len(c.Args)
	}
	for _, t := range r.Thinking {
		n += len(t.Text)
	}
	return n
}

// estimateTokens is the usual rough rule: four characters a token.
func estimateTokens(chars int) int {
	if chars <= 0 {
		return 0
	}
	return (chars + 3) / 4
}
