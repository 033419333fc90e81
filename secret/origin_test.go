package secret

import (
	"net/url"
	"strings"
	"testing"
)

// Two URLs are one origin when scheme, host and port agree, whatever the case, the
// default port written or not, the path and the query.
func TestOrigin(t *testing.T) {
	for pair, same := range map[[2]string]bool{
		{"https://Example.COM/a", "https://example.com:443/b?q=1"}: true,
		{"http://127.0.0.1/x", "http://127.0.0.1:80"}:              true,
		{"http://[::1]:8080/", "http://[::1]:8080/mcp"}:            true,
		{"https://example.com", "http://example.com"}:              false,
		{"http://127.0.0.1:1000", "http://127.0.0.1:1001"}:         false,
		{"https://example.com", "https://api.example.com"}:         false,
	} {
		a, _ := url.Parse(pair[0])
		b, _ := url.Parse(pair[1])
		if OriginOf(a).Holds(b) != same {
			t.Errorf("%s and %s: same origin is %v", pair[0], pair[1], same)
		}
	}
	for raw, want := range map[string]string{
		"https://example.com:443/x": "https://example.com",
		"http://localhost:8080/v1":  "http://localhost:8080",
		"http://[::1]:9/":           "http://[::1]:9",
	} {
		o, err := ParseOrigin(raw)
		if err != nil || o.String() != want {
			t.Errorf("ParseOrigin(%s) = %s, %v; want %s", raw, o, err, want)
		}
	}
	if _, err := ParseOrigin("ftp://u:hunter2secret@x/"); err == nil || strings.Contains(err.Error(), "hunter2secret") {
		t.Errorf("ParseOrigin of ftp: %v", err)
	}
}

func TestLoopbackAndPlainHTTP(t *testing.T) {
	for _, h := range []string{"localhost", "LOCALHOST", "api.localhost", "127.0.0.1", "127.8.9.10", "::1", "[::1]"} {
		if !Loopback(h) {
			t.Errorf("%s is loopback", h)
		}
	}
	// Judged as written: a name that merely resolves to 127.0.0.1 is not trusted.
	for _, h := range []string{"models.invalid", "10.0.0.1", "localhost.example.com", "128.0.0.1", "0.0.0.0", ""} {
		if Loopback(h) {
			t.Errorf("%s is not loopback", h)
		}
	}
	for raw, want := range map[string]bool{
		"http://models.invalid:9/v1":  true,
		"HTTP://192.168.1.5:8000/v1":  true,
		"https://models.invalid/v1":   false,
		"http://localhost:11434/v1":   false,
		"http://127.0.0.1:8080/v1":    false,
		"http://[::1]:8080/v1":        false,
		"http://127.0.0.1.nip.io/v1":  true,
		"http://localhost.evil.com/x": true,
	} {
		if got := PlainHTTP(raw); got != want {
			t.Errorf("PlainHTTP(%s) = %v", raw, got)
		}
	}
}

func TestURLSecrets(t *testing.T) {
	raw := "http://u:PassWord99@host:8/mcp?api_key=S3cretValue&x=1"
	if got := RedactURL(raw); strings.Contains(got, "PassWord99") || strings.Contains(got, "S3cretValue") || !strings.Contains(got, "host:8/mcp") {
		t.Errorf("RedactURL = %s", got)
	}
	if got := StripURL(raw); got != "http://host:8/mcp" {
		t.Errorf("StripURL = %s", got)
	}
	got := URLSecrets(raw)
	if len(got) != 3 || got[0] != "PassWord99" {
		t.Errorf("URLSecrets = %q", got)
	}
	if RedactURL("not a url") != "not a url" || StripURL("node server.js") != "node server.js" {
		t.Error("text that is not a URL was changed")
	}
}
