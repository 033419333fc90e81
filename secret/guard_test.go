package secret

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// seen is a loopback server that notes the credential headers of each request.
type seen struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []string
}

func newSeen(t *testing.T, tls bool, h http.HandlerFunc) *seen {
	s := &seen{}
	wrap := func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.reqs = append(s.reqs, r.Method+" auth="+r.Header.Get("Authorization")+" key="+r.Header.Get("X-Api-Key"))
		s.mu.Unlock()
		if h != nil {
			h(w, r)
		}
	}
	if tls {
		s.Server = httptest.NewTLSServer(http.HandlerFunc(wrap))
	} else {
		s.Server = httptest.NewServer(http.HandlerFunc(wrap))
	}
	t.Cleanup(s.Close)
	return s
}

func (s *seen) got() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.reqs...)
}

func redirectTo(target string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target, http.StatusTemporaryRedirect)
	}
}

// A client built with Guard: credentials its library set (Authorization, x-api-key)
// and credentials its transport attaches stay on the origin through a 307 to
// another port of the same host; the hop itself is followed.
func TestGuardKeepsCredentialsOnTheOrigin(t *testing.T) {
	other := newSeen(t, false, nil)
	home := newSeen(t, false, redirectTo(other.URL+"/elsewhere"))
	o, _ := ParseOrigin(home.URL)
	g := &Guard{Origin: o, Headers: []string{"X-Api-Key"}, Attach: func(base http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			r = r.Clone(r.Context())
			r.Header.Set("X-Attached", "yes")
			return base.RoundTrip(r)
		})
	}}
	c := g.Client(nil)
	req, _ := http.NewRequest(http.MethodPost, home.URL+"/v1", strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer sk-guarded-1")
	req.Header.Set("X-Api-Key", "sk-guarded-2")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if h := home.got(); len(h) != 1 || !strings.Contains(h[0], "sk-guarded-1") || !strings.Contains(h[0], "sk-guarded-2") {
		t.Errorf("the origin got %q", h)
	}
	o2 := other.got()
	if len(o2) != 1 {
		t.Fatalf("the redirect was not followed: %q", o2)
	}
	if strings.Contains(o2[0], "sk-guarded") {
		t.Errorf("a credential followed the redirect: %q", o2)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// An https origin that redirects to http: refused before the http server is asked.
func TestGuardRefusesHTTPSToHTTP(t *testing.T) {
	plain := newSeen(t, false, nil)
	tls := newSeen(t, true, redirectTo(plain.URL+"/x"))
	o, _ := ParseOrigin(tls.URL)
	c := (&Guard{Origin: o}).Client(tls.Client())
	req, _ := http.NewRequest(http.MethodGet, tls.URL+"/v1", nil)
	req.Header.Set("Authorization", "Bearer sk-guarded-3")
	_, err := c.Do(req)
	if !errors.Is(err, ErrDowngrade) {
		t.Fatalf("err = %v, want ErrDowngrade", err)
	}
	if len(plain.got()) != 0 {
		t.Errorf("the http server was asked: %q", plain.got())
	}
	// HopGuard (an OAuth client's) refuses it too.
	c = &http.Client{Transport: HopGuard(tls.Client().Transport)}
	if _, err := c.Do(req); !errors.Is(err, ErrDowngrade) {
		t.Fatalf("HopGuard: err = %v, want ErrDowngrade", err)
	}
}

// A request to another origin that is not a redirect is refused by Elsewhere, with
// nothing sent.
func TestGuardElsewhere(t *testing.T) {
	other := newSeen(t, false, nil)
	o, _ := ParseOrigin("http://127.0.0.1:1")
	c := (&Guard{Origin: o, Elsewhere: func(r *http.Request) error { return errors.New("not there") }}).Client(nil)
	if _, err := c.Post(other.URL, "text/plain", strings.NewReader("x")); err == nil || !strings.Contains(err.Error(), "not there") {
		t.Fatalf("err = %v", err)
	}
	if len(other.got()) != 0 {
		t.Errorf("the other origin was asked: %q", other.got())
	}
}

// HopGuard: a POST whose body would be sent again (307) to another origin is refused
// (a token request's body holds the client secret); a GET goes, without Authorization.
func TestHopGuard(t *testing.T) {
	other := newSeen(t, false, nil)
	home := newSeen(t, false, redirectTo(other.URL+"/token"))
	c := &http.Client{Transport: HopGuard(nil)}
	_, err := c.Post(home.URL+"/token", "application/x-www-form-urlencoded", strings.NewReader("client_secret=sk-guarded-4"))
	if err == nil || !strings.Contains(err.Error(), "another origin") {
		t.Fatalf("POST redirected: %v", err)
	}
	req, _ := http.NewRequest(http.MethodGet, home.URL+"/meta", nil)
	req.SetBasicAuth("client", "sk-guarded-5")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, s := range other.got() {
		if strings.Contains(s, "sk-guarded") || strings.Contains(s, "auth=Basic") {
			t.Errorf("a credential followed the redirect: %s", s)
		}
	}
	if len(other.got()) != 1 {
		t.Errorf("the other origin got %q, want the GET alone", other.got())
	}
}
