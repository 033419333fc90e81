package universe

import (
	"math"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/coplayhq/coplay/game/ratelimit"
)

// The real limit (ratelimit.SpaceTraders): every key (token or client address) gets 2
// requests per second, and when those are spent a burst pool of 30 requests that refills
// 60 seconds after it is first drawn on. So with no time passing, 2 + 30 requests pass
// and the next is refused.
const (
	limitPerSecond = 2
	limitBurst     = 30
	burstDuration  = 60 * time.Second
)

// rateLimiter keeps the limit per key.
type rateLimiter struct {
	*ratelimit.Keyed
	b ratelimit.Budget
}

// newRateLimiter keeps budget b, or the real one if b is zero.
func newRateLimiter(b ratelimit.Budget) *rateLimiter {
	if b == (ratelimit.Budget{}) {
		b = ratelimit.Budget{PerSecond: limitPerSecond, Burst: limitBurst, BurstWindow: burstDuration}
	}
	return &rateLimiter{ratelimit.New(b), b}
}

func rateKey(r *http.Request) string {
	if h := r.Header.Get("Authorization"); h != "" {
		return h
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// wrap answers 429 with Retry-After and the x-ratelimit-* headers past the limit, and sets
// those headers on every response as the real server does.
func (l *rateLimiter) wrap(clock Clock, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d := l.Take(rateKey(r), clock.Now())
		h := w.Header()
		h.Set("x-ratelimit-type", "IP-based")
		h.Set("x-ratelimit-limit", strconv.Itoa(l.b.PerSecond))
		h.Set("x-ratelimit-limit-per-second", strconv.Itoa(l.b.PerSecond))
		h.Set("x-ratelimit-limit-burst", strconv.Itoa(l.b.Burst))
		h.Set("x-ratelimit-burst-duration", strconv.Itoa(int(l.b.BurstWindow/time.Second)))
		h.Set("x-ratelimit-remaining", strconv.Itoa(d.Remaining))
		h.Set("x-ratelimit-reset", ts(d.Reset))
		if d.Allowed {
			next.ServeHTTP(w, r)
			return
		}
		h.Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(d.RetryAfter.Seconds())))))
		writeJSON(w, http.StatusTooManyRequests, errorBody(&apiError{
			Code:    http.StatusTooManyRequests,
			Message: "You have reached your API limit. Retry after the time in the Retry-After header.",
			Data: map[string]any{
				"type": "IP-based", "retryAfter": d.RetryAfter.Seconds(), "limitBurst": l.b.Burst,
				"limitPerSecond": l.b.PerSecond, "remaining": d.Remaining, "reset": ts(d.Reset),
			},
		}))
	})
}
