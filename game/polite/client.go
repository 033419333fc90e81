package polite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/coplayhq/coplay/game"
)

// Defaults of a Client.
const (
	DefaultBackoff    = 500 * time.Millisecond // first retry delay of a GET
	DefaultMaxBackoff = 30 * time.Second       // the delay stops doubling here
	DefaultNotify     = 750 * time.Millisecond // waits at least this long are reported
	maxBody           = 16 << 20               // bytes of a response body read at most
)

// Request is one HTTP request: the method, the full URL, headers and a body (nil for
// none).
type Request struct {
	Method string
	URL    string
	Header http.Header
	Body   []byte
}

// Response is an HTTP response: 429s and passing failures never get here, every other
// status does (a 4xx is the caller's to read).
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	// Stream is set when Body is the start of a stream: the body was still coming when
	// the stream window closed, or reached the line cap (stream.go); the connection
	// was closed.
	Stream bool
	// ReadErr is set when the body broke off after some of it came: Body holds that
	// much, and the request was not sent again.
	ReadErr string
}

// UnknownOutcomeError says a request that is not a GET was sent but no definite answer
// came back (the connection dropped, or the server answered 5xx), so it may or may not
// have taken effect. It is never retried.
type UnknownOutcomeError struct {
	Method, URL string
	Err         error
}

// Error names the request and what went wrong.
func (e *UnknownOutcomeError) Error() string {
	return fmt.Sprintf("%s %s: outcome unknown: %v", e.Method, e.URL, e.Err)
}

// Unwrap returns the cause.
func (e *UnknownOutcomeError) Unwrap() error { return e.Err }

// NotSentError says a request that is not a GET could not be sent at all (the
// connection was never made), so it had no effect. It is not retried either: the caller
// decides.
type NotSentError struct {
	Method, URL string
	Err         error
}

// Error names the request and why it was not sent.
func (e *NotSentError) Error() string {
	return fmt.Sprintf("%s %s: not sent: %v", e.Method, e.URL, e.Err)
}

// Unwrap returns the cause.
func (e *NotSentError) Unwrap() error { return e.Err }

// Client sends requests politely: through a Limiter, waiting out 429s, retrying GETs
// that fail for a passing reason, and sending anything else once. It is safe for
// concurrent use once configured.
type Client struct {
	HTTP       *http.Client // nil: http.DefaultClient
	Limiter    *Limiter     // nil: no limit of our own (429s are still waited out)
	Backoff    time.Duration
	MaxBackoff time.Duration
	Notify     time.Duration // waits at least this long are reported with game.NotifyWait
	// Name says whose limit a wait is for, in the reasons ("SpaceTraders").
	Name string
	// Sleep waits d or until ctx is done; nil: a timer. Tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
	// StreamWindow is how long a body is read after its headers before what came is
	// returned as the start of a stream (0 = DefaultStreamWindow, 5 s); StreamLines,
	// how many lines of a line-delimited stream (0 = DefaultStreamLines, 50).
	StreamWindow time.Duration
	StreamLines  int
}

func (c *Client) now() time.Time {
	if c.Limiter != nil {
		return c.Limiter.Now()
	}
	return time.Now()
}

func (c *Client) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
	}
	if d <= 0 {
		return ctx.Err()
	}
	return game.Sleep(ctx, d)
}

// wait sleeps until at, reporting the wait when it is long enough to be seen.
func (c *Client) wait(ctx context.Context, at time.Time, why string) error {
	d := at.Sub(c.now())
	if d <= 0 {
		return ctx.Err()
	}
	notify := c.Notify
	if notify <= 0 {
		notify = DefaultNotify
	}
	if d >= notify {
		reason := why
		if c.Name != "" {
			reason = c.Name + ": " + why
		}
		game.NotifyWait(ctx, game.Wait{Until: at, Reason: reason})
		defer game.NotifyWait(ctx, game.Wait{})
	}
	return c.sleep(ctx, d)
}

// Do sends req and returns the server's answer. It waits for the limiter first; a 429
// is waited out (Retry-After) and the request sent again, for any method, since the
// server refused it. A GET that fails for a passing reason is retried with capped
// exponential backoff until ctx is done. Any other method is sent once: a transport
// failure after the connection was made, or a 5xx, is an *UnknownOutcomeError; a
// connection never made is a *NotSentError.
func (c *Client) Do(ctx context.Context, req Request) (*Response, error) {
	idempotent := req.Method == http.MethodGet || req.Method == http.MethodHead
	delay := c.Backoff
	if delay <= 0 {
		delay = DefaultBackoff
	}
	maxDelay := c.MaxBackoff
	if maxDelay <= 0 {
		maxDelay = DefaultMaxBackoff
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if c.Limiter != nil {
			at, why := c.Limiter.Reserve()
			if err := c.wait(ctx, at, why); err != nil {
				return nil, err
			}
		}
		resp, err := c.send(ctx, req)
		if err == nil && c.Limiter != nil {
			c.Limiter.Observe(resp.Header, resp.Status)
		}
		if err == nil && resp.Status == http.StatusTooManyRequests {
			until := RetryAfter(resp.Header, c.now())
			if c.Limiter == nil {
				// No limiter to remember the block: wait it out here.
				if err := c.wait(ctx, until, "the server asked to wait (429)"); err != nil {
					return nil, err
				}
			}
			continue
		}
		failed := err != nil || resp.Status >= 500
		if !failed {
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		cause := err
		if cause == nil {
			cause = fmt.Errorf("server error %d: %s", resp.Status, snippet(resp.Body))
		}
		if !idempotent {
			if err != nil && notSent(err) {
				return nil, &NotSentError{Method: req.Method, URL: req.URL, Err: err}
			}
			return nil, &UnknownOutcomeError{Method: req.Method, URL: req.URL, Err: cause}
		}
		if err := c.wait(ctx, c.now().Add(delay), fmt.Sprintf("%s %s failed (%v); retrying", req.Method, pathOf(req.URL), cause)); err != nil {
			return nil, fmt.Errorf("%s %s: %w (last failure: %v)", req.Method, req.URL, err, cause)
		}
		delay = min(2*delay, maxDelay)
	}
}

// send makes one HTTP exchange and reads the body as it arrives (stream.go). A body
// that broke off before anything came is an error (a GET is retried); one that broke
// off after some of it came is a response holding that much.
func (c *Client) send(ctx context.Context, req Request) (*Response, error) {
	var body io.Reader
	if req.Body != nil {
		body = bytes.NewReader(req.Body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.Method, req.URL, body)
	if err != nil {
		return nil, err
	}
	for k, v := range req.Header {
		hr.Header[k] = v
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(hr)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b := c.readBody(resp)
	if b.readErr != nil && len(b.data) == 0 {
		return nil, fmt.Errorf("read response: %w", b.readErr)
	}
	out := &Response{Status: resp.StatusCode, Header: resp.Header, Body: b.data, Stream: b.stream}
	if b.readErr != nil {
		out.ReadErr = b.readErr.Error()
	}
	return out, nil
}

// notSent reports whether a transport error happened before the request could reach the
// server (the connection was never made).
func notSent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

func pathOf(u string) string {
	if i := indexPath(u); i >= 0 {
		return u[i:]
	}
	return u
}

// indexPath returns where the path starts in an absolute URL, or -1.
func indexPath(u string) int {
	start := 0
	if i := bytes.Index([]byte(u), []byte("://")); i >= 0 {
		start = i + 3
	}
	for i := start; i < len(u); i++ {
		if u[i] == '/' {
			return i
		}
	}
	return -1
}

func snippet(b []byte) string {
	s := string(bytes.TrimSpace(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
