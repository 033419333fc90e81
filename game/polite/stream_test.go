package polite

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// A body still coming when the window closes is the start of a stream; one that breaks
// off after some of it came is kept with its error; neither is sent again, GET or not.
func TestBodiesAreReadAsTheyArrive(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/open":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"moves":"e2e4`)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case "/lines":
			w.Header().Set("Content-Type", "application/x-ndjson; charset=utf-8")
			for i := range 10 {
				fmt.Fprintf(w, "{\"n\":%d}\n", i)
			}
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case "/broken":
			w.Header().Set("Content-Length", "1000")
			fmt.Fprint(w, `{"partial":`)
			w.(http.Flusher).Flush()
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		}
	}))
	defer srv.Close()
	c := &Client{StreamWindow: 200 * time.Millisecond, StreamLines: 4, Sleep: func(context.Context, time.Duration) error { return nil }}
	for _, tt := range []struct {
		method, path, want string
		stream             bool
		readErr            bool
	}{
		{"GET", "/open", `{"moves":"e2e4`, true, false},
		{"GET", "/lines", "{\"n\":0}\n{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n", true, false},
		{"GET", "/broken", `{"partial":`, false, true},
		{"POST", "/broken", `{"partial":`, false, true},
	} {
		hits.Store(0)
		resp, err := c.Do(context.Background(), Request{Method: tt.method, URL: srv.URL + tt.path})
		if err != nil {
			t.Errorf("%s %s: %v", tt.method, tt.path, err)
			continue
		}
		if string(resp.Body) != tt.want || resp.Stream != tt.stream || (resp.ReadErr != "") != tt.readErr {
			t.Errorf("%s %s: body %q stream %v readErr %q", tt.method, tt.path, resp.Body, resp.Stream, resp.ReadErr)
		}
		if n := hits.Load(); n != 1 {
			t.Errorf("%s %s was sent %d times", tt.method, tt.path, n)
		}
	}
	if !IsStreamType("text/event-stream") || IsStreamType("application/json") || IsStreamType("") {
		t.Error("IsStreamType")
	}
}
