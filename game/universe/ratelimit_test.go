package universe

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

func TestRateLimitExactlyPastTheBurst(t *testing.T) {
	c := newTestClient(t, 11, true)
	allowed := limitPerSecond + limitBurst
	for i := range allowed {
		status, m := c.do("get-status", "GET", "/v2", nil)
		if status != http.StatusOK {
			t.Fatalf("request %d of %d: status %d %v, want 200", i+1, allowed, status, m)
		}
	}
	status, m := c.do("get-status", "GET", "/v2", nil)
	if status != http.StatusTooManyRequests || num(m, "error.code") != 429 {
		t.Fatalf("request %d: status %d %v, want 429 with code 429", allowed+1, status, m)
	}
	h := c.log[len(c.log)-1].header
	retry, err := strconv.Atoi(h.Get("Retry-After"))
	if err != nil || retry < 1 {
		t.Errorf("Retry-After = %q, want whole seconds >= 1", h.Get("Retry-After"))
	}
	for _, name := range []string{"x-ratelimit-type", "x-ratelimit-limit-burst", "x-ratelimit-limit-per-second", "x-ratelimit-remaining", "x-ratelimit-reset"} {
		if h.Get(name) == "" {
			t.Errorf("429 response lacks header %s", name)
		}
	}
	if h.Get("x-ratelimit-remaining") != "0" || h.Get("x-ratelimit-limit-burst") != "30" {
		t.Errorf("remaining %q burst %q, want 0 and 30", h.Get("x-ratelimit-remaining"), h.Get("x-ratelimit-limit-burst"))
	}

	// Half a second later the per-second allowance gives exactly one more request.
	c.clock.Advance(500 * time.Millisecond)
	if status, _ := c.do("get-status", "GET", "/v2", nil); status != http.StatusOK {
		t.Errorf("after 0.5 s: status %d, want 200", status)
	}
	if status, _ := c.do("get-status", "GET", "/v2", nil); status != http.StatusTooManyRequests {
		t.Errorf("second request after 0.5 s: status %d, want 429", status)
	}
	// After the burst window the pool is full again.
	c.clock.Advance(burstDuration)
	for i := range allowed {
		if status, _ := c.do("get-status", "GET", "/v2", nil); status != http.StatusOK {
			t.Fatalf("after the burst window, request %d: status %d, want 200", i+1, status)
		}
	}
}

func TestRateLimitOffByDefault(t *testing.T) {
	c := newTestClient(t, 12, false)
	for i := range 100 {
		if status, _ := c.do("get-status", "GET", "/v2", nil); status != http.StatusOK {
			t.Fatalf("request %d with the limit off: status %d", i+1, status)
		}
	}
}
