package secret

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
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

// Origin is a URL's scheme, host and port, in lower case with the default port
// written out: two URLs have the same origin when their Origins are equal.
type Origin struct{ Scheme, Host, Port string }

// OriginOf is u's origin.
func OriginOf(u *url.URL) Origin {
	o := Origin{Scheme: strings.ToLower(u.Scheme), Host: strings.ToLower(u.Hostname()), Port: u.Port()}
	if o.Port == "" {
		switch o.Scheme {
		case "http":
			o.Port = "80"
		case "https":
			o.Port = "443"
		}
	}
	return o
}

// ParseOrigin is the origin of an http or https URL.
func ParseOrigin(raw string) (Origin, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Origin{}, fmt.Errorf("%q is not a URL", RedactURL(raw))
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return Origin{}, fmt.Errorf("%q is not an http or https URL", RedactURL(raw))
	}
	return OriginOf(u), nil
}

// String is the origin as a person writes it: scheme://host, with the port when it is
// not the scheme's default.
func (o Origin) String() string {
	host := o.Host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if o.Port != "" && !(o.Scheme == "http" && o.Port == "80") && !(o.Scheme == "https" && o.Port == "443") {
		host += ":" + o.Port
	}
	return o.Scheme + "://" + host
}

// Holds reports whether u is on the origin.
func (o Origin) Holds(u *url.URL) bool { return u != nil && OriginOf(u) == o }

// Loopback reports whether host, as written in a URL (no name is looked up), is this
// machine: localhost (or a name under it), an address in 127.0.0.0/8, or ::1.
func Loopback(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(h, "[]"))
	return ip != nil && ip.IsLoopback()
}

// PlainHTTP reports whether a credential sent to raw would cross the network in clear:
// raw is http:// and its host, as written, is not this machine.
func PlainHTTP(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && strings.EqualFold(u.Scheme, "http") && !Loopback(u.Hostname())
}

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

// RedactURL is raw with its user info's password and every query value replaced by
// Redacted: either may hold a secret (http://u:PW@host/mcp?api_key=S). Anything that is
// not a URL comes back as it was.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return raw
	}
	return redactURL(u).String()
}

// StripURL is raw without its user info and query, the parts that may hold a secret:
// the form a URL is kept and shown in. Anything that is not a URL comes back as it was.
func StripURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return raw
	}
	u.User, u.RawQuery, u.ForceQuery = nil, "", false
	return u.String()
}

// URLSecrets are the values in raw's user info and query, for a Scrubber: a server
// that echoes its URL must not get them written anywhere.
func URLSecrets(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	var out []string
	if u.User != nil {
		if p, ok := u.User.Password(); ok {
			out = append(out, p)
		}
	}
	for _, vs := range u.Query() {
		out = append(out, vs...)
	}
	return out
}

func redactURL(u *url.URL) *url.URL {
	c := *u
	if c.User != nil {
		if _, ok := c.User.Password(); ok {
			c.User = url.UserPassword(c.User.Username(), "REDACTED")
		}
	}
	if c.RawQuery != "" {
		q := c.Query()
		for k := range q {
			q[k] = []string{"REDACTED"}
		}
		c.RawQuery = q.Encode()
	}
	return &c
}
