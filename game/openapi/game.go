package openapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/coplayhq/coplay/secret"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/polite"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

// Config says which API to play and how.
type Config struct {
	// Spec is the OpenAPI 3.0 or 3.1 file (JSON or YAML); references to other local
	// files are resolved relative to it.
	Spec string
	// BaseURL is where requests go, e.g. http://127.0.0.1:8080/v2. Empty means the
	// spec's first server.
	BaseURL string
	// TokenEnv names the environment variable holding the token, sent as the spec's
	// security schemes say (a bearer token when it says nothing). Empty sends none.
	TokenEnv string
	// Getenv reads TokenEnv; nil means os.Getenv. The driver gives the environment it
	// was given (game.Env.Getenv), tests their own.
	Getenv func(string) string
	// Catalog is CatalogOps (the default) or CatalogGrouped.
	Catalog string
	// Observe names GET operations (by operationId) read into every observation. They
	// must take no required parameters.
	Observe []string
	// Client sends the requests; nil means a plain http.Client with timeouts.
	Client Doer
	// ObserveTTL is how long an observed read stays fresh when nothing acted in
	// between; zero means DefaultObserveTTL.
	ObserveTTL time.Duration
}

// DefaultObserveTTL is how long an observed read is reused without asking again.
const DefaultObserveTTL = 10 * time.Second

// lastResponseTool is the Read tool that shows a call's whole last response.
const lastResponseTool = "last_response"

// Game is an OpenAPI spec played as a game. It is safe for concurrent use.
type Game struct {
	title   string
	rules   string
	baseURL string
	token   string // never written, logged, shown or sent to the model
	scrub   *secret.Scrubber
	client  Doer
	polite  *polite.Client // sends every request through client
	ttl     time.Duration
	now     func() time.Time

	ops     []*operation
	tools   []game.Tool
	byTool  map[string]game.Tool
	opTools map[string]*operation // ops catalogue: tool name → operation
	groups  map[string]*group     // grouped catalogue: tool name → group
	skipped []game.Skipped
	observe []*operation

	mu    sync.Mutex
	last  map[string]*response // by operation name and, in groups, by tool name
	cache map[string]cached    // observed reads by operation name
	gen   uint64               // counts Act calls: a read from an older gen is stale
}

// cached is one observed read.
type cached struct {
	at      time.Time
	gen     uint64
	text    string
	metrics []game.Metric
}

// Open loads the spec and builds the catalogue. It does not contact the server.
func Open(ctx context.Context, cfg Config) (*Game, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	catalog := cfg.Catalog
	if catalog == "" {
		catalog = CatalogOps
	}
	if catalog != CatalogOps && catalog != CatalogGrouped {
		return nil, fmt.Errorf("openapi: unknown catalogue %q (want %s or %s)", cfg.Catalog, CatalogOps, CatalogGrouped)
	}
	var token string
	if cfg.TokenEnv != "" {
		getenv := cfg.Getenv
		if getenv == nil {
			getenv = os.Getenv
		}
		token = getenv(cfg.TokenEnv)
		if token == "" {
			return nil, fmt.Errorf("openapi: the token's environment variable %s is not set or empty", cfg.TokenEnv)
		}
	}
	doc, err := loadSpec(cfg.Spec)
	if err != nil {
		return nil, err
	}
	base, err := baseURL(cfg.BaseURL, doc)
	if err != nil {
		return nil, err
	}
	g := &Game{
		baseURL: base,
		token:   token,
		scrub:   secret.New(token),
		client:  cfg.Client,
		ttl:     cfg.ObserveTTL,
		now:     time.Now,
		byTool:  map[string]game.Tool{},
		opTools: map[string]*operation{},
		groups:  map[string]*group{},
		last:    map[string]*response{},
		cache:   map[string]cached{},
	}
	if g.client == nil {
		g.client = defaultClient()
	}
	g.polite = newPolite(g.client, "the game server")
	if g.ttl <= 0 {
		g.ttl = DefaultObserveTTL
	}
	g.ops, g.skipped = buildOperations(doc, newSecurity(doc))
	if len(g.ops) == 0 {
		return nil, fmt.Errorf("openapi: spec %s has no operation that can be a tool%s", cfg.Spec, skippedList(g.skipped))
	}
	if catalog == CatalogOps {
		for _, op := range g.ops {
			g.opTools[op.Name] = op
			g.tools = append(g.tools, opTool(op))
		}
	} else {
		tagDescs := tagDescriptions(doc)
		for _, gr := range groupOperations(g.ops) {
			g.groups[gr.Name] = gr
			g.tools = append(g.tools, gr.tool(tagDescs[gr.Tag]))
		}
	}
	g.tools = append(g.tools, g.lastResponseTool())
	for _, t := range g.tools {
		g.byTool[t.Name] = t
	}
	if g.observe, err = g.observed(cfg.Observe); err != nil {
		return nil, err
	}
	g.title, g.rules = describe(doc, catalog, len(g.skipped))
	return g, nil
}

// baseURL is the configured URL or the spec's first server, which must be absolute.
func baseURL(configured string, doc *v3.Document) (string, error) {
	raw := configured
	from := "--base-url"
	if raw == "" {
		if len(doc.Servers) == 0 || doc.Servers[0] == nil {
			return "", errors.New("openapi: no base URL: the spec lists no servers, so give one (e.g. http://127.0.0.1:8080/v2)")
		}
		srv := doc.Servers[0]
		raw, from = srv.URL, "the spec's first server"
		if srv.Variables != nil {
			for name, v := range srv.Variables.FromOldest() {
				raw = strings.ReplaceAll(raw, "{"+name+"}", v.Default)
			}
		}
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("openapi: base URL %q (from %s) is not an absolute http or https URL", raw, from)
	}
	return strings.TrimRight(raw, "/"), nil
}

// observed resolves the operations named for observation: GETs without required
// parameters, or an error saying which and why.
func (g *Game) observed(names []string) ([]*operation, error) {
	var out []*operation
	for _, name := range names {
		i := slices.IndexFunc(g.ops, func(op *operation) bool { return op.OperationID == name || op.Name == name })
		if i < 0 {
			for _, s := range g.skipped {
				if s.Name == name {
					return nil, fmt.Errorf("openapi: cannot observe %s: it is not available as a tool: %s", name, s.Reason)
				}
			}
			var all []string
			for _, op := range g.ops {
				all = append(all, op.Name)
			}
			msg := fmt.Sprintf("openapi: cannot observe %s: no such operation in the spec", name)
			if near := game.Closest(name, all, 3); len(near) > 0 {
				msg += " (did you mean " + strings.Join(near, " or ") + "?)"
			}
			return nil, errors.New(msg)
		}
		op := g.ops[i]
		if op.Method != "GET" {
			return nil, fmt.Errorf("openapi: cannot observe %s: it is %s, and only GET operations are read for observation", name, op.Method)
		}
		if req := op.Schema.Required; len(req) > 0 {
			return nil, fmt.Errorf("openapi: cannot observe %s: it needs %s; only operations without required parameters can be observed", name, strings.Join(req, ", "))
		}
		if !slices.Contains(out, op) {
			out = append(out, op)
		}
	}
	return out, nil
}

func tagDescriptions(doc *v3.Document) map[string]string {
	m := map[string]string{}
	for _, t := range doc.Tags {
		if t != nil {
			m[t.Name] = t.Description
		}
	}
	return m
}

// describe returns the title and the rules for the system prompt.
func describe(doc *v3.Document, catalog string, skipped int) (title, rules string) {
	title = "OpenAPI game"
	var about string
	if doc.Info != nil {
		title = firstNonEmpty(doc.Info.Title, title)
		about = trimText(firstNonEmpty(doc.Info.Description, doc.Info.Summary), 1200)
	}
	var b strings.Builder
	if about != "" {
		b.WriteString(about + "\n\n")
	}
	b.WriteString("How the tools work: they call this HTTP API. ")
	if catalog == CatalogGrouped {
		b.WriteString("Each tool holds the reads or the actions of one part of the API: set `operation` to one of its operations and give that operation's fields (its description lists them, required ones first). ")
	} else {
		b.WriteString("Each tool is one operation. ")
	}
	b.WriteString("Reads only look and run at once; actions change the game and a person approves them. " +
		"Arguments are one flat object: path, query and header parameters and the request body's fields, by their names in the API " +
		"(a name used twice is prefixed with where it goes, e.g. query_limit or body_symbol). " +
		"Results are summarised: long lists are cut with a count of what is left out and long strings trimmed; " +
		"last_response {\"tool\": NAME} shows the whole last response of a tool. " +
		"A result marked outcome unknown may or may not have happened: read the state again before deciding.")
	if skipped > 0 {
		if skipped == 1 {
			b.WriteString("\n\n1 operation of the API is not available as a tool.")
		} else {
			fmt.Fprintf(&b, "\n\n%d operations of the API are not available as tools.", skipped)
		}
	}
	return title, b.String()
}

// Info names the game "openapi", titles it after the spec, and gives its rules.
func (g *Game) Info() game.Info {
	return game.Info{Name: "openapi", Title: g.title, Rules: g.rules}
}

// Tools returns the catalogue.
func (g *Game) Tools() []game.Tool { return slices.Clone(g.tools) }

// Skipped lists the operations that could not be turned into tools (game.Skipper):
// each named by its operationId, or "METHOD /path" when it has none, with why. Every
// other operation of the spec is a tool, or an operation of a grouped tool.
func (g *Game) Skipped() []game.Skipped { return slices.Clone(g.skipped) }

// Call validates the arguments (schema and the tool's own checks; nothing invalid is
// sent) and makes the request. A response outside 2xx is a Result with Err; a lost
// response to an action is a Result with Unknown; error means the server could not
// be asked at all.
func (g *Game) Call(ctx context.Context, name string, args json.RawMessage) (game.Result, error) {
	t, ok := g.byTool[name]
	if !ok {
		return game.Result{}, fmt.Errorf("openapi: unknown tool %q", name)
	}
	if err := game.Validate(name, t.Schema, args); err != nil {
		return game.Result{}, err
	}
	if t.Check != nil {
		if probs := t.Check(args); len(probs) > 0 {
			return game.Result{}, &game.ValidationError{Tool: name, Problems: probs}
		}
	}
	m, err := decodeArgs(args)
	if err != nil {
		return game.Result{}, err
	}
	if name == lastResponseTool {
		return g.lastResponse(m), nil
	}
	op, keys := g.opTools[name], []string{name}
	if gr := g.groups[name]; gr != nil {
		opName, _ := m[opArgField].(string)
		delete(m, opArgField)
		op, keys = gr.op(opName), []string{opName, name}
	}
	if op == nil {
		return game.Result{}, fmt.Errorf("openapi: tool %q has no operation to run", name)
	}
	return g.call(ctx, op, m, keys)
}

// call runs one operation and turns the response into a Result.
func (g *Game) call(ctx context.Context, op *operation, args map[string]any, keys []string) (game.Result, error) {
	if err := ctx.Err(); err != nil {
		return game.Result{}, err // stopped before anything was sent
	}
	resp, err := g.exchange(ctx, op, args)
	if op.Kind == game.Act && !errors.Is(err, errNotSent) {
		g.invalidate()
	}
	if err != nil {
		msg := g.scrub.String(err.Error())
		if errors.Is(err, errNotSent) {
			msg = g.notAnswering(err) // nothing was sent: nothing happened
		}
		if op.Kind == game.Read || errors.Is(err, errNotSent) {
			return game.Result{}, &callError{msg: "openapi: " + msg, cause: err}
		}
		return game.Result{Unknown: true, Output: fmt.Sprintf(
			"outcome unknown: %s was sent but its response was lost (%s). It may or may not have happened: read the state again before deciding.",
			op.Name, msg)}, nil
	}
	resp.Body = []byte(g.scrub.String(string(resp.Body)))
	resp.ReadErr = g.scrub.String(resp.ReadErr)
	g.mu.Lock()
	for _, k := range keys {
		g.last[k] = resp
	}
	g.mu.Unlock()
	return g.result(op, resp, keys[0]), nil
}

// invalidate marks every observed read stale: an action may have changed it.
func (g *Game) invalidate() {
	g.mu.Lock()
	g.gen++
	g.mu.Unlock()
}

// callError is an error whose text has been scrubbed of the token; it still answers
// errors.Is for cancellation and deadlines, without exposing the original text.
type callError struct {
	msg   string
	cause error
}

func (e *callError) Error() string { return e.msg }

// Is reports cancellation and deadline causes, so callers can tell a stop from a failure.
func (e *callError) Is(target error) bool {
	return (target == context.Canceled || target == context.DeadlineExceeded) && errors.Is(e.cause, target)
}

// skippedList lists skipped operations one a line, each with its reason.
func skippedList(xs []game.Skipped) string {
	if len(xs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(":")
	for _, s := range xs {
		fmt.Fprintf(&b, "\n- %s: %s", s.Name, s.Reason)
	}
	return b.String()
}
