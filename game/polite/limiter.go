package polite

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Budget is a server's published request budget: a steady rate whose bucket holds one
// second's worth, plus a burst pool that is spent only when the bucket is empty and
// refills as a whole BurstWindow after it was first drawn on. SpaceTraders publishes 2
// per second and a burst of 30 per 60 seconds.
type Budget struct {
	PerSecond   float64       // steady rate; the bucket holds max(1, PerSecond) requests
	Burst       int           // extra requests above the steady rate …
	BurstWindow time.Duration // … per this window
}

// String reads like "2/s, burst 30 per 1m0s".
func (b Budget) String() string {
	return fmt.Sprintf("%g/s, burst %d per %v", b.PerSecond, b.Burst, b.BurstWindow)
}

func (b Budget) valid() bool { return b.PerSecond > 0 && b.Burst >= 0 && b.BurstWindow > 0 }

// Defaults of the margins a Limiter keeps against what it cannot see: the time a request
// takes to reach the server varies, so two requests sent exactly one interval apart may
// arrive closer together, and the server starts its burst window when the request
// arrives, not when it left.
const (
	// DefaultSlack is the fraction of the steady rate left unused.
	DefaultSlack = 0.03
	// DefaultKeepBurst is how many burst requests are kept back for such jitter.
	DefaultKeepBurst = 2
	// burstMargin is added to the burst window the client estimates by itself.
	burstMargin = time.Second
)

// Limiter hands out permission to send one request at a time so that the requests never
// exceed a Budget. Every permission takes a token, reserved for the caller even when it
// must wait for it, so concurrent callers get distinct slots. It is safe for concurrent
// use.
type Limiter struct {
	mu        sync.Mutex
	budget    Budget
	now       func() time.Time
	slack     float64
	keepBurst int

	tat        time.Time // the steady bucket's theoretical arrival time (GCRA)
	burst      int       // burst requests left in this window
	burstReset time.Time // when the burst pool is full again; zero while it is full
	blocked    time.Time // the server said: nothing before this
	waitCause  string    // why the last reservation waits
}

// NewLimiter returns a limiter for b (an invalid budget, zero included, means no limit
// at all) reading time from now (nil: time.Now), with the default margins.
func NewLimiter(b Budget, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	return &Limiter{budget: b, now: now, slack: DefaultSlack, keepBurst: DefaultKeepBurst, burst: b.Burst}
}

// SetMargins changes the margins: slack is the fraction of the steady rate left unused
// (0 to 0.5), keepBurst how many burst requests are kept back. Tests of the exact
// budget use SetMargins(0, 0).
func (l *Limiter) SetMargins(slack float64, keepBurst int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.slack = math.Min(0.5, math.Max(0, slack))
	l.keepBurst = max(0, keepBurst)
}

// Budget returns the budget in force (it follows the server's headers).
func (l *Limiter) Budget() Budget {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.budget
}

// Now returns the limiter's time.
func (l *Limiter) Now() time.Time { return l.now() }

// interval is the time one steady token takes to come back.
func (l *Limiter) interval() time.Duration {
	return time.Duration(float64(time.Second) / (l.budget.PerSecond * (1 - l.slack)))
}

// Reserve takes the permission for one request and returns when it may be sent (now or
// later) and, when later, why.
func (l *Limiter) Reserve() (at time.Time, why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if !l.budget.valid() {
		if l.blocked.After(now) {
			return l.blocked, "the server asked to wait"
		}
		return now, ""
	}
	t := now
	why = ""
	if l.blocked.After(t) {
		t, why = l.blocked, "the server asked to wait"
	}
	if !l.burstReset.IsZero() && !t.Before(l.burstReset) {
		l.burst, l.burstReset = l.budget.Burst, time.Time{}
	}
	T := l.interval()
	capacity := math.Max(1, l.budget.PerSecond)
	earliest := l.tat.Add(-time.Duration((capacity - 1) * float64(T)))
	s := t
	if earliest.After(s) {
		s = earliest
	}
	if s.After(t) && l.burst > l.keepBurst {
		// The steady bucket is empty: the server spends the burst pool now.
		if l.burst == l.budget.Burst || l.burstReset.IsZero() {
			l.burstReset = t.Add(l.budget.BurstWindow + burstMargin)
		}
		l.burst--
		return t, why
	}
	if l.tat.Before(s) {
		l.tat = s
	}
	l.tat = l.tat.Add(T)
	if s.After(t) {
		why = fmt.Sprintf("the request budget (%s) is spent", l.budget)
		if l.burst <= l.keepBurst && !l.burstReset.IsZero() {
			why += ", burst pool refills at " + l.burstReset.UTC().Format("15:04:05Z")
		}
	}
	return s, why
}

// Observe corrects the limiter from a response: the x-ratelimit-* headers (the budget
// the server publishes, the burst left and when it refills) and, on a 429, Retry-After,
// before which nothing is sent. The caller resends a refused request through Reserve,
// which takes a token for it like for any other.
func (l *Limiter) Observe(h http.Header, status int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if v, err := strconv.ParseFloat(h.Get("x-ratelimit-limit-per-second"), 64); err == nil && v > 0 && v != l.budget.PerSecond {
		l.budget.PerSecond = v
	}
	if v, err := strconv.Atoi(h.Get("x-ratelimit-limit-burst")); err == nil && v >= 0 && v != l.budget.Burst {
		l.budget.Burst = v
		l.burst = min(l.burst, v)
	}
	if v, err := strconv.ParseFloat(h.Get("x-ratelimit-burst-duration"), 64); err == nil && v > 0 {
		l.budget.BurstWindow = time.Duration(v * float64(time.Second))
	}
	remaining, haveRemaining := -1, false
	if v, err := strconv.Atoi(h.Get("x-ratelimit-remaining")); err == nil && v >= 0 {
		remaining, haveRemaining = v, true
		if v < l.burst {
			l.burst = v
		}
	}
	if haveRemaining && remaining < l.budget.Burst {
		if reset, ok := serverTime(h, "x-ratelimit-reset", now); ok {
			l.burstReset = reset
		}
	}
	if status == http.StatusTooManyRequests {
		until := RetryAfter(h, now)
		if until.After(l.blocked) {
			l.blocked = until
		}
		l.burst = 0
		if l.burstReset.IsZero() {
			l.burstReset = now.Add(l.budget.BurstWindow + burstMargin)
		}
		if l.budget.valid() {
			// The steady bucket is empty too, as of now.
			empty := now.Add(time.Duration(math.Max(1, l.budget.PerSecond) * float64(l.interval())))
			if l.tat.Before(empty) {
				l.tat = empty
			}
		}
	}
}

// serverTime reads an RFC 3339 time the server wrote in header name and moves it onto
// the local clock, using the response's Date header when there is one (so a server
// whose clock differs from ours is still read right; Date is truncated to the second,
// which only makes the result later, the safe side).
func serverTime(h http.Header, name string, now time.Time) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, h.Get(name))
	if err != nil {
		return time.Time{}, false
	}
	if d, err := http.ParseTime(h.Get("Date")); err == nil {
		return now.Add(t.Sub(d)), true
	}
	return t, true
}

// RetryAfter reads Retry-After (seconds, possibly fractional, or an HTTP date) as a
// time; one second from now when it is absent or unreadable.
func RetryAfter(h http.Header, now time.Time) time.Time {
	v := h.Get("Retry-After")
	if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 {
		return now.Add(time.Duration(f * float64(time.Second)))
	}
	if t, err := http.ParseTime(v); err == nil {
		return t
	}
	return now.Add(time.Second)
}
