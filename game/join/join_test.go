package join

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/arena"
	"github.com/coplayhq/coplay/game/mcpserve"
	"github.com/coplayhq/coplay/game/ratelimit"
)

// The tests' seat tokens.
const (
	heronToken = "heron-token-0123456789abcdef"
	finchToken = "finch-token-0123456789abcdef"
)

// serveArena serves an arena league of Heron and Finch over loopback HTTP, each seat's
// calls limited to limit (zero: no limit); it returns the URL and the league.
func serveArena(t *testing.T, limit ratelimit.Budget) (string, *game.League) {
	t.Helper()
	l, err := game.OpenLeague(context.Background(), "arena", game.Env{Getenv: os.Getenv, MaxSeats: game.MaxServedSeats}, []string{"Heron", "Finch"})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserve.New(mcpserve.Config{Game: "arena", League: l, Tokens: map[string]string{"Heron": heronToken, "Finch": finchToken}, Limit: limit})
	if err != nil {
		l.Close()
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { srv.Close(); ts.Close(); l.Close(); srv.Wait() })
	return ts.URL + mcpserve.Path, l
}

// join joins url as the seat whose token is in the variable env names.
func join(t *testing.T, url, env string) *Game {
	t.Helper()
	g, err := Open(context.Background(), Config{URL: url, Game: "arena", TokenEnv: env, Getenv: os.LookupEnv})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

// A joined seat is the arena: its name, rules, tools (kinds included) and observation
// are the served seat's; its view is the seat's own, read again after a call; a message
// to the other seat reaches it as the trigger a local seat gets.
//
// Not parallel: the connection reads the token from the process's environment
// (t.Setenv), as a player's coplay does.
func TestJoinedSeatIsTheArena(t *testing.T) {
	t.Setenv("TEST_JOIN_HERON", heronToken)
	t.Setenv("TEST_JOIN_FINCH", finchToken)
	url, l := serveArena(t, ratelimit.Budget{})
	heron, finch := join(t, url, "TEST_JOIN_HERON"), join(t, url, "TEST_JOIN_FINCH")
	local := l.Seats[0].Opened.Game
	if info := heron.Info(); info.Name != "arena" || info.Rules != local.Info().Rules || !strings.Contains(info.Title, "served at") {
		t.Errorf("Info: %+v", info)
	}
	kinds := func(tools []game.Tool) []string {
		var out []string
		for _, tool := range tools {
			if tool.Kind == game.Read || tool.Kind == game.Act {
				out = append(out, tool.Name+":"+tool.Kind.String())
			}
		}
		slices.Sort(out)
		return out
	}
	if got, want := kinds(heron.Tools()), kinds(local.Tools()); !slices.Equal(got, want) {
		t.Errorf("tools %v, want the arena's %v", got, want)
	}
	obs, err := heron.Observe(context.Background())
	if err != nil || !strings.HasPrefix(obs.Summary, "Heron ·") || len(obs.Metrics) == 0 {
		t.Fatalf("Observe: %v, %+v", err, obs)
	}
	v := view(t, heron)
	if v.Agent.Name != "Heron" || !slices.Contains(v.Players, "Finch") {
		t.Errorf("Heron's view: agent %q, players %v", v.Agent.Name, v.Players)
	}
	res, err := heron.Call(context.Background(), arena.ToolSendMessage, json.RawMessage(`{"to":"Finch","text":"meet me at the well"}`))
	if err != nil || !res.OK() {
		t.Fatalf("send_message: %v %+v", err, res)
	}
	sent := false
	for _, m := range view(t, heron).Messages {
		sent = sent || m.From == "Heron" && m.Text == "meet me at the well"
	}
	if !sent {
		t.Error("Heron's view after the call does not have the message it sent")
	}
	select {
	case tr := <-finch.Triggers():
		if tr.Type != "message.received" || !strings.Contains(tr.Text, "meet me at the well") {
			t.Errorf("Finch's trigger: %+v", tr)
		}
	case <-time.After(time.Minute):
		t.Fatal("no trigger reached Finch")
	}
}

// view is g's view, decoded as the arena's.
func view(t *testing.T, g *Game) arena.View {
	t.Helper()
	raw, err := g.ViewJSON(context.Background())
	var v arena.View
	if err == nil {
		err = json.Unmarshal(raw, &v)
	}
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Calls and reads past the seat's rate limit are waited out, as long as the server
// says, and the wait is shown; none is lost. Not parallel: t.Setenv.
func TestJoinedSeatWaitsOutTheRateLimit(t *testing.T) {
	t.Setenv("TEST_JOIN_HERON", heronToken)
	url, _ := serveArena(t, ratelimit.Budget{PerSecond: 4, Burst: 1, BurstWindow: time.Second})
	heron := join(t, url, "TEST_JOIN_HERON")
	var waits atomic.Int32
	ctx := game.WithWaitFunc(context.Background(), func(w game.Wait) {
		if !w.Until.IsZero() && strings.Contains(w.Reason, "limits this seat's calls") {
			waits.Add(1)
		}
	})
	for range 12 {
		if _, err := heron.Observe(ctx); err != nil {
			t.Fatalf("Observe: %v", err)
		}
		res, err := heron.Call(ctx, arena.ToolStatus, json.RawMessage(`{}`))
		if err != nil || !res.OK() {
			t.Fatalf("status: %v %+v", err, res)
		}
	}
	if waits.Load() == 0 {
		t.Error("24 calls at a limit of 4 a second never waited")
	}
}

// A world that is not the one asked for, a URL that is not one, and a token that is
// not set are refused in words before anything is played.
func TestJoinRefuses(t *testing.T) {
	t.Setenv("TEST_JOIN_HERON", heronToken)
	url, _ := serveArena(t, ratelimit.Budget{})
	if _, err := Open(context.Background(), Config{URL: url, Game: "universe", TokenEnv: "TEST_JOIN_HERON", Getenv: os.LookupEnv}); err == nil || !strings.Contains(err.Error(), "pass --game arena") {
		t.Errorf("joining the arena as the universe: %v", err)
	}
	for _, tc := range []struct {
		url, env, want string
	}{
		{"ftp://x", "TEST_JOIN_HERON", "is not a served world's URL"},
		{"http://u:p@127.0.0.1:1/mcp", "TEST_JOIN_HERON", "has no password or query"},
		{url, "TEST_JOIN_NOBODY", "set TEST_JOIN_NOBODY"},
		{url, "NOT-A-NAME", "not an environment variable's name"},
	} {
		_, err := Open(context.Background(), Config{URL: tc.url, Game: "arena", TokenEnv: tc.env, Getenv: os.LookupEnv})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s with $%s: %v, want %q", tc.url, tc.env, err, tc.want)
		}
	}
}

// A URL without a path is the served world's endpoint (what coplay serve prints ends in
// /mcp); the token is read through Getenv.
func TestCheckAddsThePath(t *testing.T) {
	t.Parallel()
	getenv := func(name string) (string, bool) { return map[string]string{"SEAT": "tok"}[name], name == "SEAT" }
	for in, want := range map[string]string{
		"http://server:8765":       "http://server:8765/mcp",
		"http://server:8765/":      "http://server:8765/mcp",
		"https://server/arena/mcp": "https://server/arena/mcp",
	} {
		got, token, err := Config{URL: in, Game: "arena", TokenEnv: "SEAT", Getenv: getenv}.Check()
		if err != nil || got != want || token != "tok" {
			t.Errorf("Check(%s) = %s, %q, %v; want %s", in, got, token, err, want)
		}
	}
}

// retryAfter reads the served world's refusals, for a read and for a call, and nothing
// else.
func TestRetryAfter(t *testing.T) {
	t.Parallel()
	for said, want := range map[string]time.Duration{
		"429 Too Many Requests: seat Heron is over its limit (2 calls a second, and bursts of 30 a 1m0s); retry after 1.5 s":                 1550 * time.Millisecond,
		"429 Too Many Requests: seat Heron is over its limit (…); nothing was done. Retry after 0.3 s.\nstructuredContent: {\"status\":429}": 350 * time.Millisecond,
		"Sent #3 to Finch.":     -1,
		"retry after 2 s":       -1,
		"429 Too Many Requests": -1,
	} {
		got, ok := retryAfter(said)
		if want < 0 && ok || want >= 0 && got != want {
			t.Errorf("retryAfter(%q) = %v, %v; want %v", said, got, ok, want)
		}
	}
}
