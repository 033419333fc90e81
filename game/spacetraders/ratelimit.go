package spacetraders

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// RateLimit is the request budget a client keeps to: a steady rate plus a burst pool
// that refills as a whole, the way the SpaceTraders server counts. The zero value means
// the real game's limit: 2 requests per second, and a burst of 30 per 60 seconds.
type RateLimit struct {
	PerSecond   float64       // steady rate
	Burst       int           // extra requests allowed above the steady rate …
	BurstWindow time.Duration // … per this window
}

func (r RateLimit) withDefaults() RateLimit {
	if r.PerSecond <= 0 {
		r.PerSecond = 2
	}
	if r.Burst <= 0 {
		r.Burst = 30
	}
	if r.BurstWindow <= 0 {
		r.BurstWindow = 60 * time.Second
	}
	return r
}

// limiter hands out permission to send one request. It is a token bucket of size one
// second's worth at PerSecond, backed by the burst pool; the server's x-ratelimit-*
// headers and 429s move its estimate so several clients on one token stay polite.
type limiter struct {
	mu         sync.Mutex
	cfg        RateLimit
	now        func() time.Time
	tokens     float64   // steady tokens available
	last       time.Time // when tokens was computed
	burst      int       // burst requests left in this window
	burstReset time.Time // when the burst pool is full again
	blocked    time.Time // the server said: nothing before this
}

func newLimiter(cfg RateLimit) *limiter {
	cfg = cfg.withDefaults()
	return &limiter{cfg: cfg, now: time.Now, tokens: cfg.PerSecond, burst: cfg.Burst}
}

// reserve takes one request's permission and returns how long to wait before sending
// it; zero means now.
func (l *limiter) reserve() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.refill(now)
	if now.Before(l.blocked) {
		return l.blocked.Sub(now)
	}
	if l.tokens >= 1 {
		l.tokens--
		return 0
	}
	if l.burst > 0 {
		if l.burst == l.cfg.Burst {
			l.burstReset = now.Add(l.cfg.BurstWindow)
		}
		l.burst--
		return 0
	}
	// Spend a steady token that is not there yet; the caller waits for it.
	wait := time.Duration((1 - l.tokens) / l.cfg.PerSecond * float64(time.Second))
	l.tokens--
	return wait
}

func (l *limiter) refill(now time.Time) {
	if !l.last.IsZero() {
		l.tokens += now.Sub(l.last).Seconds() * l.cfg.PerSecond
		if l.tokens > l.cfg.PerSecond {
			l.tokens = l.cfg.PerSecond
		}
	}
	l.last = now
	if l.burst < l.cfg.Burst && !now.Before(l.burstReset) {
		l.burst = l.cfg.Burst
	}
}

// wait blocks until a request may be sent, or returns a *RateLimitError without waiting
// when that would take longer than max.
func (l *limiter) wait(ctx context.Context, max time.Duration) error {
	d := l.reserve()
	if d <= 0 {
		return nil
	}
	if d > max {
		l.unreserve()
		return &RateLimitError{RetryAt: l.now().Add(d), Reason: "client-side rate limit"}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		l.unreserve()
		return ctx.Err()
	}
}

// unreserve gives back a steady token taken by a request that was not sent.
func (l *limiter) unreserve() {
	l.mu.Lock()
	l.tokens++
	l.mu.Unlock()
}

// observe corrects the estimate from a response's headers. x-ratelimit-remaining is the
// burst pool left and x-ratelimit-reset when it is full again; Retry-After (seconds) on a
// 429 blocks everything until then.
func (l *limiter) observe(h http.Header, status int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if v := h.Get("x-ratelimit-remaining"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 && n < l.burst {
			l.burst = n
		}
	}
	if v := h.Get("x-ratelimit-reset"); v != "" {
		if t, err := time.Parse(time.RFC3339, v); err == nil && t.After(now) {
			l.burstReset = t
		}
	}
	if status == http.StatusTooManyRequests {
		until := retryAfter(h, now)
		if until.After(l.blocked) {
			l.blocked = until
		}
		l.tokens = 0
	}
}

// retryAfter reads Retry-After (seconds, possibly fractional, or an HTTP date); one
// second when it is absent or unreadable.
func retryAfter(h http.Header, now time.Time) time.Time {
	v := h.Get("Retry-After")
	if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 {
		return now.Add(time.Duration(f * float64(time.Second)))
	}
	if t, err := http.ParseTime(v); err == nil {
		return t
	}
	return now.Add(time.Second)
}
