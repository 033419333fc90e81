package openapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coplayhq/coplay/game"
)

// arenaToken is the fake key the arena server expects; tests check it never leaks.
const arenaToken = "arena-secret-7f3c9e"

// seen is one request the arena server received.
type seen struct {
	Method, Path, RawPath, Query string
	Header                       http.Header
	Body                         string
}

// arena is a loopback server for testdata/openapi/arena.yaml. Handlers per
// "METHOD /path" answer; every request is recorded.
type arena struct {
	t        *testing.T
	srv      *httptest.Server
	mu       sync.Mutex
	requests []seen
	handlers map[string]http.HandlerFunc
}

func newArena(t *testing.T) *arena {
	a := &arena{t: t, handlers: map[string]http.HandlerFunc{}}
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		a.mu.Lock()
		a.requests = append(a.requests, seen{r.Method, r.URL.Path, r.URL.EscapedPath(), r.URL.RawQuery, r.Header.Clone(), string(body)})
		h := a.handlers[r.Method+" "+strings.TrimPrefix(r.URL.Path, "/api")]
		a.mu.Unlock()
		if h == nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"error":{"code":404,"message":"no route for %s %s"}}`, r.Method, r.URL.Path)
			return
		}
		h(w, r)
	}))
	t.Cleanup(a.srv.Close)
	return a
}

func (a *arena) handle(route string, h http.HandlerFunc) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.handlers[route] = h
}

// handleCounted answers route with h, telling it which request to the route this is
// (from 1); the count it returns is the test's to read.
func (a *arena) handleCounted(route string, h func(n int, w http.ResponseWriter, r *http.Request)) *atomic.Int32 {
	var count atomic.Int32
	a.handle(route, func(w http.ResponseWriter, r *http.Request) { h(int(count.Add(1)), w, r) })
	return &count
}

func (a *arena) seen() []seen {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]seen(nil), a.requests...)
}

func (a *arena) open(t *testing.T, cfg Config) *Game {
	t.Helper()
	cfg.Getenv = envOf("COPLAY_ARENA_KEY", arenaToken)
	cfg.Spec = fixture("arena.yaml")
	cfg.BaseURL = a.srv.URL + "/api"
	cfg.TokenEnv = "COPLAY_ARENA_KEY"
	return mustOpen(t, cfg)
}

func jsonReply(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// envOf is an environment holding one variable, for Config.Getenv: the tests give a
// token this way rather than with t.Setenv, so that they can run in parallel.
func envOf(name, value string) func(string) string {
	return func(k string) string {
		if k == name {
			return value
		}
		return ""
	}
}

func call(t *testing.T, g *Game, name, args string) game.Result {
	t.Helper()
	res, err := g.Call(context.Background(), name, json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	return res
}

func TestCallBuildsRequestsFromFlatArguments(t *testing.T) {
	t.Parallel()
	a := newArena(t)
	a.handle("POST /players/Ann B/moves", jsonReply(201, `{"data":{"moved":true}}`))
	a.handle("POST /messages", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	a.handle("GET /board", jsonReply(200, `{"data":{"size":8}}`))
	g := a.open(t, Config{})

	res := call(t, g, "make-move", `{"name":"Ann B","dryRun":true,"X-Request-Tag":"t1","direction":"NORTH","steps":2,"body_name":"dash","note":null}`)
	if !res.OK() || !strings.Contains(res.Output, `"moved":true`) {
		t.Fatalf("make-move = %+v", res)
	}
	res = call(t, g, "send-message", `{"to":"bob","text":"hi & bye","urgent":true}`)
	if !res.OK() || !strings.Contains(res.Output, "HTTP 204") {
		t.Fatalf("send-message = %+v", res)
	}
	call(t, g, "get_board", `{"limit":5,"format":"brief"}`)

	reqs := a.seen()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3: %+v", len(reqs), reqs)
	}
	mv := reqs[0]
	if mv.RawPath != "/api/players/Ann%20B/moves" || mv.Query != "dryRun=true" {
		t.Errorf("make-move sent to %s?%s", mv.RawPath, mv.Query)
	}
	if mv.Header.Get("X-Request-Tag") != "t1" || mv.Header.Get("X-Arena-Key") != arenaToken || mv.Header.Get("Authorization") != "" {
		t.Errorf("make-move headers: %v", mv.Header)
	}
	if mv.Header.Get("Content-Type") != "application/json" {
		t.Errorf("make-move content type %q", mv.Header.Get("Content-Type"))
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(mv.Body), &body); err != nil {
		t.Fatalf("make-move body %q: %v", mv.Body, err)
	}
	if len(body) != 4 || body["direction"] != "NORTH" || body["steps"] != 2.0 || body["name"] != "dash" || body["note"] != nil {
		t.Errorf("make-move body = %s, want direction, steps, name (from body_name) and a null note", mv.Body)
	}
	msg := reqs[1]
	form, err := url.ParseQuery(msg.Body)
	if err != nil || msg.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
		t.Fatalf("send-message body %q (%s): %v", msg.Body, msg.Header.Get("Content-Type"), err)
	}
	if form.Get("to") != "bob" || form.Get("text") != "hi & bye" || form.Get("urgent") != "true" {
		t.Errorf("send-message form = %v", form)
	}
	if q, _ := url.ParseQuery(reqs[2].Query); q.Get("limit") != "5" || q.Get("format") != "brief" || reqs[2].Body != "" {
		t.Errorf("get_board sent ?%s with body %q", reqs[2].Query, reqs[2].Body)
	}
}

func TestCallRefusesBadArgumentsBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	a := newArena(t)
	g := a.open(t, Config{})
	for _, tc := range []struct{ args, want string }{
		{`{"name":"a/b","direction":"NORTH","steps":1}`, "arguments.name: expected one URL path segment"},
		{`{"name":"..","direction":"NORTH","steps":1}`, `got ".."`},
		{`{"name":"","direction":"NORTH","steps":1}`, "at least 1 characters"}, // the spec's minLength
		{`{"name":"50%","direction":"NORTH","steps":1}`, "contains one of"},
		{`{"name":"a?b","direction":"NORTH","steps":1}`, "contains one of"},
		{`{"direction":"NORTH","steps":1}`, "arguments.name: expected required"},
		{`{"name":"ann","direction":"north","steps":1}`, "did you mean NORTH"},
		{`{"name":"ann","direction":"NORTH","steps":"1"}`, "send the number 1 without quotes"},
	} {
		_, err := g.Call(context.Background(), "make-move", json.RawMessage(tc.args))
		if err == nil || !strings.Contains(problemsText(validationProblems(t, err)), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.args, err, tc.want)
		}
		// The same check runs where the registry validates, through Tool.Check.
		tool := toolNamed(t, g, "make-move")
		if game.Validate("make-move", tool.Schema, json.RawMessage(tc.args)) == nil && len(tool.Check(json.RawMessage(tc.args))) == 0 {
			t.Errorf("%s: schema and Check both accept it", tc.args)
		}
	}
	if n := len(a.seen()); n != 0 {
		t.Errorf("%d requests reached the server; invalid calls must never be sent", n)
	}
	if _, err := g.Call(context.Background(), "make_move", nil); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("unknown tool: %v", err)
	}
}

func TestGroupedCallsCheckTheChosenOperation(t *testing.T) {
	t.Parallel()
	a := newArena(t)
	a.handle("POST /players/ann/moves", jsonReply(201, `{"data":{"moved":true}}`))
	g := a.open(t, Config{Catalog: CatalogGrouped})
	var names []string
	for _, tool := range g.Tools() {
		names = append(names, tool.Name)
	}
	if strings.Join(names, " ") != "players_read players_act board_read last_response" {
		t.Errorf("grouped tools = %v", names)
	}
	act := toolNamed(t, g, "players_act")
	if act.Kind != game.Act || toolNamed(t, g, "players_read").Kind != game.Read {
		t.Errorf("kinds: players_act %v", act.Kind)
	}
	if !strings.Contains(act.Description, "make-move(name, direction, steps, dryRun?, X-Request-Tag?, body_name?, note?, tags?)") ||
		!strings.Contains(act.Description, "send-message(to, text, urgent?)") {
		t.Errorf("players_act description:\n%s", act.Description)
	}
	for _, tc := range []struct{ args, want string }{
		{`{"operation":"make-move","name":"ann","steps":1}`, "arguments.direction: expected required"},
		{`{"operation":"make-move","name":"ann","direction":"NORTH","steps":1,"to":"bob"}`, "no property to for make-move"},
		{`{"operation":"send-message","to":"bob"}`, "arguments.text: expected required"},
		{`{"operation":"make-move","name":"a/b","direction":"NORTH","steps":1}`, "one URL path segment"},
		{`{"operation":"make-moves"}`, "did you mean make-move?"},
		{`{"name":"ann"}`, "arguments.operation: expected required"},
	} {
		_, err := g.Call(context.Background(), "players_act", json.RawMessage(tc.args))
		if err == nil || !strings.Contains(problemsText(validationProblems(t, err)), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.args, err, tc.want)
		}
	}
	if n := len(a.seen()); n != 0 {
		t.Fatalf("%d requests reached the server", n)
	}
	res := call(t, g, "players_act", `{"operation":"make-move","name":"ann","direction":"EAST","steps":3}`)
	if !res.OK() || !strings.Contains(res.Output, "moved") {
		t.Fatalf("grouped make-move = %+v", res)
	}
	if got := a.seen()[0]; got.Path != "/api/players/ann/moves" || !strings.Contains(got.Body, `"direction":"EAST"`) || strings.Contains(got.Body, "operation") {
		t.Errorf("grouped make-move sent %s %q", got.Path, got.Body)
	}
	for _, name := range []string{"make-move", "players_act"} {
		if out := call(t, g, lastResponseTool, fmt.Sprintf(`{"tool":%q}`, name)).Output; !strings.Contains(out, "moved") {
			t.Errorf("last_response %s = %q", name, out)
		}
	}
}

func TestErrorsAndUnknownOutcomes(t *testing.T) {
	t.Parallel()
	a := newArena(t)
	a.handle("GET /players/ann", jsonReply(400, `{"error":{"code":4203,"message":"Player ann is resting.","data":{"until":"soon"}}}`))
	var bobHits atomic.Int32
	a.handle("GET /players/bob", func(w http.ResponseWriter, r *http.Request) {
		bobHits.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, "<html>boom</html>")
	})
	lose := func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close() // the request arrived; the response is lost
		}
	}
	a.handle("POST /messages", lose)
	a.handle("GET /board", lose)
	a.handle("POST /players/ann/moves", jsonReply(http.StatusGatewayTimeout, `{"message":"upstream timed out"}`))
	g := a.open(t, Config{})

	res := call(t, g, "get-player", `{"name":"ann"}`)
	if res.Err == nil || res.Err.Code != 4203 || !strings.Contains(res.Err.Message, "Player ann is resting. (HTTP 400 Bad Request)") || string(res.Err.Data) != `{"until":"soon"}` {
		t.Errorf("game error = %+v", res.Err)
	}
	// A read that fails for a passing reason (a 5xx, a lost response) is retried with
	// backoff until the person stops it (the context ends): it never ends the turn.
	ctx, cancel := context.WithTimeout(context.Background(), 1200*time.Millisecond)
	res, err := g.Call(ctx, "get-player", json.RawMessage(`{"name":"bob"}`))
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || bobHits.Load() < 2 {
		t.Errorf("a GET answered 500 = %+v, %v after %d tries; want it retried until the context ended", res, err, bobHits.Load())
	}

	res = call(t, g, "send-message", `{"to":"bob","text":"hi"}`)
	if !res.Unknown || res.Err != nil || !strings.Contains(res.Output, "outcome unknown") {
		t.Errorf("a POST whose response is lost = %+v, want Unknown", res)
	}
	res = call(t, g, "make-move", `{"name":"ann","direction":"NORTH","steps":1}`)
	if !res.Unknown || !strings.Contains(res.Output, "504") {
		t.Errorf("a POST answered 504 by a gateway = %+v, want Unknown", res)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 800*time.Millisecond)
	if _, err := g.Call(ctx, "get_board", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a GET whose response is lost: %v, want it retried until the context ended", err)
	}
	cancel()

	// Nothing listening: the request never left, which is an error, not Unknown.
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	g2 := mustOpen(t, Config{Spec: fixture("arena.yaml"), BaseURL: deadURL, TokenEnv: "COPLAY_ARENA_KEY", Getenv: envOf("COPLAY_ARENA_KEY", arenaToken)})
	if res, err := g2.Call(context.Background(), "send-message", json.RawMessage(`{"to":"bob","text":"hi"}`)); err == nil || res.Unknown {
		t.Errorf("refused connection = %+v, %v; want an error saying nothing was sent", res, err)
	} else if want := "the game server at " + deadURL + " does not answer (connection refused); coplay reconnects when it is back"; !strings.Contains(err.Error(), want) {
		t.Errorf("refused connection error: %v", err)
	}
}

func TestRateLimitedReadWaitsAndRetries(t *testing.T) {
	t.Parallel()
	a := newArena(t)
	a.handleCounted("GET /board", func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			w.Header().Set("Retry-After", "1")
			jsonReply(429, `{"error":{"code":429,"message":"slow down"}}`)(w, r)
			return
		}
		jsonReply(200, `{"data":{"size":8}}`)(w, r)
	})
	postHits := a.handleCounted("POST /messages", func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			w.Header().Set("Retry-After", "1")
			jsonReply(429, `{"error":{"code":429,"message":"slow down"}}`)(w, r)
			return
		}
		jsonReply(201, `{"data":{"sent":true}}`)(w, r)
	})
	g := a.open(t, Config{})
	var waits []game.Wait
	ctx := game.WithWaitFunc(context.Background(), func(w game.Wait) { waits = append(waits, w) })
	res, err := g.Call(ctx, "get_board", nil)
	if err != nil || !res.OK() || !strings.Contains(res.Output, `"size":8`) {
		t.Fatalf("get_board after a 429 = %+v, %v", res, err)
	}
	if len(waits) != 2 || waits[0].Until.IsZero() || waits[0].Reason == "" || !waits[1].Until.IsZero() {
		t.Errorf("waits reported = %+v, want one wait then its end", waits)
	}

	// A 429 means the server refused the action without doing it: it is waited out and
	// sent again (the only time an action is sent twice).
	waits = nil
	res, err = g.Call(ctx, "send-message", json.RawMessage(`{"to":"bob","text":"hi"}`))
	if err != nil || !res.OK() || !strings.Contains(res.Output, "sent") {
		t.Errorf("a rate-limited POST = %+v, %v; want it sent again after the wait", res, err)
	}
	if postHits.Load() != 2 || len(waits) != 2 {
		t.Errorf("the POST was sent %d times with waits %+v; want the refused one and one more, after a reported wait", postHits.Load(), waits)
	}
}

func TestTokenNeverLeaves(t *testing.T) {
	t.Parallel()
	a := newArena(t)
	echo := func(status int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			key := r.Header.Get("X-Arena-Key")
			jsonReply(status, fmt.Sprintf(`{"error":{"code":%d,"message":"bad key %s","data":{"key":%q}},"data":{"key":%q,"also":%q}}`,
				status, key, key, key, url.QueryEscape(key)))(w, r)
		}
	}
	a.handle("GET /players/ann", echo(200))
	a.handle("GET /players/bob", echo(401))
	a.handle("GET /board", echo(200))
	g := a.open(t, Config{Observe: []string{"get_board"}})
	var outputs []string
	for _, name := range []string{"ann", "bob"} {
		res := call(t, g, "get-player", fmt.Sprintf(`{"name":%q}`, name))
		b, _ := json.Marshal(res)
		outputs = append(outputs, string(b))
		full := call(t, g, lastResponseTool, `{"tool":"get-player"}`)
		outputs = append(outputs, full.Output)
	}
	obs, err := g.Observe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	outputs = append(outputs, obs.Summary, g.Info().Rules)
	// A transport error's text carries the URL; the key must not be in it either.
	g2 := mustOpen(t, Config{Spec: fixture("arena30.yaml"), BaseURL: "http://127.0.0.1:1/" + arenaToken, TokenEnv: "COPLAY_ARENA_KEY",
		Getenv: envOf("COPLAY_ARENA_KEY", arenaToken)})
	// A read to a closed port is retried until the person stops it: here, a deadline.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err = g2.Call(ctx, "get-status", nil)
	if err == nil {
		t.Fatal("a call to a closed port succeeded")
	}
	outputs = append(outputs, err.Error())
	joined := strings.Join(outputs, "\n")
	if strings.Contains(joined, arenaToken) || strings.Contains(joined, url.QueryEscape(arenaToken)) {
		t.Errorf("the token leaked:\n%s", joined)
	}
	if !strings.Contains(joined, redacted) {
		t.Errorf("nothing was redacted, so the test did not see the echoed key:\n%s", joined)
	}
}

func TestSecuritySchemes(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Clone())
		mu.Unlock()
		jsonReply(200, `{}`)(w, r)
	}))
	t.Cleanup(srv.Close)
	g := mustOpen(t, Config{Spec: fixture("arena30.yaml"), BaseURL: srv.URL, TokenEnv: "COPLAY_NOTES_TOKEN", Getenv: envOf("COPLAY_NOTES_TOKEN", "notes-token-1")})
	call(t, g, "edit-note", `{"id":3,"title":null}`)
	call(t, g, "get-status", `{}`)
	if len(got) != 2 {
		t.Fatalf("%d requests", len(got))
	}
	if a := got[0].Get("Authorization"); a != "Bearer notes-token-1" {
		t.Errorf("edit-note (bearer scheme) sent Authorization %q", a)
	}
	if a := got[1].Get("Authorization"); a != "" {
		t.Errorf("get-status (security: []) sent Authorization %q", a)
	}
}

func TestLargeResponsesAreSummarisedAndKeptWhole(t *testing.T) {
	t.Parallel()
	a := newArena(t)
	var items []string
	for i := range 500 {
		items = append(items, fmt.Sprintf(`{"name":"player-%03d","health":%d,"bio":%q}`, i, i%100, strings.Repeat("long story ", 60)))
	}
	big := `{"data":{"size":64,"players":[` + strings.Join(items, ",") + `]}}`
	a.handle("GET /board", jsonReply(200, big))
	g := a.open(t, Config{})
	res := call(t, g, "get_board", `{}`)
	t.Logf("a %d-byte response reaches the model as %d bytes", len(big), len(res.Output))
	if len(res.Output) > outputLimit {
		t.Errorf("output is %d bytes, over the %d cap", len(res.Output), outputLimit)
	}
	for _, want := range []string{`"size":64`, "player-000", "in all)", "last_response", "chars)"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("summary lacks %q:\n%s", want, res.Output)
		}
	}
	var whole strings.Builder
	for offset := 0; ; {
		page := call(t, g, lastResponseTool, fmt.Sprintf(`{"tool":"get_board","offset":%d}`, offset)).Output
		if len(page) > fullLimit+300 {
			t.Fatalf("a last_response page is %d bytes", len(page))
		}
		_, body, _ := strings.Cut(page, "\n")
		more := strings.LastIndex(body, "\n(showing bytes")
		if more < 0 {
			whole.WriteString(body)
			break
		}
		whole.WriteString(body[:more])
		if _, err := fmt.Sscanf(body[more:], "\n(showing bytes %d–%d", new(int), &offset); err != nil {
			t.Fatalf("page note %q: %v", body[more:], err)
		}
	}
	if whole.String() != big {
		t.Errorf("last_response pages do not add up to the response (%d of %d bytes)", whole.Len(), len(big))
	}
	if out := call(t, g, lastResponseTool, `{"tool":"get-player"}`).Output; !strings.Contains(out, "not been called") {
		t.Errorf("last_response before any call = %q", out)
	}
	if _, err := g.Call(context.Background(), lastResponseTool, json.RawMessage(`{"tool":"get-players"}`)); err == nil ||
		!strings.Contains(err.Error(), "did you mean get-player?") {
		t.Errorf("last_response of an unknown tool: %v", err)
	}
}

func TestObserveReadsOnlyWhenNotFresh(t *testing.T) {
	t.Parallel()
	a := newArena(t)
	reads := a.handleCounted("GET /board", func(n int, w http.ResponseWriter, r *http.Request) {
		jsonReply(200, fmt.Sprintf(`{"data":{"read":%d}}`, n))(w, r)
	})
	a.handle("POST /messages", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	g := a.open(t, Config{Observe: []string{"get_board"}, ObserveTTL: time.Minute})
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	g.now = func() time.Time { return now }
	observe := func() string {
		t.Helper()
		obs, err := g.Observe(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return obs.Summary
	}
	if s := observe(); !strings.Contains(s, "## get_board") || !strings.Contains(s, `- read: 1`) {
		t.Fatalf("first observation = %q", s)
	}
	if s := observe(); !strings.Contains(s, `- read: 1`) {
		t.Errorf("second observation read again: %q", s)
	}
	call(t, g, "get-player", `{"name":"ann"}`) // a read does not make it stale
	if s := observe(); !strings.Contains(s, `- read: 1`) {
		t.Errorf("a read made the observation stale: %q", s)
	}
	if obs, _ := g.Observe(context.Background()); len(obs.Metrics) != 1 || obs.Metrics[0] != (game.Metric{Name: "read", Value: 1}) {
		t.Errorf("metrics = %v, want read 1", obs.Metrics)
	}
	call(t, g, "send-message", `{"to":"bob","text":"hi"}`)
	if s := observe(); !strings.Contains(s, `- read: 2`) {
		t.Errorf("after an action the observation was not read again: %q", s)
	}
	now = now.Add(2 * time.Minute)
	if s := observe(); !strings.Contains(s, `- read: 3`) {
		t.Errorf("after the TTL the observation was not read again: %q", s)
	}
	if n := reads.Load(); n != 3 {
		t.Errorf("%d reads, want 3", n)
	}

	empty := a.open(t, Config{})
	if obs, err := empty.Observe(context.Background()); err != nil || !strings.Contains(obs.Summary, "No observation is configured") {
		t.Errorf("observation with nothing to observe = %+v, %v", obs, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g.now = func() time.Time { return now.Add(time.Hour) }
	if _, err := g.Observe(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Observe with a cancelled context: %v", err)
	}
}

func TestRedirectsToAnotherHostAreNotFollowed(t *testing.T) {
	t.Parallel()
	other := newArena(t)
	other.handle("GET /board", jsonReply(200, `{"data":{"stolen":true}}`))
	a := newArena(t)
	a.handle("GET /board", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.srv.URL+"/api/board", http.StatusFound)
	})
	a.handle("GET /board/history", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/api/board?limit=1", http.StatusFound)
	})
	g := a.open(t, Config{})
	res := call(t, g, "get_board", `{}`)
	if res.Err == nil || res.Err.Code != http.StatusFound {
		t.Errorf("a redirect to another host = %+v, want the 302 as an error", res)
	}
	if n := len(other.seen()); n != 0 {
		t.Errorf("the other host got %d requests; the API key must not follow a redirect there", n)
	}
	a.handle("GET /board", jsonReply(200, `{"data":{"size":8}}`))
	if res := call(t, g, "board-history", `{"since":"2026-01-01T00:00:00Z"}`); !res.OK() || !strings.Contains(res.Output, `"size":8`) {
		t.Errorf("a redirect on the same host = %+v, want it followed", res)
	}
}

// TestObservedTextIsOneFieldALine: an observed object reads as one field a line, long
// values cut, so the world pane wraps it cleanly; a body that is not an object is
// summarised like any output.
func TestObservedTextIsOneFieldALine(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 400)
	r := &response{Status: 200, Body: []byte(`{"data":{"symbol":"COPLAY","credits":175000,"ships":[1,2],"hq":{"x":1},"note":"` + long + `","gone":null}}`)}
	got, _ := observed(r, "get-my-agent", 4000)
	for _, want := range []string{"- credits: 175000", "- symbol: COPLAY", "- ships: 2 item(s) [1,2]", `- hq: {"x":1}`, "- gone: null", "- note: " + long[:160] + "…"} {
		if !strings.Contains(got, want) {
			t.Errorf("observed text lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, long) {
		t.Error("a long value was not cut")
	}
	if got, _ := observed(&response{Status: 200, Body: []byte(`[1,2,3]`)}, "list", 4000); !strings.Contains(got, "1") {
		t.Errorf("a list body = %q", got)
	}
	if got, _ := observed(r, "get-my-agent", 60); !strings.Contains(got, "more field(s)") {
		t.Errorf("a body over the limit = %q, want the rest counted", got)
	}
}
