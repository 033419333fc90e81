package secret

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// One rule for every credential coplay sends (a model key, an MCP header, an OAuth
// bearer, a client secret): it goes only to the origin the person configured, the
// scheme, host and port of the URL they gave (RFC 6454). net/http's own redirect rule
// is weaker: it compares host names only (so another port on the same host, or http
// on the same host, keeps Authorization), and it copies every other header, an
// x-api-key included, to any host. And headers added inside a RoundTripper are added
// again on every hop. So a client that carries a credential is built with Guard: its
// CheckRedirect strips the credential from a hop to another origin and refuses an
// https → http hop, and its transport attaches the credential only on the origin.

// credentialHeaders are the headers that carry a credential whatever the client: they
// never leave the origin, even when the client's library set them.
var credentialHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie"}

// Guard keeps a client's credentials on one origin. Build the client with Client.
type Guard struct {
	// Origin is where the credentials may go.
	Origin Origin
	// Headers name the headers that carry a credential besides Authorization and
	// Cookie (x-api-key, a person's --mcp-header names): stripped from any request to
	// another origin.
	Headers []string
	// Attach, if set, is the transport that adds the credentials; it is used only for
	// requests to the origin (others go to the base transport, without them).
	Attach func(base http.RoundTripper) http.RoundTripper
	// Elsewhere, if set, decides a request to another origin that is not a redirect
	// (an SSE server's endpoint event named it): an error refuses it. Nil lets it go,
	// without the credentials.
	Elsewhere func(req *http.Request) error
}

// ErrDowngrade is the error of a redirect from https to http: whatever it carried
// would cross the network in clear.
var ErrDowngrade = errors.New("refused a redirect from https to plain http")

// Client returns a copy of c (nil: a new client) whose redirects and transport keep
// the credentials on g.Origin.
func (g *Guard) Client(c *http.Client) *http.Client {
	out := &http.Client{}
	if c != nil {
		*out = *c
	}
	base := out.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	out.Transport = g.Transport(base)
	next := out.CheckRedirect
	out.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if err := g.CheckRedirect(req, via); err != nil {
			return err
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 { // net/http's own limit, which a CheckRedirect replaces
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return out
}

// CheckRedirect refuses an https → http hop and strips the credential headers from a
// hop to another origin than g's (net/http has copied them by the time it asks).
func (g *Guard) CheckRedirect(req *http.Request, via []*http.Request) error {
	if err := downgrade(req, via); err != nil {
		return err
	}
	if !g.Origin.Holds(req.URL) {
		g.strip(req.Header)
	}
	return nil
}

// HopGuard is the RoundTripper of a client whose credentials belong to whatever
// origin each request was first sent to (an OAuth client: the token endpoint, the
// revocation endpoint). It judges each redirect hop as it is sent, so that it holds
// under any CheckRedirect (the MCP SDK's discovery keeps its own): an https → http hop
// is refused; a hop to another origin loses Authorization and Cookie, and is refused
// if it would send the body again (a 307 or 308 of a POST: a token request's body
// holds the client secret or a refresh token).
func HopGuard(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return hopGuard{base: base}
}

type hopGuard struct{ base http.RoundTripper }

func (h hopGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Response == nil { // not a redirect
		return h.base.RoundTrip(req)
	}
	var via []*http.Request
	for r := req.Response.Request; r != nil; {
		via = append([]*http.Request{r}, via...)
		if r.Response == nil {
			break
		}
		r = r.Response.Request
	}
	err := downgrade(req, via)
	first := OriginOf(via[0].URL)
	if err == nil && first != OriginOf(req.URL) && req.Body != nil && req.Body != http.NoBody && req.Method != http.MethodGet && req.Method != http.MethodHead {
		err = fmt.Errorf("refused a redirect from %s to another origin, %s, that would send the request's body again", first, OriginOf(req.URL))
	}
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	if first != OriginOf(req.URL) {
		req = req.Clone(req.Context())
		(&Guard{}).strip(req.Header)
	}
	return h.base.RoundTrip(req)
}

// downgrade refuses a hop to http after any https one.
func downgrade(req *http.Request, via []*http.Request) error {
	if !strings.EqualFold(req.URL.Scheme, "http") {
		return nil
	}
	for _, v := range via {
		if strings.EqualFold(v.URL.Scheme, "https") {
			return fmt.Errorf("%w: %s sent coplay to %s", ErrDowngrade, OriginOf(via[len(via)-1].URL), OriginOf(req.URL))
		}
	}
	return nil
}

// strip deletes every credential header from h.
func (g *Guard) strip(h http.Header) {
	for _, k := range credentialHeaders {
		h.Del(k)
	}
	for _, k := range g.Headers {
		h.Del(k)
	}
}

// Transport is the RoundTripper of Client: requests to the origin go through Attach;
// any other loses its credential headers first, and is refused by Elsewhere when it is
// not a redirect.
func (g *Guard) Transport(base http.RoundTripper) http.RoundTripper {
	with := base
	if g.Attach != nil {
		with = g.Attach(base)
	}
	return guardTransport{g: g, base: base, with: with}
}

type guardTransport struct {
	g          *Guard
	base, with http.RoundTripper
}

func (t guardTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.g.Origin.Holds(req.URL) {
		return t.with.RoundTrip(req)
	}
	if req.Response == nil && t.g.Elsewhere != nil { // not a redirect
		if err := t.g.Elsewhere(req); err != nil {
			if req.Body != nil {
				req.Body.Close()
			}
			return nil, err
		}
	}
	req = req.Clone(req.Context())
	t.g.strip(req.Header)
	return t.base.RoundTrip(req)
}
