// Package retry holds what every model brain does between attempts: whether to try
// again at all (Again), how long to wait (what the server asked for, else exponential
// backoff with jitter), reading the server's retry headers, and sleeping in a way a
// cancelled context cuts short.
package retry

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/game"
)

// MaxWait is the longest a brain sleeps before a retry. A server that asks for more is
// reported to the person instead: they may prefer another model.
const MaxWait = 60 * time.Second

// Again decides what follows the failed attempt number attempt (from 1): nil when the
// brain should ask again, after sleeping the backoff through sleep; otherwise the error
// to return. That is e itself when e is not worth another attempt, the attempts are
// spent, or the server asks to wait longer than MaxWait (then e's Detail says so), and
// an error wrapping sleep's when the wait was cut short.
func Again(ctx context.Context, e *brain.Error, attempt, maxRetries int, sleep func(context.Context, time.Duration) error) error {
	if e.NoRetry || !brain.Retryable(e.Kind) || attempt > maxRetries {
		return e
	}
	d := Backoff(attempt, e.Wait)
	if d > MaxWait {
		e.Detail += fmt.Sprintf("; the server asks to wait %s before retrying", d.Round(time.Second))
		return e
	}
	if err := sleep(ctx, d); err != nil {
		return fmt.Errorf("%s: %s at %s: stopped while waiting to retry: %w", e.Provider, e.Model, e.BaseURL, err)
	}
	return nil
}

// Backoff is the wait before attempt+1: what the server asked for, else exponential
// from half a second with jitter, at most 20 s.
func Backoff(attempt int, asked time.Duration) time.Duration {
	if asked > 0 {
		return asked
	}
	d := 500 * time.Millisecond << min(attempt-1, 6)
	d = min(d, 20*time.Second)
	return d + rand.N(d/4+1)
}

// After reads the wait a server asks for: OpenAI's retry-after-ms, then the standard
// Retry-After in seconds or as an HTTP date (Anthropic sends seconds). 0 means none.
func After(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// Sleep waits d or until ctx is done, and then returns ctx's cause.
func Sleep(ctx context.Context, d time.Duration) error {
	if game.Sleep(ctx, d) != nil {
		return context.Cause(ctx)
	}
	return nil
}
