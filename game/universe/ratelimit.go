package universe

import (
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// The real limit: every key (token or client address) gets 2 requests per second, and when
// those are spent a burst pool of 30 requests that refills 60 seconds after it is first
// drawn on. So with no time passing, 2 + 30 requests pass and the next is refused.
const (
	limitPerSecond = 2
	limitBurst     = 30
	burstDuration  = 60 * time.Second
)

type rateLimiter struct {
	mu   sync.Mutex
	keys map[string]*rateState
}

type rateState struct {
	tokens     float64 // per-second allowance left
	last       time.Time
	burstLeft  int
	burstReset time.Time // zero until the pool is first drawn on
}

func newRateLimiter() *rateLimiter { return &rateLimiter{keys: map[string]*rateState{}} }

type rateDecision struct {
	allowed    bool
	remaining  int
	reset      time.Time
	retryAfter time.Duration
}

func (l *rateLimiter) take(key string, now time.Time) rateDecision {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.keys[key]
	if s == nil {
		s = &rateState{tokens: limitPerSecond, last: now, burstLeft: limitBurst}
		l.keys[key] = s
	}
	if dt := now.Sub(s.last); dt > 0 {
		s.tokens = math.Min(limitPerSecond, s.tokens+dt.Seconds()*limitPerSecond)
		s.last = now
	}
	if !s.burstReset.IsZero() && !now.Before(s.burstReset) {
		s.burstLeft, s.burstReset = limitBurst, time.Time{}
	}
	d := rateDecision{allowed: true}
	switch {
	case s.tokens >= 1:
		s.tokens--
	case s.burstLeft > 0:
		s.burstLeft--
		if s.burstReset.IsZero() {
			s.burstReset = now.Add(burstDuration)
		}
	default:
		d.allowed = false
		d.retryAfter = time.Duration((1 - s.tokens) / limitPerSecond * float64(time.Second))
		if untilBurst := s.burstReset.Sub(now); untilBurst < d.retryAfter {
			d.retryAfter = untilBurst
		}
	}
	d.remaining = s.burstLeft
	d.reset = s.burstReset
	if d.reset.IsZero() {
		d.reset = now.Add(burstDuration)
	}
	return d
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
		d := l.take(rateKey(r), clock.Now())
		h := w.Header()
		h.Set("x-ratelimit-type", "IP-based")
		h.Set("x-ratelimit-limit", strconv.Itoa(limitPerSecond))
		h.Set("x-ratelimit-limit-per-second", strconv.Itoa(limitPerSecond))
		h.Set("x-ratelimit-limit-burst", strconv.Itoa(limitBurst))
		h.Set("x-ratelimit-burst-duration", strconv.Itoa(int(burstDuration/time.Second)))
		h.Set("x-ratelimit-remaining", strconv.Itoa(d.remaining))
		h.Set("x-ratelimit-reset", ts(d.reset))
		if d.allowed {
			next.ServeHTTP(w, r)
			return
		}
		h.Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(d.retryAfter.Seconds())))))
		writeJSON(w, http.StatusTooManyRequests, errorBody(&apiError{
			Code:    http.StatusTooManyRequests,
			Message: "You have reached your API limit. Retry after the time in the Retry-After header.",
			Data: map[string]any{
				"type": "IP-based", "retryAfter": d.retryAfter.Seconds(), "limitBurst": limitBurst,
				"limitPerSecond": limitPerSecond, "remaining": d.remaining, "reset": ts(d.reset),
			},
		}))
	})
}
