package llmtest

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
)

// Moved serves a Server behind a redirect to another origin, for tests of where a
// brain's key goes: Front answers every request with a 307 to the same path on Back
// (another loopback port, so another origin), which notes the headers each request
// came with and passes it to the Server.
type Moved struct {
	Front, Back *httptest.Server
	mu          sync.Mutex
	headers     []http.Header
}

// NewMoved puts srv behind a redirect. Point the brain at Front.URL + "/v1".
func NewMoved(srv *Server) *Moved {
	m := &Moved{}
	target, _ := url.Parse(strings.TrimSuffix(srv.URL(), "/v1"))
	proxy := httputil.NewSingleHostReverseProxy(target)
	m.Back = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		m.headers = append(m.headers, r.Header.Clone())
		m.mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	m.Front = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, m.Back.URL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	}))
	return m
}

// Headers are the headers of every request Back got, in order.
func (m *Moved) Headers() []http.Header {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]http.Header(nil), m.headers...)
}

// Close stops both servers (not the Server behind them).
func (m *Moved) Close() {
	m.Front.Close()
	m.Back.Close()
}
