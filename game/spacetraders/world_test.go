package spacetraders

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/universe"
)

// counted is the offline universe on a fake clock behind a handler that counts the
// requests by method and path and can drop the answer to one of them after the
// universe acted (the outcome-unknown case). The game under test talks to it; truth
// reads the server without going through the game's world.
type counted struct {
	t     *testing.T
	clock *universe.FakeClock
	g     *Game
	truth *Client

	mu        sync.Mutex
	n         map[string]int
	dropAfter string // "METHOD PATH" whose next answer is lost after the universe acted
}

func newCounted(t *testing.T) *counted {
	t.Helper()
	clock := universe.NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	u := universe.New(universe.Config{Seed: 7, Speed: 1, Clock: clock})
	token, err := u.Register("COPLAY", "COSMIC")
	if err != nil {
		t.Fatal(err)
	}
	c := &counted{t: t, clock: clock, n: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Method + " " + strings.TrimPrefix(r.URL.Path, "/v2")
		c.mu.Lock()
		c.n[key]++
		drop := key == c.dropAfter
		if drop {
			c.dropAfter = ""
		}
		c.mu.Unlock()
		if !drop {
			u.Handler().ServeHTTP(w, r)
			return
		}
		u.Handler().ServeHTTP(httptest.NewRecorder(), r)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.(*net.TCPConn).SetLinger(0)
			conn.Close()
		}
	}))
	t.Cleanup(srv.Close)
	fast := RateLimit{PerSecond: 1000, Burst: 1000, BurstWindow: time.Second}
	c.g = New(Config{BaseURL: srv.URL + "/v2", Token: token, Offline: true, Now: clock.Now, TimeScale: 1, RateLimit: fast})
	c.truth = NewClient(strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)+"/v2", token, nil, fast)
	return c
}

// requests returns what was sent since the last call, except the truth's reads, as
// "METHOD PATH×n" sorted, and resets the count.
func (c *counted) requests() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for k, v := range c.n {
		out = append(out, fmt.Sprintf("%s×%d", k, v))
	}
	sort.Strings(out)
	clear(c.n)
	return strings.Join(out, ", ")
}

func (c *counted) call(name string, args string) game.Result {
	c.t.Helper()
	r, err := c.g.Call(context.Background(), name, []byte(args))
	if err != nil {
		c.t.Fatalf("%s %s: %v", name, args, err)
	}
	return r
}

func (c *counted) observe() game.Observation {
	c.t.Helper()
	obs, err := c.g.Observe(context.Background())
	if err != nil {
		c.t.Fatal(err)
	}
	return obs
}

// sameAsServer compares the game's world with what the server says now; the server's
// reads are not counted (they reset the count afterwards).
func (c *counted) sameAsServer(when string) {
	c.t.Helper()
	ctx := context.Background()
	snap, err := c.g.Snapshot(ctx)
	if err != nil {
		c.t.Fatal(err)
	}
	before := c.requests()
	defer func() {
		c.requests()
		c.mu.Lock()
		for _, kv := range strings.Split(before, ", ") {
			if kv == "" {
				continue
			}
			var n int
			i := strings.LastIndex(kv, "×")
			fmt.Sscan(kv[i+len("×"):], &n)
			c.n[kv[:i]] = n
		}
		c.mu.Unlock()
	}()
	a, err := c.truth.Agent(ctx)
	if err != nil {
		c.t.Fatal(err)
	}
	ships, err := c.truth.Ships(ctx)
	if err != nil {
		c.t.Fatal(err)
	}
	ks, err := c.truth.Contracts(ctx)
	if err != nil {
		c.t.Fatal(err)
	}
	checkSame(c.t, when, snap, a, ships, ks)
}

// checkSame fails when the world differs from the server's answers in what a player
// reads: credits, every ship's place, status, route, mode, fuel, cargo and cooldown,
// and the contracts' state.
func checkSame(t testing.TB, when string, snap Snapshot, a *Agent, ships []Ship, ks []Contract) {
	t.Helper()
	if snap.Agent.Credits != a.Credits || snap.Agent.ShipCount != a.ShipCount {
		t.Errorf("%s: agent %+v, server %+v", when, snap.Agent, *a)
	}
	if len(snap.Ships) != len(ships) {
		t.Fatalf("%s: %d ships, server %d", when, len(snap.Ships), len(ships))
	}
	for i := range ships {
		want := ships[i]
		settle(&want, snap.Time)
		got := snap.Ship(want.Symbol)
		if got == nil {
			t.Errorf("%s: no ship %s", when, want.Symbol)
			continue
		}
		if g, w := shipFacts(got), shipFacts(&want); g != w {
			t.Errorf("%s: ship %s\n world  %s\n server %s", when, want.Symbol, g, w)
		}
	}
	if len(snap.Contracts) != len(ks) {
		t.Fatalf("%s: %d contracts, server %d", when, len(snap.Contracts), len(ks))
	}
	for i := range ks {
		if g, w := fmt.Sprintf("%+v", snap.Contracts[i]), fmt.Sprintf("%+v", ks[i]); g != w {
			t.Errorf("%s: contract\n world  %s\n server %s", when, g, w)
		}
	}
}

func shipFacts(s *Ship) string {
	inv := make([]string, 0, len(s.Cargo.Inventory))
	for _, it := range s.Cargo.Inventory {
		inv = append(inv, fmt.Sprintf("%s×%d", it.Symbol, it.Units))
	}
	sort.Strings(inv)
	return fmt.Sprintf("%s %s %s %s→%s arr %s · fuel %d/%d · cargo %d/%d %v · cooldown %s",
		s.Nav.Status, s.Nav.SystemSymbol, s.Nav.WaypointSymbol, s.Nav.Route.Origin.Symbol, s.Nav.Route.Destination.Symbol,
		s.Nav.Route.Arrival.UTC().Format(time.RFC3339), s.Fuel.Current, s.Fuel.Capacity, s.Cargo.Units, s.Cargo.Capacity, inv,
		s.Cooldown.Expiration.UTC().Format(time.RFC3339))
}

func TestWorldLooksWithoutRequests(t *testing.T) {
	c := newCounted(t)
	c.observe()
	if got, want := c.requests(), "GET /my/agent×1, GET /my/contracts×1, GET /my/ships×1, GET /systems/X1-MA52×1"; got != want {
		t.Fatalf("first look: %s, want %s", got, want)
	}
	c.observe()
	c.call("observe_game", `{}`)
	c.call("observe_detail", `{"view":"ship","shipSymbol":"`+cmd+`"}`)
	if got := c.requests(); got != "" {
		t.Fatalf("looking again cost %s", got)
	}
	// An action costs its own request and nothing more; its answer keeps the world.
	c.call(ToolOrbitShip, `{"shipSymbol":"`+cmd+`"}`)
	obs := c.observe()
	if got := c.requests(); got != "POST /my/ships/COPLAY-1/orbit×1" {
		t.Fatalf("orbit and a look cost %s", got)
	}
	if !strings.Contains(obs.Summary, cmd+" (COMMAND) IN_ORBIT at "+home) {
		t.Errorf("summary after orbit:\n%s", obs.Summary)
	}
	// A dry run reads the world: no request.
	sim, ok, err := c.g.Simulate(context.Background(), ToolNavigateShip, []byte(`{"shipSymbol":"`+cmd+`","waypointSymbol":"`+far+`"}`))
	if err != nil || !ok || !strings.Contains(sim.Summary, "uses 139 fuel") {
		t.Fatalf("dry run: %+v %v %v", sim, ok, err)
	}
	if got := c.requests(); got != "" {
		t.Fatalf("a dry run cost %s", got)
	}
	c.sameAsServer("after orbit")
}

func TestWorldFollowsEveryAction(t *testing.T) {
	c := newCounted(t)
	c.observe()
	ship := `"shipSymbol":"` + cmd + `"`
	ks, _ := c.truth.Contracts(context.Background())
	id := ks[0].ID
	c.requests()
	steps := []struct{ tool, args string }{
		{ToolAcceptContract, `{"contractId":"` + id + `"}`},
		{ToolSetFlightMode, `{` + ship + `,"flightMode":"BURN"}`},
		{ToolSetFlightMode, `{` + ship + `,"flightMode":"CRUISE"}`},
		{ToolRefuelShip, `{` + ship + `}`},
		{ToolPurchaseCargo, `{` + ship + `,"symbol":"FUEL","units":2}`},
		{ToolSellCargo, `{` + ship + `,"symbol":"FUEL","units":1}`},
		{ToolJettisonCargo, `{` + ship + `,"symbol":"FUEL","units":1}`},
		{ToolOrbitShip, `{` + ship + `}`},
		{ToolNavigateShip, `{` + ship + `,"waypointSymbol":"` + rock + `"}`},
		{"arrive", ""},
		{ToolExtractResources, `{` + ship + `}`},
		{"cool", ""},
		{ToolCreateSurvey, `{` + ship + `}`},
		{"cool", ""},
		{ToolDockShip, `{` + ship + `}`},
		{"observe_detail", `{"view":"market","waypointSymbol":"` + rock + `"}`},
	}
	for _, st := range steps {
		switch st.tool {
		case "arrive":
			s := c.g.w.ship(cmd)
			c.clock.Advance(s.Nav.Route.Arrival.Sub(c.clock.Now()) + time.Second)
			c.sameAsServer("after the arrival time")
		case "cool":
			s := c.g.w.ship(cmd)
			c.clock.Advance(s.Cooldown.Expiration.Sub(c.clock.Now()) + time.Second)
			c.sameAsServer("after the cooldown")
		default:
			r := c.call(st.tool, st.args)
			if !r.OK() {
				t.Fatalf("%s %s: %+v %s", st.tool, st.args, r.Err, r.Output)
			}
			got := c.requests()
			if strings.Count(got, "×") != 1 {
				t.Errorf("%s cost %s; want its own request only", st.tool, got)
			}
			c.sameAsServer("after " + st.tool)
		}
	}
	c.observe()
	if got := c.requests(); got != "" {
		t.Fatalf("the whole play kept the world: the last look cost %s", got)
	}
}

func TestWorldComputesArrivalAndKeepsTimesAbsolute(t *testing.T) {
	c := newCounted(t)
	c.observe()
	c.requests()
	c.call(ToolOrbitShip, `{"shipSymbol":"`+cmd+`"}`)
	c.call(ToolNavigateShip, `{"shipSymbol":"`+cmd+`","waypointSymbol":"`+far+`"}`)
	obs := c.observe()
	if got := c.requests(); strings.Contains(got, "GET") {
		t.Fatalf("orbit, navigate and a look cost %s", got)
	}
	arrival := c.g.w.ship(cmd).Nav.Route.Arrival
	if len(obs.Timers) != 1 || !obs.Timers[0].End.Equal(arrival) || obs.Timers[0].Start.IsZero() || !obs.Timers[0].Start.Before(arrival) {
		t.Fatalf("timers %+v, arrival %v: the screen needs Start and End to count down", obs.Timers, arrival)
	}
	if !strings.Contains(obs.Summary, "arrives at "+clock(arrival)) || strings.Contains(obs.Summary, "arrives in") {
		t.Errorf("the summary must give the clock time only, not a countdown that goes stale:\n%s", obs.Summary)
	}
	c.clock.Advance(arrival.Sub(c.clock.Now()) + time.Second)
	obs = c.observe()
	if got := c.requests(); got != "" {
		t.Fatalf("the arrival cost %s: it is computed from the time", got)
	}
	if !strings.Contains(obs.Summary, cmd+" (COMMAND) IN_ORBIT at "+far) || len(obs.Timers) != 0 {
		t.Fatalf("after the arrival time: timers %+v\n%s", obs.Timers, obs.Summary)
	}
	c.sameAsServer("after arriving")
}

func TestWorldReadsAgainAfterAnUnknownOutcome(t *testing.T) {
	c := newCounted(t)
	c.observe()
	c.requests()
	c.mu.Lock()
	c.dropAfter = "POST /my/ships/" + cmd + "/orbit"
	c.mu.Unlock()
	r := c.call(ToolOrbitShip, `{"shipSymbol":"`+cmd+`"}`)
	if !r.Unknown {
		t.Fatalf("a lost answer: %+v", r)
	}
	c.requests()
	obs := c.observe()
	got := c.requests()
	for _, want := range []string{"GET /my/agent×1", "GET /my/contracts×1", "GET /my/ships/" + cmd + "×1"} {
		if !strings.Contains(got, want) {
			t.Errorf("after an unknown outcome the look cost %s; want %s among them", got, want)
		}
	}
	if !strings.Contains(obs.Summary, cmd+" (COMMAND) IN_ORBIT") {
		t.Errorf("the orbit happened; the world must say so:\n%s", obs.Summary)
	}
	c.sameAsServer("after the unknown outcome")
}

func TestWorldReadsAgainWhenARefusalSaysItDiffers(t *testing.T) {
	c := newCounted(t)
	c.call(ToolOrbitShip, `{"shipSymbol":"`+cmd+`"}`)
	c.observe()
	// Behind the world's back (another client on the token), the ship docks.
	if _, err := c.truth.Dock(context.Background(), cmd); err != nil {
		t.Fatal(err)
	}
	c.requests()
	r := c.call(ToolNavigateShip, `{"shipSymbol":"`+cmd+`","waypointSymbol":"`+far+`"}`)
	if r.Err == nil || r.Err.Code != 4236 {
		t.Fatalf("navigate while docked: %+v", r)
	}
	c.requests()
	obs := c.observe()
	if got := c.requests(); got != "GET /my/ships/"+cmd+"×1" {
		t.Fatalf("after a 4236 refusal the look cost %q; want the ship read again, only", got)
	}
	if !strings.Contains(obs.Summary, cmd+" (COMMAND) DOCKED") {
		t.Errorf("the world must say docked now:\n%s", obs.Summary)
	}
	// A ship bought: the answer carries the new ship and the credits left.
	r = c.call("purchase_ship", `{"shipType":"SHIP_LIGHT_HAULER","waypointSymbol":"`+home+`"}`)
	if !r.OK() {
		t.Fatalf("buying a light hauler: %+v %s", r.Err, r.Output)
	}
	c.sameAsServer("after buying a ship")
	// Not enough credits for a second one, though the world thinks it is rich: the
	// agent is read again.
	c.g.w.mu.Lock()
	c.g.w.agent.Credits = 1 << 40
	c.g.w.mu.Unlock()
	r = c.call("purchase_ship", `{"shipType":"SHIP_LIGHT_HAULER","waypointSymbol":"`+home+`"}`)
	if r.Err == nil || r.Err.Code != 4216 {
		t.Fatalf("a second light hauler: %+v", r)
	}
	c.requests()
	c.observe()
	if got := c.requests(); !strings.Contains(got, "GET /my/agent×1") {
		t.Errorf("after refusal %d the look cost %q; want the agent read again", r.Err.Code, got)
	}
	c.sameAsServer("after the refusals")
}

func TestWorldResyncsAfterABound(t *testing.T) {
	c := newCounted(t)
	c.observe()
	c.requests()
	c.clock.Advance(ResyncEvery)
	c.observe()
	if got := c.requests(); got != "GET /my/agent×1, GET /my/contracts×1, GET /my/ships×1" {
		t.Fatalf("after %v the look cost %q; want a full read", ResyncEvery, got)
	}
}

func TestWorldWithNoShipsOrContracts(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/my/agent":
			w.Write([]byte(`{"data":{"symbol":"A","headquarters":"X1-A-B1","credits":5,"startingFaction":"COSMIC","shipCount":0}}`))
		case "/my/ships", "/my/contracts":
			w.Write([]byte(`{"data":[],"meta":{"total":0,"page":1,"limit":20}}`))
		case "/systems/X1-A":
			w.Write([]byte(`{"data":{"symbol":"X1-A","sectorSymbol":"X1","type":"RED_STAR","x":0,"y":0,"waypoints":[],"factions":[]}}`))
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	g := New(Config{BaseURL: srv.URL, Token: "tok", RateLimit: RateLimit{PerSecond: 1000, Burst: 1000, BurstWindow: time.Second}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	obs, err := g.Observe(ctx)
	if err != nil || !strings.Contains(obs.Summary, "0 ships") || !strings.Contains(obs.Summary, "none open") {
		t.Fatalf("an agent with nothing: %v\n%s", err, obs.Summary)
	}
}

func TestDryRunReadsPricesOnlyWhenOld(t *testing.T) {
	c := newCounted(t)
	c.observe()
	c.requests()
	buy := []byte(`{"shipSymbol":"` + cmd + `","symbol":"FUEL","units":1}`)
	simulate := func() string {
		sim, ok, err := c.g.Simulate(context.Background(), ToolPurchaseCargo, buy)
		if err != nil || !ok || sim.Fails {
			t.Fatalf("dry run: %+v %v %v", sim, ok, err)
		}
		return c.requests()
	}
	market := "GET /systems/X1-MA52/waypoints/" + home + "/market×1"
	if got := simulate(); got != market {
		t.Fatalf("first dry run cost %q, want the market read once", got)
	}
	if got := simulate(); got != "" {
		t.Fatalf("second dry run cost %q, want nothing", got)
	}
	c.clock.Advance(c.g.PriceMaxAge() + time.Second) // past ResyncEvery too: everything is read
	if got := simulate(); !strings.Contains(got, market) {
		t.Fatalf("a dry run with prices older than %v cost %q, want the market read again", c.g.PriceMaxAge(), got)
	}
}
