package universe

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// benchMix is a typical client's mix of reads and actions for a docked command ship.
func benchMix(s start) []struct{ method, path, body string } {
	ship := "/v2/my/ships/" + s.cmd
	return []struct{ method, path, body string }{
		{"GET", "/v2/my/agent", ""},
		{"GET", ship, ""},
		{"GET", "/v2/my/ships", ""},
		{"GET", "/v2/systems/" + s.home + "/waypoints/" + s.hq + "/market", ""},
		{"GET", "/v2/systems/" + s.home + "/waypoints?traits=MARKETPLACE", ""},
		{"POST", ship + "/orbit", ""},
		{"POST", ship + "/dock", ""},
		{"POST", ship + "/purchase", `{"symbol":"FUEL","units":1}`},
		{"POST", ship + "/sell", `{"symbol":"FUEL","units":1}`},
		{"GET", ship + "/nav", ""},
	}
}

// BenchmarkHandlerMix measures the universe itself: requests through Handler without a
// network, rate limit off.
func BenchmarkHandlerMix(b *testing.B) {
	c := newTestClient(b, 1, false)
	mix := benchMix(register(c, "BENCHER"))
	h := c.u.Handler()
	auth := "Bearer " + c.token
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		m := mix[i%len(mix)]
		req := httptest.NewRequest(m.method, m.path, strings.NewReader(m.body))
		req.Header.Set("Authorization", auth)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 300 {
			b.Fatalf("%s %s: %d %s", m.method, m.path, rec.Code, rec.Body)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

// BenchmarkHTTPMix measures real HTTP round trips on loopback from parallel clients.
func BenchmarkHTTPMix(b *testing.B) {
	c := newTestClient(b, 1, false)
	mix := benchMix(register(c, "BENCHER"))
	auth := "Bearer " + c.token
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			m := mix[i%len(mix)]
			i++
			req, _ := http.NewRequest(m.method, c.base+m.path, bytes.NewReader([]byte(m.body)))
			req.Header.Set("Authorization", auth)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			resp.Body.Close()
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}
