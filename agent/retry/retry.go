// Package retry holds what every model brain does between attempts: how long to wait
// (what the server asked for, else exponential backoff with jitter), reading the
// server's retry headers, and sleeping in a way a cancelled context cuts short.
package retry

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/coplayhq/coplay/game"
)

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
