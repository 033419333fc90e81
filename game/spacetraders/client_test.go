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
	c := NewClient(url, "tok", nil, RateLimit{PerSecond: 1000, Burst: 1000, BurstWindow: time.Second})
	c.http.Backoff = time.Millisecond
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

func TestRateLimitIsWaitedOutNotReturned(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			w.Header().Set("x-ratelimit-remaining", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"error":{"message":"slow down","code":429}}`))
			return
		}
		w.Write([]byte(`{"data":{"nav":{"status":"DOCKED","waypointSymbol":"X1-A-B"}}}`))
	}))
	defer srv.Close()
	g := New(Config{BaseURL: srv.URL, Token: "tok", RateLimit: RateLimit{PerSecond: 1000, Burst: 1000, BurstWindow: time.Second}})
	var waits []game.Wait
	ctx := game.WithWaitFunc(context.Background(), func(w game.Wait) { waits = append(waits, w) })
	r, err := g.Call(ctx, ToolDockShip, []byte(`{"shipSymbol":"S-1"}`))
	if err != nil || !r.OK() || r.Wait != nil || n.Load() != 2 || !strings.Contains(r.Output, "DOCKED") {
		t.Fatalf("429 then success: %+v %v after %d requests", r, err, n.Load())
	}
	if len(waits) != 2 || waits[0].Until.IsZero() || !waits[1].Until.IsZero() {
		t.Fatalf("the wait was not reported: %+v", waits)
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
