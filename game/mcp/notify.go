package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/coplayhq/coplay/game"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultLogLevel is the level coplay asks a server that logs to log at (logging/setLevel).
const DefaultLogLevel = "info"

// logLevels are the MCP (syslog) log levels, least severe first.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// validLogLevel reports whether s is an MCP log level.
func validLogLevel(s string) bool {
	for _, l := range logLevels {
		if l == s {
			return true
		}
	}
	return false
}

// progress passes a server's progress notification to the Host of the call its token
// names; progress for a call that is no longer in flight is dropped.
func (g *Game) progress(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	p := req.Params
	if p == nil {
		return
	}
	if host := g.hosts.forToken(p.ProgressToken); host != nil {
		host.Progress(game.Progress{Server: g.label(), Progress: p.Progress, Total: p.Total, Message: p.Message})
	}
}

// logMessage passes a server's log message (notifications/message) to the last Host
// seen.
func (g *Game) logMessage(_ context.Context, req *sdk.LoggingMessageRequest) {
	p := req.Params
	host := g.hosts.lastHost()
	if p == nil || host == nil {
		return
	}
	data, err := json.Marshal(p.Data)
	if err != nil {
		data, _ = json.Marshal("(unreadable log data)")
	}
	host.Log(game.LogLine{Server: g.label(), Level: string(p.Level), Logger: p.Logger, Data: data})
}

// afterConnect sets up what a new session offers besides tools: the log level when the
// server logs, and subscriptions to the observed resources when it can say they
// changed. A server that refuses either still plays; its log is told.
func (g *Game) afterConnect(ctx context.Context, sess *sdk.ClientSession) {
	res := sess.InitializeResult()
	if res == nil || res.Capabilities == nil {
		return
	}
	caps := res.Capabilities
	if caps.Logging != nil {
		level := g.cfg.LogLevel
		if level == "" {
			level = DefaultLogLevel
		}
		if err := sess.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: sdk.LoggingLevel(level)}); err != nil {
			g.note("MCP server %s refused the log level %s: %v", g.name, level, err)
		}
	}
	if caps.Resources != nil && caps.Resources.Subscribe {
		for _, uri := range g.cfg.Observe {
			if err := sess.Subscribe(ctx, &sdk.SubscribeParams{URI: uri}); err != nil {
				g.note("MCP server %s refused a subscription to %s: %v", g.name, uri, err)
			}
		}
	}
}

// note tells the Host, as a log line of coplay's own, something about the server that
// does not stop play.
func (g *Game) note(format string, args ...any) {
	if host := g.hosts.lastHost(); host != nil {
		data, _ := json.Marshal(strings.TrimSpace(fmt.Sprintf(format, args...)))
		host.Log(game.LogLine{Server: g.name, Level: "warning", Logger: "coplay", Data: data})
	}
}

// triggerBuffer is how many resource updates wait for the runner; older ones are
// dropped when nobody reads.
const triggerBuffer = 32

// trig is the channel of the game's triggers (game.Triggers).
type trig struct {
	once   sync.Once
	mu     sync.Mutex
	ch     chan game.Trigger
	closed bool
}

func (t *trig) channel() chan game.Trigger {
	t.once.Do(func() { t.ch = make(chan game.Trigger, triggerBuffer) })
	return t.ch
}

// send queues tr, dropping the oldest trigger when the buffer is full: the game never
// blocks on its reader.
func (t *trig) send(tr game.Trigger) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	game.SendTrigger(t.channel(), tr) // one sender at a time: t.mu
}

// close closes the channel once.
func (t *trig) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.closed {
		t.closed = true
		close(t.channel())
	}
}

// Triggers returns the channel of the server's resource updates: each
// notifications/resources/updated for a subscribed resource (the observed ones, when
// the server supports subscriptions) is a trigger of type "resource.updated" whose
// subject is the URI. It implements game.Triggers; the channel closes with the game.
func (g *Game) Triggers() <-chan game.Trigger { return g.trig.channel() }

// TriggerMeta is the _meta key of a resource update that carries the trigger behind it
// (a world served by coplay serve, game/mcpserve, which names the same key): its type,
// subject and text, so that a joined coplay wakes with the trigger a local one reads.
const TriggerMeta = "coplay/trigger"

// maxTriggerText caps the text a server's trigger gives the model.
const maxTriggerText = 500

// resourceUpdated turns a resource update into a trigger: the one its _meta carries
// (TriggerMeta), else "resource.updated" with the URI as its subject. The time is when
// it came: the server's clock is not this machine's, and a trigger stamped before the
// last observation would be dropped.
func (g *Game) resourceUpdated(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
	if req.Params == nil {
		return
	}
	if t, ok := metaTrigger(req.Params.Meta); ok {
		g.trig.send(t)
		return
	}
	g.trig.send(game.Trigger{Type: "resource.updated", Subject: req.Params.URI,
		Text: "MCP server " + g.name + " says " + req.Params.URI + " changed", Time: time.Now()})
}

// metaTrigger reads the trigger a resource update's _meta carries, if it has a type.
func metaTrigger(meta sdk.Meta) (game.Trigger, bool) {
	raw, ok := meta[TriggerMeta]
	if !ok {
		return game.Trigger{}, false
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return game.Trigger{}, false
	}
	var t game.Trigger
	if json.Unmarshal(b, &t) != nil || strings.TrimSpace(t.Type) == "" {
		return game.Trigger{}, false
	}
	t.Type = game.CutBytes(t.Type, 64)
	t.Subject = game.CutBytes(t.Subject, 128)
	t.Text = game.CutBytes(t.Text, maxTriggerText)
	t.Time = time.Now()
	return t, true
}
