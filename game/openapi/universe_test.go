package openapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/internal/spectest"
	"github.com/coplayhq/coplay/game/ratelimit"
	"github.com/coplayhq/coplay/game/universe"
)

// player drives the offline universe through the generic OpenAPI tools only, the way
// a model would, and keeps every output and error text to check the token against.
type player struct {
	t     *testing.T
	g     *Game
	clock *universe.FakeClock
	token string
	texts []string
	calls int // game calls, not counting last_response
	sent  *countingDoer
}

// countingDoer counts the requests that reach the network, through Config.Client.
type countingDoer struct {
	mu sync.Mutex
	n  int
}

func (c *countingDoer) Do(req *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return http.DefaultClient.Do(req)
}

func (c *countingDoer) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func newPlayer(t *testing.T, catalog string) *player {
	t.Helper()
	spec := needSpaceTraders(t)
	clock := universe.NewFakeClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	u := universe.New(universe.Config{Seed: 1, Clock: clock})
	token, err := u.Register("OPENAPI", "COSMIC")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(u.Handler())
	t.Cleanup(srv.Close)
	sent := &countingDoer{}
	g := mustOpen(t, Config{Spec: spec, BaseURL: srv.URL + "/v2", TokenEnv: "COPLAY_UNIVERSE_TOKEN", Getenv: envOf("COPLAY_UNIVERSE_TOKEN", token), Catalog: catalog,
		Observe: []string{"get-my-agent"}, Client: sent})
	g.now = clock.Now
	return &player{t: t, g: g, clock: clock, token: token, sent: sent}
}

// try calls a tool and records what came back.
func (p *player) try(name string, args any) (game.Result, error) {
	p.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		p.t.Fatal(err)
	}
	res, err := p.g.Call(context.Background(), name, raw)
	if name != lastResponseTool {
		p.calls++
	}
	b, _ := json.Marshal(res)
	p.texts = append(p.texts, string(b))
	if err != nil {
		p.texts = append(p.texts, err.Error())
	}
	return res, err
}

// do calls a tool that must succeed and returns its whole response, read back through
// last_response (the summary the model sees may cut long lists).
func (p *player) do(name string, args any) map[string]any {
	p.t.Helper()
	res, err := p.try(name, args)
	if err != nil || !res.OK() {
		p.t.Fatalf("%s %v: %+v, %v", name, args, res, err)
	}
	key := name
	if op, ok := args.(map[string]any)[opArgField].(string); ok {
		key = op
	}
	full, err := p.try(lastResponseTool, map[string]any{"tool": key})
	if err != nil {
		p.t.Fatalf("last_response %s: %v", key, err)
	}
	_, body, _ := strings.Cut(full.Output, "\n")
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		p.t.Fatalf("%s: response is not JSON: %v\n%s", name, err, full.Output)
	}
	return m
}

// waitUntil moves the universe's clock past an RFC 3339 time from a response.
func (p *player) waitUntil(stamp string) {
	p.t.Helper()
	spectest.WaitUntil(p.t, p.clock, stamp)
}

func (p *player) checkTokenNeverShown() {
	p.t.Helper()
	obs, err := p.g.Observe(context.Background())
	if err != nil {
		p.t.Fatal(err)
	}
	all := strings.Join(append(p.texts, obs.Summary, p.g.Info().Rules), "\n")
	if strings.Contains(all, p.token) {
		p.t.Errorf("the token appears in a result, an error or the observation")
	}
}

// Short names for reading the decoded JSON of an answer.
var (
	dig = spectest.Dig
	sv  = spectest.Str
	nv  = spectest.Num
)

func TestUniverseReadsActsAndRefuses(t *testing.T) {
	t.Parallel()
	p := newPlayer(t, CatalogOps)
	agent := p.do("get-my-agent", map[string]any{})
	if sv(agent, "data.symbol") != "OPENAPI" {
		t.Fatalf("get-my-agent = %v", agent)
	}
	ships := p.do("get-my-ships", map[string]any{"limit": 10})
	ship := sv(ships, "data.0.symbol")
	if ship == "" {
		t.Fatalf("no ships: %v", ships)
	}
	orbit := p.do("orbit-ship", map[string]any{"shipSymbol": ship})
	if sv(orbit, "data.nav.status") != "IN_ORBIT" {
		t.Errorf("orbit-ship = %v", orbit)
	}

	before := p.sent.count()
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"orbit-ship", map[string]any{}, "arguments.shipSymbol: expected required"},
		{"navigate-ship", map[string]any{"waypointSymbol": "X1-A1"}, "arguments.shipSymbol: expected required"},
		{"patch-ship-nav", map[string]any{"shipSymbol": ship, "flightMode": "cruise"}, "did you mean CRUISE?"},
		{"get-my-ship", map[string]any{"shipSymbol": "../agent"}, "one URL path segment"},
	} {
		_, err := p.try(tc.name, tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: %v, want a validation error with %q", tc.name, tc.args, err, tc.want)
		}
	}
	if n := p.sent.count() - before; n != 0 {
		t.Errorf("%d requests were sent for calls refused by validation", n)
	}
	// Through the registry the agent uses: the schema is checked there first.
	reg := game.NewRegistry(p.g)
	if _, err := reg.Call(context.Background(), "patch-ship-nav", json.RawMessage(`{"shipSymbol":"`+ship+`","flightMode":"cruise"}`)); err == nil ||
		!strings.Contains(err.Error(), "did you mean CRUISE?") {
		t.Errorf("registry call with flightMode cruise: %v", err)
	}
	if res, err := reg.Call(context.Background(), "get-ship-nav", json.RawMessage(`{"shipSymbol":"`+ship+`"}`)); err != nil || !strings.Contains(res.Output, "IN_ORBIT") {
		t.Errorf("registry call of get-ship-nav = %+v, %v", res, err)
	}
	// A refusal by the game is a result with the game's code, not an error.
	res, err := p.try("dock-ship", map[string]any{"shipSymbol": "NO-SUCH-SHIP"})
	if err != nil || res.Err == nil || res.Err.Code < 400 {
		t.Errorf("dock-ship of an unknown ship = %+v, %v", res, err)
	}
	p.checkTokenNeverShown()
}

func TestUniverseStartingContractThroughGenericTools(t *testing.T) {
	t.Parallel()
	for _, catalog := range []string{CatalogOps, CatalogGrouped} {
		t.Run(catalog, func(t *testing.T) {
			p := newPlayer(t, catalog)
			tool := func(op, ops string) (string, map[string]any) {
				if catalog == CatalogOps {
					return op, map[string]any{}
				}
				return ops, map[string]any{opArgField: op}
			}
			do := func(op, group string, args map[string]any) map[string]any {
				name, full := tool(op, group)
				for k, v := range args {
					full[k] = v
				}
				return p.do(name, full)
			}
			start := nv(do("get-my-agent", "agents_read", nil), "data.credits")
			contracts := do("get-contracts", "contracts_read", nil)
			id := sv(contracts, "data.0.id")
			acc := do("accept-contract", "contracts_act", map[string]any{"contractId": id})
			good := sv(acc, "data.contract.terms.deliver.0.tradeSymbol")
			dest := sv(acc, "data.contract.terms.deliver.0.destinationSymbol")
			need := int(nv(acc, "data.contract.terms.deliver.0.unitsRequired"))
			if id == "" || good == "" || dest == "" || need == 0 {
				t.Fatalf("accepted contract: %v", acc)
			}
			ships := do("get-my-ships", "fleet_read", nil)
			ship := sv(ships, "data.0.symbol")
			home := sv(ships, "data.0.nav.systemSymbol")
			mines := do("get-system-waypoints", "systems_read", map[string]any{"systemSymbol": home, "type": "ENGINEERED_ASTEROID", "traits": "MARKETPLACE"})
			mine := sv(mines, "data.0.symbol")
			if mine == "" {
				t.Fatalf("no engineered asteroid with a market in %s: %v", home, mines)
			}
			fly := func(to string) {
				if sv(do("get-ship-nav", "fleet_read", map[string]any{"shipSymbol": ship}), "data.waypointSymbol") == to {
					return
				}
				do("orbit-ship", "fleet_act", map[string]any{"shipSymbol": ship})
				nav := do("navigate-ship", "fleet_act", map[string]any{"shipSymbol": ship, "waypointSymbol": to})
				p.waitUntil(sv(nav, "data.nav.route.arrival"))
			}
			do("orbit-ship", "fleet_act", map[string]any{"shipSymbol": ship})
			do("patch-ship-nav", "fleet_act", map[string]any{"shipSymbol": ship, "flightMode": "CRUISE"})
			delivered := 0
			for trip := 0; delivered < need; trip++ {
				if trip > 5 {
					t.Fatalf("after %d trips %d of %d %s delivered", trip, delivered, need, good)
				}
				fly(mine)
				do("dock-ship", "fleet_act", map[string]any{"shipSymbol": ship})
				market := do("get-market", "systems_read", map[string]any{"systemSymbol": home, "waypointSymbol": mine})
				volume := 0
				for _, g := range dig(market, "data.tradeGoods").([]any) {
					if sv(g, "symbol") == good {
						volume = int(nv(g, "tradeVolume"))
					}
				}
				if volume == 0 {
					t.Fatalf("%s does not sell %s: %v", mine, good, market)
				}
				cargo := do("get-my-ship-cargo", "fleet_read", map[string]any{"shipSymbol": ship})
				want := min(need-delivered, int(nv(cargo, "data.capacity")-nv(cargo, "data.units")))
				for bought := 0; bought < want; {
					units := min(volume, want-bought)
					do("purchase-cargo", "fleet_act", map[string]any{"shipSymbol": ship, "symbol": good, "units": units})
					bought += units
				}
				do("refuel-ship", "fleet_act", map[string]any{"shipSymbol": ship})
				fly(dest)
				do("dock-ship", "fleet_act", map[string]any{"shipSymbol": ship})
				do("deliver-contract", "contracts_act", map[string]any{"contractId": id, "shipSymbol": ship, "tradeSymbol": good, "units": want})
				delivered += want
			}
			done := do("fulfill-contract", "contracts_act", map[string]any{"contractId": id})
			if !dig(done, "data.contract.fulfilled").(bool) {
				t.Errorf("contract not fulfilled: %v", done)
			}
			end := nv(done, "data.agent.credits")
			t.Logf("%s catalogue: %d calls, credits %.0f -> %.0f", catalog, p.calls, start, end)
			obs, err := p.g.Observe(context.Background())
			if err != nil || !strings.Contains(obs.Summary, "## get-my-agent") || !strings.Contains(obs.Summary, strconv.FormatFloat(end, 'f', -1, 64)) {
				t.Errorf("observation after the contract = %q, %v; want the agent with %.0f credits", obs.Summary, err, end)
			}
			if !slices.Contains(obs.Metrics, game.Metric{Name: "credits", Value: end}) {
				t.Errorf("observation metrics = %v, want credits %.0f", obs.Metrics, end)
			}
			p.checkTokenNeverShown()
		})
	}
}

// TestUniverseRateLimitIsWaitedOut reads faster than the universe's limit allows: the
// client paces itself to the budget the universe publishes (or waits out a 429) and
// every read succeeds.
func TestUniverseRateLimitIsWaitedOut(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits out a real rate limit for a few seconds")
	}
	spec := needSpaceTraders(t)
	// The real limit's shape on a clock four times as fast (8 a second, a burst of 30 per
	// 15 s; the real one is 2 a second, 30 per minute): the same pacing, in a quarter of
	// the time. The client learns the budget from the universe's x-ratelimit-* headers.
	const quicker = 4
	limit := ratelimit.Budget{PerSecond: 2 * quicker, Burst: 30, BurstWindow: 60 * time.Second / quicker}
	const reads = 54 // 16 more than the universe lets through at once (8 + 30)
	u := universe.New(universe.Config{Seed: 1, RateLimit: true, Limit: limit})
	token, err := u.Register("LIMITED", "COSMIC")
	if err != nil {
		t.Fatal(err)
	}
	var refused atomic.Int32 // 429s the universe answered
	h := u.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		if rec.status == http.StatusTooManyRequests {
			refused.Add(1)
		}
	}))
	t.Cleanup(srv.Close)
	g := mustOpen(t, Config{Spec: spec, BaseURL: srv.URL + "/v2", TokenEnv: "COPLAY_UNIVERSE_TOKEN", Getenv: envOf("COPLAY_UNIVERSE_TOKEN", token)})
	waits := 0
	ctx := game.WithWaitFunc(context.Background(), func(w game.Wait) {
		if !w.Until.IsZero() {
			waits++
		}
	})
	start := time.Now()
	for i := range reads {
		res, err := g.Call(ctx, "get-my-agent", nil)
		if err != nil || !res.OK() {
			t.Fatalf("read %d: %+v, %v", i, res, err)
		}
	}
	took := time.Since(start)
	t.Logf("%d reads in %v, %d waits reported, %d refused by the universe", reads, took.Round(time.Millisecond), waits, refused.Load())
	// The 16 reads beyond what the universe lets through at once take at least 2 s at 8 a
	// second: faster would mean the limit was never reached and the test proved nothing.
	if least := time.Duration(reads-limit.PerSecond-limit.Burst) * time.Second / time.Duration(limit.PerSecond); took < least {
		t.Errorf("%d reads took %v, under the %v the limit allows: it was never reached", reads, took, least)
	}
}

// statusRecorder remembers the status a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}
