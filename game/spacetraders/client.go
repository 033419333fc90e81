package spacetraders

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/coplayhq/coplay/game/polite"
)

// DefaultBaseURL is the real game's API root.
const DefaultBaseURL = "https://api.spacetraders.io/v2"

// Client makes typed SpaceTraders v2 calls. It is safe for concurrent use; every call
// goes through one polite HTTP layer (game/polite): one shared rate limiter, 429s waited
// out, GETs retried, everything else sent once.
type Client struct {
	base  string
	token string
	http  *polite.Client
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
	hc = getRedirectsOnly(hc)
	// The limiter runs on the real clock even when the game reads a fake one: its
	// waits are real.
	lim := polite.NewLimiter(withDefaults(rl), nil)
	return &Client{
		base:  strings.TrimRight(baseURL, "/"),
		token: token,
		http:  &polite.Client{HTTP: hc, Limiter: lim, Name: "SpaceTraders"},
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

// getRedirectsOnly returns a copy of hc that follows redirects of GETs only (as hc
// would) and hands any other redirect back as the answer: an action re-sent to another
// URL is not the action that was approved (POST /my/ships/../orbit answered 307 once).
func getRedirectsOnly(hc *http.Client) *http.Client {
	c := *hc
	next := hc.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > 0 && via[0].Method != http.MethodGet {
			return http.ErrUseLastResponse
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &c
}

// checkPath refuses a path with an empty, "." or ".." segment: a symbol that would
// change which resource is addressed. Validation refuses such symbols first
// (game.PathSegment); this is the last line, so that none is ever sent.
func checkPath(method, path string) error {
	for _, seg := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("spacetraders: %s %s: not sent: %q is not a usable path segment (an empty or dot symbol)", method, path, seg)
		}
	}
	return nil
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
// list meta when the response has one. GETs are retried and 429s waited out (polite);
// anything else is sent once.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, body, out any) (*Meta, error) {
	if err := checkPath(method, path); err != nil {
		return nil, err
	}
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
	h := http.Header{}
	h.Set("Accept", "application/json")
	if payload != nil {
		h.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		h.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(ctx, polite.Request{Method: method, URL: u, Header: h, Body: payload})
	var uo *polite.UnknownOutcomeError
	var ns *polite.NotSentError
	switch {
	case errors.As(err, &uo):
		return nil, &UnknownOutcomeError{Method: method, Path: path, Err: uo.Err}
	case errors.As(err, &ns):
		return nil, fmt.Errorf("spacetraders: %s %s: not sent: %w", method, path, ns.Err)
	case err != nil:
		return nil, fmt.Errorf("spacetraders: %s %s: %w", method, path, err)
	}
	if resp.Status >= 300 && resp.Status < 400 {
		// Only a non-GET's redirect comes back (getRedirectsOnly): the server did not do it.
		return nil, &APIError{Method: method, Path: path, Status: resp.Status, Code: resp.Status,
			Message: fmt.Sprintf("HTTP %d %s to %q: not followed for %s; nothing was done", resp.Status, http.StatusText(resp.Status), resp.Header.Get("Location"), method)}
	}
	return c.decode(method, path, resp.Status, resp.Body, out)
}

func (c *Client) decode(method, path string, status int, data []byte, out any) (*Meta, error) {
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
