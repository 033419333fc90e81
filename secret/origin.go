package secret

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

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
