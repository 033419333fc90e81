package mcp

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/coplayhq/coplay/game"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server's requests and notifications (elicitation, sampling, progress, logs, resource
// updates) come to the SDK's handlers with a context of the connection's, not of the call
// that caused them. hosts connects the two: every call to the server is registered with
// its context (which carries the runner's game.Host) and a progress token; a question
// goes to the newest call in flight, progress to the call its token names, and what comes
// between calls (a log line) to the last Host seen.

// hosts is what the Game knows of the calls in flight. Its methods are safe for
// concurrent use.
type hosts struct {
	mu    sync.Mutex
	last  game.Host            // the Host of the last call made, for what comes between calls
	calls map[string]*inflight // by progress token
	order []string             // tokens in the order the calls began
	next  int
}

// inflight is one call to the server that has not answered yet.
type inflight struct {
	ctx  context.Context
	host game.Host
}

// begin registers a call made with ctx and returns its progress token and the function
// that ends it.
func (h *hosts) begin(ctx context.Context) (token string, end func()) {
	host := game.HostOf(ctx)
	h.mu.Lock()
	defer h.mu.Unlock()
	if host != nil {
		h.last = host
	}
	h.next++
	token = "coplay-" + strconv.Itoa(h.next)
	if h.calls == nil {
		h.calls = map[string]*inflight{}
	}
	h.calls[token] = &inflight{ctx: ctx, host: host}
	h.order = append(h.order, token)
	return token, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		for i, t := range h.order {
			if t == token {
				h.order = append(h.order[:i], h.order[i+1:]...)
				break
			}
		}
		// The SDK hands notifications to their handlers apart from answers, so progress
		// sent just before the answer may be handled just after it: the token is kept a
		// moment longer.
		time.AfterFunc(progressGrace, func() {
			h.mu.Lock()
			delete(h.calls, token)
			h.mu.Unlock()
		})
	}
}

// progressGrace is how long a call's progress token outlives its answer.
const progressGrace = 2 * time.Second

// seen remembers the Host of ctx for what arrives between calls.
func (h *hosts) seen(ctx context.Context) {
	if host := game.HostOf(ctx); host != nil {
		h.mu.Lock()
		h.last = host
		h.mu.Unlock()
	}
}

// forToken returns the Host of the call with this progress token, or nil.
func (h *hosts) forToken(token any) game.Host {
	s, ok := token.(string)
	if !ok {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if c := h.calls[s]; c != nil {
		return c.host
	}
	return nil
}

// lastHost is the Host of the last call made.
func (h *hosts) lastHost() game.Host {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.last
}

// forRequest returns the context a server's request (reqCtx, the SDK's) is served in:
// the newest call in flight's, so that cutting the call short withdraws the question,
// also ended when reqCtx ends (the server cancelled its request). Without a call in
// flight it is reqCtx with the last Host seen. done releases it.
func (h *hosts) forRequest(reqCtx context.Context) (ctx context.Context, host game.Host, done func()) {
	h.mu.Lock()
	var call *inflight
	if n := len(h.order); n > 0 {
		call = h.calls[h.order[n-1]]
	}
	last := h.last
	h.mu.Unlock()
	if call == nil || call.host == nil {
		if last == nil {
			return reqCtx, nil, func() {}
		}
		return game.WithHost(reqCtx, last), last, func() {}
	}
	ctx, cancel := context.WithCancel(call.ctx)
	stop := context.AfterFunc(reqCtx, cancel)
	return ctx, call.host, func() { stop(); cancel() }
}

// clientOptions are the SDK client's options: the handlers of everything a server may
// send besides answers. Sampling is offered only when the Config says a model can serve
// it.
func (g *Game) clientOptions() *sdk.ClientOptions {
	opts := &sdk.ClientOptions{
		// Only a flag: the catalogue is read again at the next step, not here, so the
		// notification cannot change anything in the middle of a step.
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			g.mu.Lock()
			g.listChanged = true
			g.mu.Unlock()
		},
		ElicitationHandler:          g.elicit,
		ProgressNotificationHandler: g.progress,
		LoggingMessageHandler:       g.logMessage,
		ResourceUpdatedHandler:      g.resourceUpdated,
		Capabilities: &sdk.ClientCapabilities{
			Elicitation: &sdk.ElicitationCapabilities{
				Form: &sdk.FormElicitationCapabilities{},
				URL:  &sdk.URLElicitationCapabilities{},
			},
		},
	}
	if g.cfg.Sampling {
		opts.CreateMessageHandler = g.sample
		opts.Capabilities.Sampling = &sdk.SamplingCapabilities{}
	}
	return opts
}

// label names the server to the person: the name it gives itself in initialize, else the
// name coplay knows it by (its command or URL).
func (g *Game) label() string {
	g.mu.Lock()
	sess := g.sess
	g.mu.Unlock()
	if sess == nil {
		return g.name
	}
	return g.group(sess)
}
