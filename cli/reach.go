package cli

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"
)

// reachTries is how many times the game server named by --base-url is dialled before
// coplay says it cannot be reached; reachWait is the first pause between tries (it
// doubles).
const (
	reachTries = 3
	reachWait  = 250 * time.Millisecond
)

// checkReachable dials the game server named by --base-url, when the command line gave
// one, a few times before anything is started: a server that cannot be reached (a typo
// in the host or the port, nothing listening there) is said at once, naming the URL and
// the flag, rather than as a run that retries for ever and leaves a session with no step
// behind. A dial is not a request: the game counts nothing. Behind a proxy (HTTP_PROXY
// and the like) the proxy reaches the server, not coplay, so nothing is dialled.
func (o *options) checkReachable() error {
	raw, given := o.drivers.given("base-url")
	if !given || raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return usagef("--base-url %q is not a server's URL: want http://HOST[:PORT]/PATH or https://…", raw)
	}
	if proxy, err := http.ProxyFromEnvironment(&http.Request{URL: u}); err != nil || proxy != nil {
		return nil
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), map[string]string{"http": "80", "https": "443"}[u.Scheme])
	}
	var last error
	wait := reachWait
	for try := 1; try <= reachTries; try++ {
		conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err == nil {
			conn.Close()
			return nil
		}
		last = err
		if try < reachTries {
			time.Sleep(wait)
			wait *= 2
		}
	}
	return fmt.Errorf("cannot reach the game server at %s (%s, %d tries): check --base-url (the host, the port, the scheme) and that the server is running", raw, dialWords(last), reachTries)
}

// dialWords says why a dial failed in a few words: "connection refused", "no such host".
func dialWords(err error) string {
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case errors.As(err, &dns):
		if dns.IsNotFound {
			return "no such host " + dns.Name
		}
		return dns.Err + " for " + dns.Name
	case errors.As(err, &op) && op.Timeout():
		return "no answer within 5s"
	case errors.As(err, &op) && op.Err != nil:
		var inner error = op.Err
		for {
			next := errors.Unwrap(inner)
			if next == nil {
				break
			}
			inner = next
		}
		return inner.Error()
	}
	return err.Error()
}
