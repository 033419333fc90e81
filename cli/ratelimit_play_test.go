package cli

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent/llmtest"
	"github.com/coplayhq/coplay/game/ratelimit"
	"github.com/coplayhq/coplay/game/spacetraders"
	"github.com/coplayhq/coplay/game/universe"
)

// TestRateLimitPlayUnattended plays 80 steps with a zero-latency scripted model, every
// call approved, against the offline universe served on loopback with the real rate
// limit's shape on a clock four times as fast (8 requests/s, burst 30 per 15 s; the real
// one is 2/s, burst 30 per 60 s), server and client alike, through the counting proxy:
// the same 429s and Retry-After waits, in a quarter of the time. Under the real
// limit unattended play used to go idle for good within 9–29 steps (a 429 while
// observing ended the turn). Now every rate limit is a wait: the run must reach step 80
// with no idle turn, no error and no result that speaks of a rate limit.
func TestRateLimitPlayUnattended(t *testing.T) {
	t.Parallel()
	const steps = 80
	const quicker = 4 // how much faster the limit's clock runs than the real game's
	limit := ratelimit.Budget{PerSecond: 2 * quicker, Burst: 30, BurstWindow: 60 * time.Second / quicker}
	p, token := newCountingUniverseOf(t, universe.Config{Seed: 21, RateLimit: true, Limit: limit})
	g := spacetraders.New(spacetraders.Config{BaseURL: p.URL, Token: token, RateLimit: spacetraders.RateLimit{
		PerSecond: float64(limit.PerSecond), Burst: limit.Burst, BurstWindow: limit.BurstWindow}}) // the client knows the budget, as it knows the real game's
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	snap, err := g.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hq := snap.Agent.Headquarters
	ship := `{"shipSymbol":"` + relShip + `"}`
	cassette := llmtest.Cassette{Name: "unattended", Repeat: true, Steps: []llmtest.Step{
		{Text: "Into orbit; a look around.", Calls: []llmtest.Call{scall("orbit_ship", ship), scall("observe_game", `{}`)}},
		{Text: "What is headquarters like?", Calls: []llmtest.Call{
			scall("observe_detail", `{"view":"waypoint","waypointSymbol":"`+hq+`"}`), scall("dock_ship", ship)}},
		{Text: "Cruise.", Calls: []llmtest.Call{
			scall("set_flight_mode", `{"shipSymbol":"`+relShip+`","flightMode":"CRUISE"}`),
			scall("observe_detail", `{"view":"ship","shipSymbol":"`+relShip+`"}`)}},
		{Text: "Notes, and the system.", Calls: []llmtest.Call{
			scall("update_notes", `{"section":"Situation","text":"COPLAY-1 at headquarters."}`),
			scall("observe_detail", `{"view":"system_waypoints"}`)}},
	}}
	// Another client on the same token (a second coplay, a script) takes a share of the
	// budget for the first seconds, which the client cannot foresee: the server answers
	// 429s, and they must be waited out, not reach the runner.
	intruder, stop := context.WithTimeout(ctx, 10*time.Second/quicker)
	defer stop()
	go func() {
		tick := time.NewTicker(250 * time.Millisecond / quicker)
		defer tick.Stop()
		for {
			select {
			case <-intruder.Done():
				return
			case <-tick.C:
			}
			req, _ := http.NewRequestWithContext(intruder, http.MethodGet, p.URL+"/my/agent", nil)
			req.Header.Set("Authorization", "Bearer "+token)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}
	}()
	f := playCounted(t, p, g, &cassetteBrain{c: cassette}, steps, 4*time.Minute)
	f.report(t, "unattended")
	if f.steps != steps {
		t.Errorf("the run stopped at step %d, want %d", f.steps, steps)
	}
	if len(f.idle) > 0 {
		t.Errorf("the runner went idle %d times: %q", len(f.idle), f.idle)
	}
	if len(f.errs) > 0 {
		t.Errorf("a rate limit or another error reached the runner: %q", f.errs)
	}
	// Every 429 (the intruder's included, which it ignores) is waited out inside the
	// client and never reaches the runner: the checks above.
	t.Logf("unattended: the server answered 429 %d times (the intruder's and ours)", f.limits)
}
