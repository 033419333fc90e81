package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/secret"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Game is an MCP server played as a game. It implements game.Game. Its methods are
// safe for concurrent use.
type Game struct {
	cfg     Config
	name    string // the server, for messages: "server-everything", "127.0.0.1:3001/mcp"
	dial    dialer
	client  *sdk.Client
	skipped atomic.Int64 // non-JSON stdout lines dropped (stdio)
	backoff []time.Duration

	connMu sync.Mutex // serialises connecting

	mu          sync.Mutex
	sess        *sdk.ClientSession
	lost        error // why the session ended, when it did
	closed      bool
	info        game.Info
	server      sdk.Implementation // who the server says it is (initialize's serverInfo)
	cat         catalogue
	listChanged bool     // the server said its tools changed; refresh before the next step
	notices     []string // for the next observation's summary
	changes     []string // for Changes
	changed     bool     // for ToolsChanged

	http  *httpDialer   // a URL server's dialer (sse.go); nil for stdio
	oauth *oauthHandler // a URL server's authorization (oauth.go); nil for stdio

	hosts hosts    // the calls in flight and the runner's Host (host.go)
	ended *lastEnd // how the last stdio server ended, for the reconnect notice (exit.go)
	trig  trig     // resource updates as triggers (notify.go)
}

// defaultBackoff is the wait before each reconnect attempt within one Observe or Call.
var defaultBackoff = []time.Duration{0, 500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second}

// Open connects to the server cfg names, reads its tools and instructions, and returns
// the game. Close it when done (a stdio server is stopped then).
func Open(ctx context.Context, cfg Config) (*Game, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	var (
		d    dialer
		name string
	)
	if cfg.Command != "" {
		args, _ := splitCommand(cfg.Command)
		name = serverName(args)
		sd := &stdioDialer{args: args, ended: &lastEnd{}}
		if cfg.LogDir != "" {
			sd.logPath = filepath.Join(cfg.LogDir, "mcp-"+name+".log")
		}
		d = sd.dial
		g := newGame(cfg, name, d)
		sd.skipped, g.ended = &g.skipped, sd.ended
		return g, g.start(ctx)
	}
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("mcp: URL %q is not an http or https URL", secret.RedactURL(cfg.URL))
	}
	name = u.Host + u.Path // no user info, no query: they may hold secrets
	hd := newHTTPDialer(cfg, os.LookupEnv)
	g := newGame(cfg, name, hd.dial)
	g.http = hd
	if cfg.OAuth.IdPIssuer != "" { // the organisation's identity provider vouches (enterprise.go)
		// Its requests carry the ID token and the client secret: a redirect never takes
		// them to another origin or to plain http.
		hd.oauth = &enterpriseOAuth{g: g, getenv: os.LookupEnv, client: &http.Client{Transport: secret.HopGuard(nil)}}
		return g, g.start(ctx)
	}
	if hasHeader(cfg.Headers, "Authorization") {
		// The person's own credentials (a served world's seat token): a 401 says they
		// are wrong, and is said so; signing in over them would only confuse.
		return g, g.start(ctx)
	}
	h, err := g.newOAuth(os.LookupEnv) // a server that answers 401 is authorized (oauth.go)
	if err != nil {
		return nil, err
	}
	hd.oauth, hd.fault, g.oauth = h, h.refreshFault, h
	return g, g.start(ctx)
}

// hasHeader reports whether headers name the header name, in any case.
func hasHeader(headers map[string]string, name string) bool {
	for k := range headers {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// openWith is Open over any transport maker, for tests.
func openWith(ctx context.Context, cfg Config, name string, d dialer) (*Game, error) {
	g := newGame(cfg, name, d)
	return g, g.start(ctx)
}

func newGame(cfg Config, name string, d dialer) *Game {
	g := &Game{cfg: cfg, name: name, dial: d, backoff: defaultBackoff}
	g.client = sdk.NewClient(&sdk.Implementation{Name: "coplay", Version: "0.1"}, g.clientOptions())
	return g
}

// start makes the first connection; failing it fails Open.
func (g *Game) start(ctx context.Context) error {
	sess, err := g.connectOnce(ctx)
	if err != nil {
		return fmt.Errorf("mcp server %s: %w", g.name, err)
	}
	if err := g.adopt(ctx, sess, true); err != nil {
		sess.Close()
		return fmt.Errorf("mcp server %s: %w", g.name, err)
	}
	if g.cfg.ObserveTool != "" {
		t, ok := g.cat.byGame[g.cfg.ObserveTool]
		if !ok {
			sess.Close()
			return fmt.Errorf("mcp server %s: observe tool %q is not one of its tools (%s)", g.name, g.cfg.ObserveTool, strings.Join(g.cat.names(), ", "))
		}
		if t.Kind != game.Read {
			sess.Close()
			return fmt.Errorf("mcp server %s: observe tool %q is not marked read-only (annotations.readOnlyHint), so coplay will not call it without a person's approval", g.name, g.cfg.ObserveTool)
		}
	}
	return nil
}

func (g *Game) connectOnce(ctx context.Context) (*sdk.ClientSession, error) {
	t, err := g.dial(ctx)
	if err != nil {
		return nil, err
	}
	sess, err := g.client.Connect(ctx, t, nil)
	if g.http == nil {
		return sess, err
	}
	if status, ok := g.http.legacy(err); ok {
		// An older server (protocol 2024-11-05): the spec's backwards compatibility.
		g.sayFunc()(fmt.Sprintf("MCP server %s answered %d to streamable HTTP; speaking the older HTTP+SSE transport (protocol 2024-11-05) instead", g.name, status))
		if t, err = g.dial(ctx); err != nil {
			return nil, err
		}
		if sess, err = g.client.Connect(ctx, t, nil); err != nil {
			if rf := g.http.refusal(); rf != nil {
				return nil, rf
			}
			return nil, fmt.Errorf("answered %d to streamable HTTP, and as an HTTP+SSE server: %w", status, err)
		}
	}
	if err != nil {
		if rf := g.http.refusal(); rf != nil {
			return nil, rf
		}
		if rf := g.oauth.refreshFault(); rf != nil {
			return nil, rf
		}
		if g.http.lastStatus() == http.StatusUnauthorized && hasHeader(g.cfg.Headers, "Authorization") {
			return nil, fmt.Errorf("the server refused the Authorization header it was given (401: a wrong or expired token; a served world's seat token is COPLAY_SEAT_TOKEN_<SEAT> on the server): %w", err)
		}
		return nil, err
	}
	g.http.connected(t)
	return sess, nil
}

// adopt makes sess the current session: reads the catalogue and the instructions, and
// watches for the session's end.
func (g *Game) adopt(ctx context.Context, sess *sdk.ClientSession, first bool) error {
	cat, err := listTools(ctx, sess, g.group(sess))
	if err != nil {
		return fmt.Errorf("list tools: %w", err)
	}
	info := game.Info{Name: "mcp", Title: "MCP server " + g.name}
	var server sdk.Implementation
	if res := sess.InitializeResult(); res != nil {
		info.Rules = res.Instructions
		if si := res.ServerInfo; si != nil {
			server = *si
			title := si.Title
			if title == "" {
				title = si.Name
			}
			if title != "" {
				info.Title = strings.TrimSpace("MCP: " + title + " " + si.Version)
			}
		}
	}
	g.mu.Lock()
	old := g.cat
	g.sess, g.lost, g.info, g.server, g.cat, g.listChanged = sess, nil, info, server, cat, false
	if !first {
		g.notices = append(g.notices, fmt.Sprintf("Reconnected to MCP server %s%s: the world may have moved on since the last observation, and a call that was running when the connection dropped may or may not have happened.", g.name, g.ended.take()))
		g.noteChanges(old, cat)
	} else if len(cat.skipped) > 0 {
		g.notices = append(g.notices, "Tools of the server left out, because their arguments could not be checked: "+strings.Join(cat.skipped, "; ")+".")
	}
	g.mu.Unlock()
	go func() {
		err := sess.Wait()
		g.mu.Lock()
		if g.sess == sess {
			g.sess = nil
			if err == nil {
				err = g.ended.or(errors.New("the connection closed")) // a stdio server's exit (exit.go)
			}
			g.lost = err
		}
		g.mu.Unlock()
		sess.Close() // idempotent; frees the ended connection (a stdio server's pipes and log file)
	}()
	g.afterConnect(ctx, sess)
	return nil
}

// noteChanges records what appeared and disappeared between two catalogues. g.mu held.
func (g *Game) noteChanges(old, cur catalogue) {
	msg := diffCatalogues(old, cur)
	if msg == "" {
		return
	}
	g.notices = append(g.notices, msg)
	g.changes = append(g.changes, msg)
	g.changed = true
}

// session returns a live session, reconnecting with backoff if the last one ended, and
// refreshing the catalogue if the server said it changed.
func (g *Game) session(ctx context.Context) (*sdk.ClientSession, error) {
	g.connMu.Lock()
	defer g.connMu.Unlock()
	g.mu.Lock()
	sess, lost, closed, refresh := g.sess, g.lost, g.closed, g.listChanged
	g.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("mcp server %s: the game is closed", g.name)
	}
	if sess != nil {
		if refresh {
			if err := g.refresh(ctx, sess); err != nil {
				return nil, err
			}
		}
		return sess, nil
	}
	var last error
	for i, wait := range g.backoff {
		if wait > 0 {
			reason := fmt.Sprintf("MCP server %s dropped (%v); reconnecting, attempt %d of %d", g.name, lost, i+1, len(g.backoff))
			if last != nil {
				reason += " (last attempt: " + last.Error() + ")"
			}
			game.NotifyWait(ctx, game.Wait{Until: time.Now().Add(wait), Reason: reason})
			select {
			case <-ctx.Done():
				game.NotifyWait(ctx, game.Wait{})
				return nil, fmt.Errorf("mcp server %s dropped (%v) and reconnecting was cancelled: %w", g.name, lost, ctx.Err())
			case <-time.After(wait):
			}
		}
		s, err := g.connectOnce(ctx)
		if err == nil {
			if err = g.adopt(ctx, s, false); err == nil {
				if wait > 0 {
					game.NotifyWait(ctx, game.Wait{})
				}
				return s, nil
			}
			s.Close()
		}
		last = err
	}
	game.NotifyWait(ctx, game.Wait{})
	return nil, g.unreachable(lost, last, len(g.backoff))
}

// group is the Group of the server's tools: the name the server gives itself in
// initialize's serverInfo, else the name coplay knows it by (its command or URL).
func (g *Game) group(sess *sdk.ClientSession) string {
	if res := sess.InitializeResult(); res != nil && res.ServerInfo != nil {
		if name := strings.TrimSpace(res.ServerInfo.Name); name != "" {
			return name
		}
	}
	return g.name
}

// refresh reads the catalogue again after a list_changed notification.
func (g *Game) refresh(ctx context.Context, sess *sdk.ClientSession) error {
	cat, err := listTools(ctx, sess, g.group(sess))
	if err != nil {
		g.dropped(sess, err)
		return fmt.Errorf("mcp server %s: reading its changed tool list: %w", g.name, err)
	}
	g.mu.Lock()
	old := g.cat
	g.cat, g.listChanged = cat, false
	g.noteChanges(old, cat)
	g.mu.Unlock()
	return nil
}

// dropped forgets a session after a transport error, so the next use reconnects.
func (g *Game) dropped(sess *sdk.ClientSession, err error) {
	if isServerAnswer(err) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return
	}
	g.mu.Lock()
	if g.sess == sess {
		g.sess, g.lost = nil, err
	}
	g.mu.Unlock()
	go sess.Close()
}

// isServerAnswer reports whether err is the server's JSON-RPC error answer (the
// connection is fine), rather than a lost connection.
func isServerAnswer(err error) bool {
	var we *sdkError
	return errors.As(err, &we) && !notAnswered(err) // a request never delivered is no answer (exit.go)
}

// Info names the server; its instructions are the rules.
func (g *Game) Info() game.Info {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.info
}

// Server returns the name and title the server gave itself (initialize's serverInfo)
// on the last connection: a game built on this one (game/join) checks it is the world
// it expects.
func (g *Game) Server() (name, title string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.server.Name, g.server.Title
}

// Tools returns the server's tools as game tools. Unlike most games the catalogue can
// change while the game runs (notifications/tools/list_changed): it is read again
// before the next Observe or Call, ToolsChanged reports it, and the next observation
// tells the model what appeared and disappeared.
func (g *Game) Tools() []game.Tool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]game.Tool(nil), g.cat.tools...)
}

// ToolsChanged reports whether the catalogue changed since the last time it was
// asked, so a runner can rebuild its registry from Tools before the next step. It is
// the proposed optional interface game.Refresher { ToolsChanged() bool }.
func (g *Game) ToolsChanged() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	c := g.changed
	g.changed = false
	return c
}

// Changes returns what appeared in and disappeared from the catalogue since the last
// call, one line per change, for a log; "" when nothing changed. The model is told the
// same in the next observation's summary.
func (g *Game) Changes() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := strings.Join(g.changes, "\n")
	g.changes = nil
	return s
}

// Skipped returns how many lines a stdio server printed on stdout that were not
// JSON-RPC and were dropped (each is warned about in the log file).
func (g *Game) Skipped() int64 { return g.skipped.Load() }

// Close ends the session; a stdio server is asked to stop (stdin closed, then SIGTERM,
// then SIGKILL).
func (g *Game) Close() error {
	g.connMu.Lock()
	defer g.connMu.Unlock()
	g.mu.Lock()
	sess := g.sess
	g.sess, g.closed = nil, true
	g.mu.Unlock()
	g.trig.close()
	if sess == nil {
		return nil
	}
	if err := sess.Close(); err != nil && !errors.Is(err, sdk.ErrConnectionClosed) {
		return fmt.Errorf("mcp server %s: close: %w", g.name, err)
	}
	return nil
}

// Observe reads the resources and calls the read tool the Config names, and puts
// them, with any notice (a reconnect, a changed catalogue), in the summary. Reads are
// safe to repeat, so a connection that turns out to be gone is reconnected and read
// once more before Observe gives up.
func (g *Game) Observe(ctx context.Context) (game.Observation, error) {
	g.hosts.seen(ctx)
	var body string
	for attempt := 0; ; attempt++ {
		sess, err := g.session(ctx)
		if err != nil {
			return game.Observation{}, err
		}
		var lost bool
		body, lost, err = g.look(ctx, sess)
		if err == nil {
			break
		}
		if !lost || attempt > 0 {
			return game.Observation{}, err
		}
	}
	var b strings.Builder
	g.mu.Lock()
	notices := g.notices
	g.notices = nil
	title := g.info.Title
	g.mu.Unlock()
	fmt.Fprintf(&b, "# %s\n", title)
	for _, n := range notices {
		fmt.Fprintf(&b, "\n**%s**\n", n)
	}
	b.WriteString(body)
	return game.Observation{Summary: capText(b.String(), maxOutput), Time: time.Now()}, nil
}

// ReadText reads the text of the resource at uri (its text contents as they are), for a game built on this one (a
// joined world, game/join, which makes its own observation): like Observe it
// reconnects once when the connection turns out to be gone (a read is safe to repeat),
// and it hands over the notices the next observation would have carried (a reconnect,
// a changed catalogue), which are then the caller's to show. An error the server
// answered is returned as it is (isServerAnswer), the connection kept.
func (g *Game) ReadText(ctx context.Context, uri string) (text string, notices []string, err error) {
	g.hosts.seen(ctx)
	for attempt := 0; ; attempt++ {
		sess, err := g.session(ctx)
		if err != nil {
			return "", nil, err
		}
		res, err := sess.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		if err == nil {
			var b strings.Builder
			for _, rc := range res.Contents {
				if rc != nil {
					b.WriteString(rc.Text) // the text as it is: the caller decodes it
				}
			}
			text = b.String()
			break
		}
		if isServerAnswer(err) {
			return "", nil, fmt.Errorf("mcp server %s: reading %s: %w", g.name, uri, err)
		}
		g.dropped(sess, err)
		if ctx.Err() != nil || attempt > 0 {
			return "", nil, fmt.Errorf("mcp server %s: reading %s: %w", g.name, uri, err)
		}
	}
	g.mu.Lock()
	notices, g.notices = g.notices, nil
	g.mu.Unlock()
	return text, notices, nil
}

// look reads what the Config says to observe. lost reports an error that ended the
// connection (the session is dropped, so the next use reconnects).
func (g *Game) look(ctx context.Context, sess *sdk.ClientSession) (body string, lost bool, err error) {
	var b strings.Builder
	for _, uri := range g.cfg.Observe {
		res, err := sess.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		if err != nil && !isServerAnswer(err) {
			g.dropped(sess, err)
			return "", ctx.Err() == nil, fmt.Errorf("mcp server %s: reading %s: %w", g.name, uri, err)
		}
		fmt.Fprintf(&b, "\n## %s\n\n", uri)
		if err != nil {
			fmt.Fprintf(&b, "(could not be read: %v)\n", err)
			continue
		}
		b.WriteString(resourceText(res.Contents))
		b.WriteString("\n")
	}
	if t := g.cfg.ObserveTool; t != "" {
		fmt.Fprintf(&b, "\n## %s\n\n", t)
		res, err := g.send(ctx, sess, t, json.RawMessage("{}"))
		switch {
		case err != nil:
			return "", false, err
		case res.Unknown:
			return "", ctx.Err() == nil, fmt.Errorf("mcp server %s: observe tool %s: %s", g.name, t, res.Output)
		case res.Err != nil:
			fmt.Fprintf(&b, "(the tool answered with an error: %s)\n", res.Err.Message)
		default:
			b.WriteString(res.Output)
			b.WriteString("\n")
		}
	}
	if len(g.cfg.Observe) == 0 && g.cfg.ObserveTool == "" {
		g.mu.Lock()
		readTools := g.cat.readNames()
		g.mu.Unlock()
		b.WriteString("\nThis server gives no observation of its own: use its read tools to look")
		if len(readTools) > 0 {
			b.WriteString(" (" + strings.Join(readTools, ", ") + ")")
		}
		b.WriteString(".\n")
	}
	return b.String(), false, nil
}

// Call validates the arguments against the tool's current schema and sends them once.
// A tool error (isError) is a Result with Err; a call whose answer was lost is a
// Result with Unknown set, and is never sent again.
func (g *Game) Call(ctx context.Context, name string, args json.RawMessage) (game.Result, error) {
	sess, err := g.session(ctx)
	if err != nil {
		return game.Result{}, err
	}
	return g.send(ctx, sess, name, args)
}

// Simulate asks the server for a tool's dry run, when it names a preview tool for it
// (PreviewMeta). It implements game.Simulator. Whatever keeps the server from
// answering (a lost connection, a refusal, a prediction it cannot make) is ok=false:
// a dry run never stands in the way of the call itself.
func (g *Game) Simulate(ctx context.Context, name string, args json.RawMessage) (game.Simulation, bool, error) {
	g.mu.Lock()
	preview, ok := g.cat.preview[name]
	g.mu.Unlock()
	if !ok {
		return game.Simulation{}, false, nil
	}
	sess, err := g.session(ctx)
	if err != nil {
		return game.Simulation{}, false, nil
	}
	if len(strings.TrimSpace(string(args))) == 0 {
		args = json.RawMessage("{}")
	}
	res, err := sess.CallTool(ctx, &sdk.CallToolParams{Name: preview, Arguments: args})
	if err != nil || res.IsError || len(res.Content) == 0 {
		return game.Simulation{}, false, nil
	}
	text, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		return game.Simulation{}, false, nil
	}
	var p struct {
		Predicted bool `json:"predicted"`
		game.Simulation
	}
	if json.Unmarshal([]byte(text.Text), &p) != nil || !p.Predicted {
		return game.Simulation{}, false, nil
	}
	p.Summary, p.Warning = capText(p.Summary, maxTriggerText), capText(p.Warning, maxTriggerText)
	return p.Simulation, true, nil
}

func (g *Game) send(ctx context.Context, sess *sdk.ClientSession, name string, args json.RawMessage) (game.Result, error) {
	g.mu.Lock()
	t, ok := g.cat.byGame[name]
	serverName := g.cat.server[name]
	g.mu.Unlock()
	if !ok {
		return game.Result{Err: &game.Error{Code: CodeNoTool, Message: fmt.Sprintf("MCP server %s no longer offers a tool %q; observe again to see its tools", g.name, name)}}, nil
	}
	// Validated here too: the catalogue may have changed since the caller validated.
	if err := game.Validate(name, t.Schema, args); err != nil {
		return game.Result{}, err
	}
	if len(strings.TrimSpace(string(args))) == 0 {
		args = json.RawMessage("{}")
	}
	params := &sdk.CallToolParams{Name: serverName, Arguments: args}
	token, end := g.hosts.begin(ctx) // its questions, progress and sampling reach the person (host.go)
	defer end()
	params.SetProgressToken(token)
	res, err := sess.CallTool(ctx, params)
	if err != nil {
		var we *sdkError
		if isServerAnswer(err) && errors.As(err, &we) {
			return game.Result{Err: &game.Error{Code: int(we.Code), Message: we.Message, Data: we.Data}}, nil
		}
		if rf := g.oauth.refreshFault(); rf != nil && notAnswered(err) {
			// Not sent: renewing the authorization failed. A fault for the person; the
			// connection is fine.
			return game.Result{}, rf
		}
		g.dropped(sess, err)
		if notAnswered(err) { // the server was not reached, or not to the end (exit.go)
			return g.notAnsweringResult(err), nil
		}
		return game.Result{Unknown: true, Output: fmt.Sprintf("The answer from MCP server %s was lost (%v): the call may or may not have happened. It will not be sent again; observe before deciding.", g.name, err)}, nil
	}
	return toResult(res), nil
}
