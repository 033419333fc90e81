package mcp

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"

	"github.com/coplayhq/coplay/secret"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The HTTP+SSE transport of protocol 2024-11-05: a GET opens an event stream whose
// first event names the endpoint that takes the client's POSTs. Many published servers
// still speak only it. A URL is tried as streamable HTTP first; when the server answers
// the initialize POST with a 4xx (other than the 401 or 403 of authorization), the SSE
// stream is opened instead, as the current spec's backwards-compatibility section asks,
// and every reconnect speaks SSE too. Config.Transport forces one or the other.

// The transports Config.Transport can force.
const (
	TransportHTTP = "http" // streamable HTTP (protocol 2025-03-26 and later)
	TransportSSE  = "sse"  // HTTP+SSE (protocol 2024-11-05)
)

// httpDialer connects to a URL server, expanding the headers from the environment at
// each connect. The expanded values live only in that connection's round tripper.
type httpDialer struct {
	url     string
	headers map[string]string
	getenv  func(string) (string, bool)
	oauth   auth.OAuthHandler // nil: no OAuth (tests)
	fault   func() error      // a refresh that failed other than by refusal; may be nil
	base    http.RoundTripper // nil: http.DefaultTransport (tests put a TLS server's here)

	mu     sync.Mutex
	mode   string // "" (not settled), TransportHTTP or TransportSSE
	forced bool   // mode came from Config.Transport
	status int    // the status of the last POST that was not 2xx, while not settled
	// refused is the last request the guard refused this connection (an SSE endpoint
	// on another origin): the SDK reports the connection's end, which may come first,
	// so the reason is kept here for connectOnce to say.
	refused error
}

func newHTTPDialer(cfg Config, getenv func(string) (string, bool)) *httpDialer {
	return &httpDialer{url: cfg.URL, headers: cfg.Headers, getenv: getenv, mode: cfg.Transport, forced: cfg.Transport != ""}
}

func (d *httpDialer) dial(ctx context.Context) (sdk.Transport, error) {
	h, err := expandHeaders(d.headers, d.getenv)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	mode := d.mode
	d.status, d.refused = 0, nil
	d.mu.Unlock()
	if mode == TransportSSE {
		// No 401 flow on this transport (the SDK's SSE client has none): a token kept
		// from an earlier run, or got on streamable HTTP, is sent as it is.
		client := d.guard(h, true).Client(&http.Client{Transport: d.base})
		return &sseTransport{inner: &sdk.SSEClientTransport{Endpoint: d.url, HTTPClient: client}}, nil
	}
	// The SDK sets the bearer on the request itself; the guard takes it off any
	// request to another origin.
	client := d.guard(h, false).Client(&http.Client{Transport: d.base})
	client.Transport = &statusWatcher{base: client.Transport, d: d}
	// The SDK's retries (5 by default) resume a broken response stream with a GET and
	// Last-Event-ID, never by sending the request again, so they may save an answer that
	// would otherwise be lost; a session that is gone for good is reconnected by Game.
	t := &sdk.StreamableClientTransport{Endpoint: d.url, HTTPClient: client}
	if d.oauth != nil {
		t.OAuthHandler = d.oauth
	}
	return t, nil
}

// guard keeps the server's credentials (the expanded headers h, and the OAuth bearer
// when bearer is set) on the origin of the URL the person gave: a redirect to another
// origin goes without them, an https → http one is refused, and an SSE endpoint event
// that names another origin refuses the connection.
func (d *httpDialer) guard(h map[string]string, bearer bool) *secret.Guard {
	origin, _ := secret.ParseOrigin(d.url) // Open checked the URL
	g := &secret.Guard{Origin: origin, Headers: slices.Collect(maps.Keys(h))}
	g.Attach = func(base http.RoundTripper) http.RoundTripper {
		rt := http.RoundTripper(&headerTransport{base: base, headers: h})
		if bearer {
			rt = &bearerTransport{base: rt, oauth: d.oauth, fault: d.fault}
		}
		return rt
	}
	g.Elsewhere = func(req *http.Request) error {
		err := fmt.Errorf("the MCP server at %s named its endpoint on another origin, %s; coplay sends the server's headers and token only to %s, so it does not connect (ask the server's operator to serve its endpoint on the origin it is reached at)",
			origin, secret.OriginOf(req.URL), origin)
		d.mu.Lock()
		d.refused = err
		d.mu.Unlock()
		return err
	}
	return g
}

// legacy reports whether a connect that failed with err should be tried again over
// SSE: the mode is not settled and the server answered a POST with a 4xx other than
// 401 and 403 (those are authorization's, and already had their answer). It settles
// the mode to SSE when so.
func (d *httpDialer) legacy(err error) (status int, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.mode != "" || err == nil {
		return 0, false
	}
	s := d.status
	if s < 400 || s > 499 || s == http.StatusUnauthorized || s == http.StatusForbidden {
		return 0, false
	}
	d.mode = TransportSSE
	return s, true
}

// refusal is the request the guard refused since the last dial, if any.
func (d *httpDialer) refusal() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.refused
}

// connected settles the mode on what worked.
func (d *httpDialer) connected(t sdk.Transport) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.mode == "" {
		if _, ok := t.(*sseTransport); ok {
			d.mode = TransportSSE
		} else {
			d.mode = TransportHTTP
		}
	}
}

// statusWatcher notes the status of POSTs that fail, for the fallback to SSE.
// lastStatus is the status of the last POST that was not 2xx (0: none) since the last
// dial.
func (d *httpDialer) lastStatus() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.status
}

type statusWatcher struct {
	base http.RoundTripper
	d    *httpDialer
}

func (s *statusWatcher) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := s.base.RoundTrip(req)
	if err == nil && req.Method == http.MethodPost && (resp.StatusCode < 200 || resp.StatusCode > 299) {
		s.d.mu.Lock()
		s.d.status = resp.StatusCode
		s.d.mu.Unlock()
	}
	return resp, err
}

// bearerTransport sends the OAuth access token, if there is one, with every request.
type bearerTransport struct {
	base  http.RoundTripper
	oauth auth.OAuthHandler
	fault func() error
}

func (b *bearerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if b.oauth == nil {
		return b.base.RoundTrip(req)
	}
	ts, err := b.oauth.TokenSource(req.Context())
	if err != nil || ts == nil {
		return b.base.RoundTrip(req)
	}
	tok, err := ts.Token()
	if err != nil {
		if b.fault != nil {
			if rf := b.fault(); rf != nil {
				return nil, rf
			}
		}
		return b.base.RoundTrip(req) // refused: the server's 401 says the rest
	}
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	return b.base.RoundTrip(req)
}

// sseTransport is the SDK's SSE client with the stream's lifetime cut loose from the
// connect's context: the SDK opens the hanging GET with the context Connect gets, so a
// connect deadline would end the stream too. The connect is still abandoned when its
// context ends first, and the stream ends when the connection is closed.
type sseTransport struct{ inner *sdk.SSEClientTransport }

func (t *sseTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	streamCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	conn, err := t.inner.Connect(streamCtx)
	if !stop() { // ctx ended while connecting
		if conn != nil {
			conn.Close()
		}
		cancel()
		return nil, fmt.Errorf("opening the SSE stream of %s: %w", secret.StripURL(t.inner.Endpoint), ctx.Err())
	}
	if err != nil {
		cancel()
		return nil, fmt.Errorf("opening the SSE stream (the 2024-11-05 transport) of %s: %w", secret.StripURL(t.inner.Endpoint), err)
	}
	return &sseConn{Connection: conn, cancel: cancel}, nil
}

// sseConn ends the stream's context when it is closed.
type sseConn struct {
	sdk.Connection
	cancel context.CancelFunc
}

func (c *sseConn) Close() error {
	err := c.Connection.Close()
	c.cancel()
	return err
}
