package spacetraders

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/internal/drivertest"
	"github.com/coplayhq/coplay/game/universe"
)

// seatCall runs a tool for a seat through the Registry the agent uses, and fails the
// test unless it succeeded.
func seatCall(t *testing.T, g game.Game, name string, args map[string]any) string {
	t.Helper()
	r, err := game.NewRegistry(g).Call(context.Background(), name, drivertest.Args(t, args))
	if err != nil || !r.OK() {
		t.Fatalf("%s %v: %v %+v %s", name, args, err, r.Err, r.Output)
	}
	return r.Output
}

// fuelSellPrice is what the HQ's market pays for FUEL, as the seat's game reads it.
func fuelSellPrice(t *testing.T, g *Game) int64 {
	t.Helper()
	m, _, err := g.Market(context.Background(), home, 0)
	if err != nil || m.Good("FUEL") == nil {
		t.Fatalf("market at %s: %+v %v", home, m, err)
	}
	return m.Good("FUEL").SellPrice
}

// ALPHA and BETA in one universe each see their own agent and ships; a sale by one moves
// the price the other sees; and the league saved by one seat resumes whole.
func TestUniverseLeagueSharesMarkets(t *testing.T) {
	clock := universe.NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	opts := game.Values{"seed": int64(7), "speed": 1.0, "no-rate-limit": true}
	ctx := context.Background()
	if _, err := game.OpenLeague(ctx, "universe", game.Env{CheckOnly: true, Options: opts}, []string{"al"}); err == nil || !strings.Contains(err.Error(), "3 to 14") {
		t.Fatalf("a seat too short for a symbol: %v", err)
	}
	l, err := game.OpenLeague(ctx, "universe", game.Env{Clock: clock, Options: opts}, []string{"alpha", "BETA"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	alpha, beta := l.Seats[0].Game.(*Game), l.Seats[1].Game.(*Game)
	for i, g := range []*Game{alpha, beta} {
		sym := []string{"ALPHA", "BETA"}[i]
		snap, err := g.Snapshot(ctx)
		if err != nil || snap.Agent.Symbol != sym || len(snap.Ships) != 2 || !strings.HasPrefix(snap.Ships[0].Symbol, sym+"-") {
			t.Fatalf("seat %s sees %+v (%v)", sym, snap.Agent, err)
		}
	}
	if !strings.HasSuffix(l.Seats[0].Title, "ALPHA") || len(l.Seats[1].Secrets) != 2 {
		t.Fatalf("seat title %q, secrets %d", l.Seats[0].Title, len(l.Seats[1].Secrets))
	}

	ship := "ALPHA-1"
	seatCall(t, alpha, ToolDockShip, map[string]any{"shipSymbol": ship})
	seatCall(t, alpha, ToolPurchaseCargo, map[string]any{"shipSymbol": ship, "symbol": "FUEL", "units": 30})
	before := fuelSellPrice(t, beta)
	seatCall(t, alpha, ToolSellCargo, map[string]any{"shipSymbol": ship, "symbol": "FUEL", "units": 30})
	clock.Advance(time.Second) // BETA's prices are a second old: it reads them again
	if after := fuelSellPrice(t, beta); after >= before {
		t.Fatalf("ALPHA sold 30 FUEL and BETA still sees %d (was %d)", after, before)
	}

	saved, err := l.Seats[1].Save()
	if err != nil {
		t.Fatal(err)
	}
	credits := mustCredits(t, alpha)
	l.Close()
	back, err := game.OpenLeague(ctx, "universe", game.Env{Clock: clock, Resuming: true, SeatStates: map[string][]byte{"BETA": saved}, Options: opts}, []string{"alpha", "BETA"})
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	if got := mustCredits(t, back.Seats[0].Game.(*Game)); got != credits {
		t.Fatalf("ALPHA resumed with %d credits, saved with %d", got, credits)
	}
}

func mustCredits(t *testing.T, g *Game) int64 {
	t.Helper()
	a, err := g.Client().Agent(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return a.Credits
}

// On the real server (here a loopback one), seats take their tokens from
// SPACETRADERS_TOKEN_NAME and share one rate limiter: after the server has told one seat
// to wait an hour, the other seat waits too instead of sending.
func TestServerLeagueSharesTheRateLimit(t *testing.T) {
	seen := make(chan string, 16) // the token of every request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "3600")
		w.Header().Set("x-ratelimit-type", "IP_ADDRESS")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"error": {"code": 429, "message": "Too many requests"}}`))
	}))
	defer srv.Close()
	opts := game.Values{"base-url": srv.URL + "/v2"}
	env := map[string]string{"SPACETRADERS_TOKEN_ALPHA": "token-a"}
	getenv := func(k string) string { return env[k] }
	ctx := context.Background()
	_, err := game.OpenLeague(ctx, "spacetraders", game.Env{Getenv: getenv, CheckOnly: true, Options: opts}, []string{"alpha", "beta"})
	if err == nil || !strings.Contains(err.Error(), "SPACETRADERS_TOKEN_BETA") || strings.Contains(err.Error(), "TOKEN_ALPHA") {
		t.Fatalf("a seat without a token: %v", err)
	}
	env["SPACETRADERS_TOKEN_BETA"] = "token-b"
	l, err := game.OpenLeague(ctx, "spacetraders", game.Env{Getenv: getenv, Options: opts}, []string{"alpha", "beta"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.Seats[0].Save != nil || strings.Join(l.Seats[0].Secrets, ",") != "token-a,token-b" {
		t.Fatalf("seat 0: save %v, secrets %q", l.Seats[0].Save != nil, l.Seats[0].Secrets)
	}
	// ALPHA's request is refused for an hour; it waits (and says so) rather than fail.
	waitsAnHour(t, l.Seats[0].Game.(*Game))
	if len(seen) != 1 || <-seen != "token-a" {
		t.Fatal("ALPHA's request did not reach the server with ALPHA's token")
	}
	// BETA, with its own token, waits for the same hour without sending anything.
	waitsAnHour(t, l.Seats[1].Game.(*Game))
	if len(seen) != 0 {
		t.Fatalf("BETA sent (token %s) while the shared limit said wait", <-seen)
	}
}

// waitsAnHour reads g's agent until the client reports a wait of most of an hour, then
// gives up the call.
func waitsAnHour(t *testing.T, g *Game) {
	t.Helper()
	waiting := make(chan game.Wait, 4)
	ctx, cancel := context.WithCancel(game.WithWaitFunc(context.Background(), func(w game.Wait) {
		if !w.Until.IsZero() {
			waiting <- w
		}
	}))
	done := make(chan struct{})
	go func() { defer close(done); g.Client().Agent(ctx) }()
	select {
	case w := <-waiting:
		if time.Until(w.Until) < 50*time.Minute {
			t.Errorf("the wait ends at %v, not about an hour from now", w.Until)
		}
	case <-time.After(30 * time.Second): // only a hung test waits this long
		t.Fatal("no wait reported")
	}
	cancel()
	<-done
}
