package spacetraders

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultBaseURL is the real game's API root.
const DefaultBaseURL = "https://api.spacetraders.io/v2"

// Client makes typed SpaceTraders v2 calls. It is safe for concurrent use; every call
// goes through one shared rate limiter.
type Client struct {
	base    string
	token   string
	hc      *http.Client
	lim     *limiter
	maxWait time.Duration // longest the client blocks on its own limiter before giving a wait
	retries int           // extra attempts for GETs
	backoff time.Duration // first retry delay, doubled each time
}

// NewClient returns a client for the API at baseURL ("" = DefaultBaseURL) using the
// agent token (may be empty for public endpoints). hc nil means a client with timeouts.
func NewClient(baseURL, token string, hc *http.Client, rl RateLimit) *Client {
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	if hc == nil {
		hc = defaultHTTPClient()
	}
	return &Client{
		base:    strings.TrimRight(baseURL, "/"),
		token:   token,
		hc:      hc,
		lim:     newLimiter(rl),
		maxWait: 5 * time.Second,
		retries: 3,
		backoff: 250 * time.Millisecond,
	}
}

func defaultHTTPClient() *http.Client {
	return &http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: 20 * time.Second,
			MaxIdleConnsPerHost:   4,
			IdleConnTimeout:       90 * time.Second,
		},
	}
}

// APIError is a refusal from the game: its HTTP status and the error object it sent.
type APIError struct {
	Method, Path string
	Status       int
	Code         int
	Message      string
	Data         json.RawMessage
}

// Error returns "METHOD PATH: game error CODE: MESSAGE".
func (e *APIError) Error() string {
	return fmt.Sprintf("spacetraders: %s %s: game error %d: %s", e.Method, e.Path, e.Code, e.Message)
}

// RateLimitError says the request was not sent (or was refused with 429) and may be
// sent again at RetryAt.
type RateLimitError struct {
	RetryAt time.Time
	Reason  string
}

// Error says until when to wait.
func (e *RateLimitError) Error() string {
	return fmt.Sprintf("spacetraders: rate limited (%s), retry at %s", e.Reason, e.RetryAt.UTC().Format(time.RFC3339))
}

// UnknownOutcomeError says a request that changes the game was sent but its response was
// lost, so it may or may not have taken effect. It is never retried automatically.
type UnknownOutcomeError struct {
	Method, Path string
	Err          error
}

// Error names the request and what went wrong.
func (e *UnknownOutcomeError) Error() string {
	return fmt.Sprintf("spacetraders: %s %s: outcome unknown (%v); observe before acting again", e.Method, e.Path, e.Err)
}

// Unwrap returns the transport error.
func (e *UnknownOutcomeError) Unwrap() error { return e.Err }

// envelope is the shape of every successful response.
type envelope struct {
	Data json.RawMessage `json:"data"`
	Meta *Meta           `json:"meta"`
}

// errorEnvelope is the shape of every error response.
type errorEnvelope struct {
	Error struct {
		Message string          `json:"message"`
		Code    int             `json:"code"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// do sends one request and decodes its data into out (which may be nil). It returns the
// list meta when the response has one. GETs are retried; anything else is sent once.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, body, out any) (*Meta, error) {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return nil, fmt.Errorf("spacetraders: %s %s: encode body: %w", method, path, err)
		}
	}
	u := c.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	idempotent := method == http.MethodGet
	delay := c.backoff
	for attempt := 0; ; attempt++ {
		if err := c.lim.wait(ctx, c.maxWait); err != nil {
			return nil, err
		}
		status, hdr, data, err := c.send(ctx, method, u, payload)
		if err == nil {
			c.lim.observe(hdr, status)
		}
		retry := err != nil || status >= 500
		if retry && !idempotent {
			if err != nil && notSent(err) {
				return nil, fmt.Errorf("spacetraders: %s %s: not sent: %w", method, path, err)
			}
			if err == nil {
				err = fmt.Errorf("server error %d: %s", status, snippet(data))
			}
			return nil, &UnknownOutcomeError{Method: method, Path: path, Err: err}
		}
		if retry && attempt < c.retries && ctx.Err() == nil {
			select {
			case <-time.After(delay):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			delay *= 2
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("spacetraders: %s %s: %w", method, path, err)
		}
		return c.decode(method, path, status, hdr, data, out)
	}
}

// send makes one HTTP exchange and reads the whole body.
func (c *Client) send(ctx context.Context, method, u string, payload []byte) (int, http.Header, []byte, error) {
	var rd io.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Accept", "application/json")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("read response: %w", err)
	}
	return resp.StatusCode, resp.Header, data, nil
}

// notSent reports whether a transport error happened before the request could reach the
// server (the connection was never made), so a POST is known to have had no effect.
func notSent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

func (c *Client) decode(method, path string, status int, hdr http.Header, data []byte, out any) (*Meta, error) {
	if status == http.StatusTooManyRequests {
		return nil, &RateLimitError{RetryAt: retryAfter(hdr, c.lim.now()), Reason: "server said 429"}
	}
	if status >= 400 {
		var ee errorEnvelope
		if err := json.Unmarshal(data, &ee); err != nil || (ee.Error.Code == 0 && ee.Error.Message == "") {
			return nil, &APIError{Method: method, Path: path, Status: status, Code: status, Message: "HTTP " + http.StatusText(status) + ": " + snippet(data)}
		}
		return nil, &APIError{Method: method, Path: path, Status: status, Code: ee.Error.Code, Message: ee.Error.Message, Data: ee.Error.Data}
	}
	if status == http.StatusNoContent || out == nil {
		return nil, nil
	}
	var env envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, fmt.Errorf("spacetraders: %s %s: decode response: %w", method, path, err)
	}
	if err := json.Unmarshal(env.Data, out); err != nil {
		return nil, fmt.Errorf("spacetraders: %s %s: decode data: %w", method, path, err)
	}
	return env.Meta, nil
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
