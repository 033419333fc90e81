package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/autopilot"
	"github.com/coplayhq/coplay/agent/llmtest"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/spacetraders"
	"github.com/coplayhq/coplay/game/universe"
)

// countingProxy is an httputil.ReverseProxy on loopback in front of a universe server
// (what coplay serve-universe runs), counting the requests that pass by method and path
// template ("POST /v2/my/ships/{ship}/orbit") and the 429s the server answered.
type countingProxy struct {
	URL string // the API root through the proxy, .../v2

	mu     sync.Mutex
	counts map[string]int
	limits int // 429s
}

// newCountingUniverse serves a fresh universe on loopback (with the real rate limit when
// limited) behind a counting proxy, registers an agent and returns the proxy and the
// agent's token.
func newCountingUniverse(t testing.TB, seed int64, speed float64, limited bool) (*countingProxy, string) {
	t.Helper()
	return newCountingUniverseOf(t, universe.Config{Seed: seed, Speed: speed, RateLimit: limited})
}

// newCountingUniverseOf is newCountingUniverse for a universe configured in full (a rate
// limit on a shorter clock).
func newCountingUniverseOf(t testing.TB, cfg universe.Config) (*countingProxy, string) {
	t.Helper()
	u := universe.New(cfg)
	token, err := u.Register("COPLAY", "COSMIC")
	if err != nil {
		t.Fatal(err)
	}
	origin := httptest.NewServer(u.Handler())
	t.Cleanup(origin.Close)
	target, _ := url.Parse(origin.URL)
	p := &countingProxy{counts: map[string]int{}}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ModifyResponse = func(r *http.Response) error {
		if r.StatusCode == http.StatusTooManyRequests {
			p.mu.Lock()
			p.limits++
			p.mu.Unlock()
		}
		return nil
	}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.counts[r.Method+" "+pathTemplate(r.URL.Path)]++
		p.mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	p.URL = front.URL + "/v2"
	return p, token
}

// pathTemplate replaces the symbols and ids in a SpaceTraders path by their parameter
// names: /v2/my/ships/COPLAY-1/orbit → /v2/my/ships/{ship}/orbit.
func pathTemplate(path string) string {
	seg := strings.Split(path, "/")
	names := map[string]string{"ships": "{ship}", "contracts": "{contract}", "systems": "{system}", "waypoints": "{waypoint}"}
	for i := 1; i < len(seg); i++ {
		if name, ok := names[seg[i-1]]; ok && seg[i] != "" {
			seg[i] = name
		}
	}
	return strings.Join(seg, "/")
}

// snapshot returns the counts so far and their total.
func (p *countingProxy) snapshot() (map[string]int, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := make(map[string]int, len(p.counts))
	n := 0
	for k, v := range p.counts {
		c[k] = v
		n += v
	}
	return c, n
}

// playFigures is what one counted run measured.
type playFigures struct {
	steps, actions, reads, requests, limits int
	idle, errs                              []string
	byOp                                    map[string]int
	elapsed                                 time.Duration
}

// report prints the figures: requests per step and per action with a breakdown by
// operation, and steps per minute at the real limit for a zero-latency model.
func (f playFigures) report(t testing.TB, name string) {
	t.Helper()
	perStep := float64(f.requests) / float64(f.steps)
	perAction := float64(f.requests) / float64(max(1, f.actions))
	// At 2 requests/s sustained (after the burst), a zero-latency player makes
	// 120/perStep steps a minute.
	t.Logf("%s: %d steps, %d actions, %d reads, %d game requests (%d answered 429) in %v", name, f.steps, f.actions, f.reads, f.requests, f.limits, f.elapsed.Round(time.Millisecond))
	t.Logf("%s: %.2f requests per step, %.3f per action; at 2 req/s that is %.0f steps a minute", name, perStep, perAction, 120/perStep)
	ops := make([]string, 0, len(f.byOp))
	for k := range f.byOp {
		ops = append(ops, k)
	}
	sort.Slice(ops, func(i, j int) bool {
		return f.byOp[ops[i]] > f.byOp[ops[j]] || f.byOp[ops[i]] == f.byOp[ops[j]] && ops[i] < ops[j]
	})
	for _, op := range ops {
		t.Logf("%s:   %5d  %s", name, f.byOp[op], op)
	}
}

// playCounted runs brain on g for steps steps, --approve all, resuming whenever the
// runner goes idle, and returns what the proxy counted.
func playCounted(t testing.TB, p *countingProxy, g *spacetraders.Game, brain agent.Brain, steps int, limit time.Duration) playFigures {
	t.Helper()
	_, sess := newSession(t, "requests", "spacetraders", brain.Name())
	r, err := agent.New(agent.Config{Game: g, Brain: brain, Session: sess, ApproveAll: true,
		MaxSteps: steps, MaxIterations: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var f playFigures
	start := time.Now()
	_, err = drive(ctx, r, false, func(r *agent.Runner, ev agent.Event) {
		switch ev.Type {
		case agent.EventStep:
			f.steps = ev.Step
		case agent.EventResult:
			switch ev.Call.Kind {
			case game.Act:
				f.actions++
			case game.Read:
				f.reads++
			}
			if ev.Result != nil && strings.Contains(strings.ToLower(ev.Result.Output), "rate limit") {
				f.errs = append(f.errs, "a result speaks of the rate limit: "+ev.Result.Output)
			}
		case agent.EventError:
			f.errs = append(f.errs, ev.Text)
		case agent.EventState:
			if ev.State == agent.Idle {
				f.idle = append(f.idle, fmt.Sprintf("step %d: %s", f.steps, ev.Text))
				r.Send(agent.Command{Cmd: agent.CmdResume})
			}
		}
	})
	f.elapsed = time.Since(start)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	f.byOp, f.requests = p.snapshot()
	p.mu.Lock()
	f.limits = p.limits
	p.mu.Unlock()
	return f
}

// orbitDockCassette is a model that alternates orbit_ship and dock_ship and looks with
// observe_game every step.
func orbitDockCassette() llmtest.Cassette {
	ship := `{"shipSymbol":"` + relShip + `"}`
	return llmtest.Cassette{Name: "orbit-dock", Repeat: true, Steps: []llmtest.Step{
		{Text: "Up.", Calls: []llmtest.Call{scall("orbit_ship", ship), scall("observe_game", `{}`)}},
		{Text: "Down.", Calls: []llmtest.Call{scall("dock_ship", ship), scall("observe_game", `{}`)}},
	}}
}

// TestRequestsPerActionModel counts the game requests a model playing costs: at most
// 1.3 per action (observing reads the live world, which the actions keep current).
func TestRequestsPerActionModel(t *testing.T) {
	t.Parallel()
	steps := 200
	if testing.Short() {
		steps = 60
	}
	p, token := newCountingUniverse(t, 11, 0, false)
	g := spacetraders.New(spacetraders.Config{BaseURL: p.URL, Token: token,
		RateLimit: spacetraders.RateLimit{PerSecond: 1000, Burst: 1000, BurstWindow: time.Second}})
	f := playCounted(t, p, g, &cassetteBrain{c: orbitDockCassette()}, steps, 2*time.Minute)
	f.report(t, "model")
	if f.steps != steps || f.actions != steps {
		t.Fatalf("played %d steps with %d actions, want %d of each", f.steps, f.actions, steps)
	}
	if len(f.errs) > 0 || len(f.idle) > 0 {
		t.Fatalf("errors %q, idle %q", f.errs, f.idle)
	}
	if per := float64(f.requests) / float64(f.actions); per > 1.3 {
		t.Errorf("%.3f game requests per action, want at most 1.3", per)
	}
	for _, read := range []string{"GET /v2/my/agent", "GET /v2/my/ships", "GET /v2/my/contracts"} {
		if f.byOp[read] > 1 {
			t.Errorf("%s sent %d times: the world was read again without a reason", read, f.byOp[read])
		}
	}
}

// TestRequestsPerActionAutopilot counts the game requests the autopilot costs: at most
// 1.5 per action over a run that flies, mines or buys, trades and delivers. The universe
// runs at speed 400 so that trips take moments (which makes prices age 400 times faster
// too: the worst case for market reads); COPLAY_AUTOPILOT_SPEED=10 measures at the
// offline default, COPLAY_AUTOPILOT_STEPS sets the length.
func TestRequestsPerActionAutopilot(t *testing.T) {
	t.Parallel()
	steps := 150
	if testing.Short() {
		steps = 60
	}
	speed := 400.0
	if v, err := strconv.ParseFloat(os.Getenv("COPLAY_AUTOPILOT_SPEED"), 64); err == nil && v > 0 {
		speed = v
	}
	if v, err := strconv.Atoi(os.Getenv("COPLAY_AUTOPILOT_STEPS")); err == nil && v > 0 {
		steps = v
	}
	p, token := newCountingUniverse(t, 3, speed, false)
	g := spacetraders.New(spacetraders.Config{BaseURL: p.URL, Token: token, TimeScale: speed,
		RateLimit: spacetraders.RateLimit{PerSecond: 1000, Burst: 1000, BurstWindow: time.Second}})
	f := playCounted(t, p, g, autopilot.New(g), steps, 30*time.Minute)
	f.report(t, "autopilot")
	if f.actions < steps/2 {
		t.Fatalf("only %d actions in %d steps: the autopilot did not play", f.actions, f.steps)
	}
	if len(f.errs) > 0 {
		t.Fatalf("errors: %q", f.errs)
	}
	if per := float64(f.requests) / float64(f.actions); per > 1.5 {
		t.Errorf("%.3f game requests per action, want at most 1.5", per)
	}
}
