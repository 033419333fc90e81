package mcp

import (
	"net/url"
	"strings"

	"github.com/coplayhq/coplay/secret"
)

// A URL server's address may carry a secret: a password in its user info or a key in
// its query (http://u:PW@host/mcp?api_key=S). coplay shows the server by host and path
// (Game.name), keeps the URL in the session without them (driver.go), scrubs their
// values wherever it writes (Opened.Secrets), and takes them out of the errors that
// quote the URL, since net/http and the SDK print it whole (net/http masks only the
// password).

// urlSafe is err with raw's secrets taken out of its text: the URL as written, its
// query and its user info, whatever their length, and each value of MinLen or more
// anywhere.
func urlSafe(err error, raw string) error {
	if err == nil || raw == "" {
		return err
	}
	u, perr := url.Parse(raw)
	if perr != nil || (u.User == nil && u.RawQuery == "") {
		return err
	}
	msg := err.Error()
	r := []string{raw, secret.RedactURL(raw)}
	if u.RawQuery != "" {
		r = append(r, "?"+u.RawQuery, "?[REDACTED]")
	}
	if u.User != nil {
		r = append(r, u.User.String()+"@", u.User.Username()+":[REDACTED]@")
	}
	clean := strings.NewReplacer(r...).Replace(msg)
	clean = secret.New(secret.URLSecrets(raw)...).String(clean)
	if clean == msg {
		return err
	}
	return &redactedError{msg: clean, err: err}
}

// redactedError is an error whose text had a secret taken out; errors.Is and As still
// see what it wraps.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
