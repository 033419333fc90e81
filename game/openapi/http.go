package openapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/coplayhq/coplay/game"
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

// Retrying a rate-limited read: at most this many times, each wait at most maxWait.
const (
	maxRetries = 5
	maxWait    = 2 * time.Minute
)

// response is one HTTP exchange's outcome, scrubbed of the token.
type response struct {
	Method, Path string
	Status       int
	Header       http.Header
	Body         []byte
	Truncated    bool   // the body was longer than maxBody
	ReadErr      string // the body could not be read to its end
}

// errNotSent marks a request that never left (the connection was refused): safe to
// say nothing happened.
var errNotSent = errors.New("request not sent")

// exchange sends op's request and reads the response. A read (GET, HEAD) answered
// 429 waits as the server says (reported through game.NotifyWait) and tries again;
// nothing else is retried.
func (g *Game) exchange(ctx context.Context, op *operation, args map[string]any) (*response, error) {
	for attempt := 0; ; attempt++ {
		req, err := op.newRequest(ctx, g.baseURL, args)
		if err != nil {
			return nil, err
		}
		apply(req, op.Auth, g.token)
		resp, err := g.client.Do(req)
		if err != nil {
			if notSent(err) {
				return nil, fmt.Errorf("%w: %s %s: %v", errNotSent, op.Method, op.Path, err)
			}
			return nil, fmt.Errorf("%s %s: %w", op.Method, op.Path, err)
		}
		r := &response{Method: op.Method, Path: req.URL.Path, Status: resp.StatusCode, Header: resp.Header}
		r.Body, err = io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
		resp.Body.Close()
		if err != nil {
			r.ReadErr = err.Error()
		}
		if len(r.Body) > maxBody {
			r.Body, r.Truncated = r.Body[:maxBody], true
		}
		if r.Status == http.StatusTooManyRequests && op.Kind == game.Read && attempt < maxRetries {
			until := retryAt(resp.Header, g.now())
			if until.Sub(g.now()) <= maxWait {
				game.NotifyWait(ctx, game.Wait{Until: until, Reason: fmt.Sprintf("rate limited by the server on %s; retrying", op.Name)})
				err := sleepUntil(ctx, until, g.now())
				game.NotifyWait(ctx, game.Wait{})
				if err != nil {
					return nil, err
				}
				continue
			}
		}
		return r, nil
	}
}

// notSent reports whether err happened before the request was written: dialling
// failed, so the server never saw it.
func notSent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// retryAt reads when to retry from Retry-After (seconds, possibly fractional, or an
// HTTP date), else x-ratelimit-reset; one second when neither says.
func retryAt(h http.Header, now time.Time) time.Time {
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 {
			return now.Add(time.Duration(secs * float64(time.Second)))
		}
		if t, err := http.ParseTime(v); err == nil {
			return t
		}
	}
	if v := strings.TrimSpace(h.Get("X-Ratelimit-Reset")); v != "" {
		if t, err := time.Parse(time.RFC3339Nano, v); err == nil && t.After(now) {
			return t
		}
	}
	return now.Add(time.Second)
}

func sleepUntil(ctx context.Context, until, now time.Time) error {
	d := until.Sub(now)
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
