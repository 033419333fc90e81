package openai

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// go-openai does not expose the headers of an error answer, and Retry-After lives
// there. A RoundTripper sees every answer, so it notes the header into a slot the
// attempt put in the request's context.

// retrySlot receives the server's requested wait for one attempt.
type retrySlot struct {
	mu    sync.Mutex
	after time.Duration // 0 when the server named no wait
}

func (s *retrySlot) set(d time.Duration) {
	s.mu.Lock()
	s.after = d
	s.mu.Unlock()
}

func (s *retrySlot) get() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.after
}

type slotKey struct{}

// headerTransport records Retry-After into the request's retrySlot.
type headerTransport struct {
	base http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if resp != nil {
		if slot, ok := req.Context().Value(slotKey{}).(*retrySlot); ok {
			slot.set(retryAfter(resp.Header, time.Now()))
		}
	}
	return resp, err
}

// retryAfter reads the wait a server asks for: OpenAI's retry-after-ms, then the
// standard Retry-After in seconds or as an HTTP date. 0 means none.
func retryAfter(h http.Header, now time.Time) time.Duration {
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

// withSlot returns a context carrying a fresh slot.
func withSlot(ctx context.Context) (context.Context, *retrySlot) {
	slot := &retrySlot{}
	return context.WithValue(ctx, slotKey{}, slot), slot
}
