package spacetraders

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coplayhq/coplay/game"
)

func testClient(url string) *Client {
	c := NewClient(url, "tok", nil, RateLimit{PerSecond: 1000, Burst: 1000})
	c.backoff = time.Millisecond
	return c
}

func TestGetRetriesServerErrors(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			t.Errorf("authorization header: %q", r.Header.Get("Authorization"))
		}
		if n.Add(1) < 3 {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		w.Write([]byte(`{"data":{"symbol":"A","headquarters":"X1-A-B","credits":5,"startingFaction":"COSMIC","shipCount":1}}`))
	}))
	defer srv.Close()
	a, err := testClient(srv.URL).Agent(context.Background())
	if err != nil || a.Credits != 5 || n.Load() != 3 {
		t.Fatalf("agent %+v err %v after %d requests", a, err, n.Load())
	}
}

func TestPostIsNeverRetried(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	g := New(Config{BaseURL: srv.URL, Token: "tok", RateLimit: RateLimit{PerSecond: 1000, Burst: 1000}})
	r, err := g.Call(context.Background(), ToolPurchaseCargo, []byte(`{"shipSymbol":"S-1","symbol":"FOOD","units":3}`))
	if err != nil || !r.Unknown || r.OK() || !strings.Contains(r.Output, "Observe before acting again") {
		t.Fatalf("result %+v err %v", r, err)
	}
	if n.Load() != 1 {
		t.Fatalf("a purchase was sent %d times", n.Load())
	}

	// A connection that was never made is known not to have bought anything.
	srv.Close()
	_, err = testClient(srv.URL).Purchase(context.Background(), "S-1", "FOOD", 3)
	var uo *UnknownOutcomeError
	if err == nil || errors.As(err, &uo) || !strings.Contains(err.Error(), "not sent") {
		t.Fatalf("dial failure: %v", err)
	}
}

func TestRateLimitBecomesWait(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Retry-After", "30")
		w.Header().Set("x-ratelimit-remaining", "0")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"error":{"message":"slow down","code":429}}`))
	}))
	defer srv.Close()
	g := New(Config{BaseURL: srv.URL, Token: "tok", RateLimit: RateLimit{PerSecond: 1000, Burst: 1000}})
	start := time.Now()
	r, err := g.Call(context.Background(), ToolDockShip, []byte(`{"shipSymbol":"S-1"}`))
	if err != nil || r.Wait == nil || r.Wait.Until.Sub(start) < 29*time.Second || r.Err != nil {
		t.Fatalf("429: %+v %v", r, err)
	}
	// The limiter now knows: the next call is not even sent.
	r, err = g.Call(context.Background(), ToolOrbitShip, []byte(`{"shipSymbol":"S-1"}`))
	if err != nil || r.Wait == nil || n.Load() != 1 || !strings.Contains(r.Output, "not sent") {
		t.Fatalf("after 429: %+v %v, %d requests", r, err, n.Load())
	}
}

func TestGameErrorKeepsCodeAndMessage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":{"message":"Ship is in transit","code":4214,"data":{"arrival":"2030-01-01T00:00:00Z","secondsToArrival":9}}}`))
	}))
	defer srv.Close()
	g := New(Config{BaseURL: srv.URL, Token: "tok"})
	r, err := g.Call(context.Background(), ToolDockShip, []byte(`{"shipSymbol":"S-1"}`))
	want := &game.Error{Code: 4214, Message: "Ship is in transit"}
	if err != nil || r.Err == nil || r.Err.Code != want.Code || r.Err.Message != want.Message || r.Wait == nil || r.Wait.Until.Year() != 2030 {
		t.Fatalf("%+v %v", r, err)
	}
	if _, err := g.Call(context.Background(), "fly_to_the_moon", nil); err == nil {
		t.Fatal("an unknown tool must be an error")
	}
}

func TestLimiterSpendsBurstThenPaces(t *testing.T) {
	now := time.Unix(0, 0)
	l := newLimiter(RateLimit{PerSecond: 2, Burst: 3, BurstWindow: time.Minute})
	l.now = func() time.Time { return now }
	for i := 0; i < 5; i++ { // 2 steady + 3 burst
		if d := l.reserve(); d != 0 {
			t.Fatalf("request %d waits %v", i, d)
		}
	}
	if d := l.reserve(); d != 500*time.Millisecond {
		t.Fatalf("6th request waits %v, want 500ms", d)
	}
	now = now.Add(time.Minute)
	if d := l.reserve(); d != 0 {
		t.Fatalf("after the window: %v", d)
	}
}
