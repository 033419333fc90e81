package openapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/coplayhq/coplay/game/polite"
)

// Doer sends one HTTP request. *http.Client is one; a shared polite layer (rate
// limits, retries) can stand in front of it.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// defaultClient is a plain client with timeouts, so a stuck server cannot hang a turn.
// It follows up to 5 redirects on the same host and returns any other redirect as the
// response: net/http drops Authorization on a redirect elsewhere, but not an API key
// in a header of the spec's choosing.
func defaultClient() Doer {
	return &http.Client{
		Timeout: 60 * time.Second,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 || req.URL.Host != via[0].URL.Host || req.URL.Scheme != via[0].URL.Scheme {
				return http.ErrUseLastResponse
			}
			return nil
		},
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: 45 * time.Second,
			IdleConnTimeout:       90 * time.Second,
			MaxIdleConnsPerHost:   4,
		},
	}
}

// maxBody is the most of a response body kept; the rest is dropped with a note.
const maxBody = 4 << 20

// response is one HTTP exchange's outcome, scrubbed of the token.
type response struct {
	Method, Path string
	Status       int
	Header       http.Header
	Body         []byte
	Truncated    bool   // the body was longer than maxBody
	ReadErr      string // the body could not be read to its end
	Stream       bool   // the body is the start of a stream (game/polite's stream window)
}

// errNotSent marks a request that never left (the connection was refused): safe to
// say nothing happened.
var errNotSent = errors.New("request not sent")

// exchange sends op's request through the polite layer (game/polite) and returns the
// response: the rate limit the server publishes is kept, a 429 is waited out (reported
// through game.NotifyWait) and the request sent again, a read that fails for a passing
// reason is retried with backoff; anything else is sent once. A request that never left
// is errNotSent; an action whose answer was lost is an error the caller reports as
// outcome unknown.
func (g *Game) exchange(ctx context.Context, op *operation, args map[string]any) (*response, error) {
	req, err := op.newRequest(ctx, g.baseURL, args)
	if err != nil {
		return nil, err
	}
	apply(req, op.Auth, g.token)
	var body []byte
	if req.Body != nil {
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, fmt.Errorf("%s %s: reading the request body: %w", op.Method, op.Path, err)
		}
		req.Body.Close()
	}
	resp, err := g.polite.Do(ctx, polite.Request{Method: req.Method, URL: req.URL.String(), Header: req.Header, Body: body})
	if err != nil {
		var ns *polite.NotSentError
		if errors.As(err, &ns) || notSent(err) {
			return nil, fmt.Errorf("%w: %s %s: %w", errNotSent, op.Method, op.Path, err)
		}
		return nil, fmt.Errorf("%s %s: %w", op.Method, op.Path, err)
	}
	r := &response{Method: op.Method, Path: req.URL.Path, Status: resp.Status, Header: resp.Header, Body: resp.Body,
		Stream: resp.Stream, ReadErr: resp.ReadErr}
	if len(r.Body) > maxBody {
		r.Body, r.Truncated = r.Body[:maxBody], true
	}
	return r, nil
}

// notAnswering is the plain words for a server that could not be reached: "the game
// server at URL does not answer (connection refused); coplay reconnects when it is
// back" (each call connects anew).
func (g *Game) notAnswering(err error) string {
	cause := "it could not be reached"
	var op *net.OpError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		cause = "connection refused"
	case errors.As(err, &op) && op.Timeout():
		cause = "timed out"
	case errors.As(err, &op) && op.Err != nil:
		cause = op.Err.Error()
	}
	return fmt.Sprintf("the game server at %s does not answer (%s); coplay reconnects when it is back", g.scrub.String(g.baseURL), cause)
}

// notSent reports whether err happened before the request was written: dialling
// failed, so the server never saw it.
func notSent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// doerTransport lets the polite layer send through a Doer (Config.Client).
type doerTransport struct{ d Doer }

func (t doerTransport) RoundTrip(r *http.Request) (*http.Response, error) { return t.d.Do(r) }

// newPolite builds the polite layer over d. No budget is assumed: the limiter adopts the
// one the server publishes in its x-ratelimit-* headers, and a 429 is always waited out.
func newPolite(d Doer, name string) *polite.Client {
	return &polite.Client{
		HTTP:    &http.Client{Transport: doerTransport{d}, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		Limiter: polite.NewLimiter(polite.Budget{}, nil),
		Name:    name,
	}
}
