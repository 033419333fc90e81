package universe

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/coplayhq/coplay/game/internal/spectest"
)

var testStart = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// exchange is one recorded HTTP round trip.
type exchange struct {
	op, method, path string
	status           int
	body             []byte
	header           http.Header
}

// client drives a universe over real HTTP and records every exchange.
type client struct {
	t     testing.TB
	base  string
	token string
	clock *FakeClock
	u     *Universe
	log   []exchange
}

func newTestClient(t testing.TB, seed int64, rateLimit bool) *client {
	t.Helper()
	clock := NewFakeClock(testStart)
	u := New(Config{Seed: seed, Clock: clock, RateLimit: rateLimit})
	return &client{t: t, base: newServer(t, u), clock: clock, u: u}
}

// newServer serves u on loopback for the length of the test and returns its base URL.
func newServer(t testing.TB, u *Universe) string {
	srv := httptest.NewServer(u.Handler())
	t.Cleanup(srv.Close)
	return srv.URL
}

// do sends a request; body is marshalled to JSON unless nil.
func (c *client) do(op, method, path string, body any) (int, map[string]any) {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			c.t.Fatalf("%s: marshal body: %v", op, err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.t.Fatalf("%s: %v", op, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s %s: %v", op, method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("%s: read body: %v", op, err)
	}
	c.log = append(c.log, exchange{op, method, path, resp.StatusCode, raw, resp.Header})
	var m map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &m); err != nil {
			c.t.Fatalf("%s %s %s: response is not a JSON object: %v\n%s", op, method, path, err, raw)
		}
	}
	return resp.StatusCode, m
}

// must sends a request and fails the test unless the status is want.
func (c *client) must(want int, op, method, path string, body any) map[string]any {
	c.t.Helper()
	status, m := c.do(op, method, path, body)
	if status != want {
		c.t.Fatalf("%s %s %s: status %d, want %d; body %v", op, method, path, status, want, m)
	}
	return m
}

// wantError sends a request and checks it fails with the given error code.
func (c *client) wantError(code int, op, method, path string, body any) map[string]any {
	c.t.Helper()
	status, m := c.do(op, method, path, body)
	got := int(num(m, "error.code"))
	if status < 400 || got != code {
		c.t.Fatalf("%s %s %s: status %d code %d, want error code %d; body %v", op, method, path, status, got, code, m)
	}
	if msg := str(m, "error.message"); msg == "" {
		c.t.Fatalf("%s: error %d has no message", op, code)
	}
	return m
}

// Short names for reading the decoded JSON of an answer.
var (
	dig  = spectest.Dig
	str  = spectest.Str
	num  = spectest.Num
	list = spectest.List
)

// waitFor advances the fake clock to just past an RFC 3339 timestamp from a response.
func (c *client) waitFor(stamp string) {
	c.t.Helper()
	spectest.WaitUntil(c.t, c.clock, stamp)
}
