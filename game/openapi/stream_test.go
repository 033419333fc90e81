package openapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// streamSpec is a game whose reads answer with streams (testdata/openapi/streams.yaml).
const streamSpec = "../../testdata/openapi/streams.yaml"

// streamServer answers /events with lines then keeps the connection open, and
// /board with the start of a JSON document it never finishes. It counts GETs and
// notices when the client closes the connection.
type streamServer struct {
	srv    *httptest.Server
	lines  int
	gets   atomic.Int32
	closed chan string
}

func newStreamServer(t *testing.T, lines int) (*streamServer, *Game) {
	s := &streamServer{lines: lines, closed: make(chan string, 4)}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.gets.Add(1)
		if r.URL.Path == "/events" {
			w.Header().Set("Content-Type", "application/x-ndjson")
			for i := 1; i <= s.lines; i++ {
				fmt.Fprintf(w, "{\"type\":\"gameStart\",\"n\":%d}\n", i)
			}
		} else {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"state":{"moves":"e2e4 e7e5`)
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the connection stays open until the client closes it
		s.closed <- r.URL.Path
	}))
	t.Cleanup(s.srv.Close)
	spec := streamSpec
	return s, mustOpen(t, Config{Spec: spec, BaseURL: s.srv.URL})
}

// read calls the stream read op, fails the test if the call or its result failed, and
// returns its output.
func (s *streamServer) read(t *testing.T, g *Game, op string) string {
	t.Helper()
	res, err := g.Call(context.Background(), op, json.RawMessage(`{}`))
	if err != nil || res.Err != nil {
		t.Fatalf("call: %+v, %v", res, err)
	}
	return res.Output
}

// wantOneGET fails the test unless exactly one GET reached the server.
func (s *streamServer) wantOneGET(t *testing.T) {
	t.Helper()
	if n := s.gets.Load(); n != 1 {
		t.Errorf("%d GETs, want 1", n)
	}
}

// An ndjson stream that sends three lines and keeps the connection open: the call
// returns those lines once the window closes (5 s), says it is the start of a stream,
// closes the connection, and sends one GET.
func TestStreamIsReadAsItArrives(t *testing.T) {
	t.Parallel()
	s, g := newStreamServer(t, 3)
	t0 := time.Now()
	out := s.read(t, g, "streamEvents")
	took := time.Since(t0)
	t.Logf("the first lines came back after %v:\n%s", took.Round(10*time.Millisecond), out)
	for _, want := range []string{`"n":1`, `"n":3`, "this is the start of a stream"} {
		if !strings.Contains(out, want) {
			t.Errorf("the result does not hold %q:\n%s", want, out)
		}
	}
	if took > 30*time.Second {
		t.Errorf("the call took %v", took)
	}
	select {
	case <-s.closed:
	case <-time.After(time.Minute): // only a hung test waits this long
		t.Error("the connection was not closed")
	}
	s.wantOneGET(t)
}

// A fast stream stops at 50 lines, without waiting for the window.
func TestStreamStopsAtFiftyLines(t *testing.T) {
	t.Parallel()
	s, g := newStreamServer(t, 120)
	out := s.read(t, g, "streamEvents")
	if !strings.Contains(out, `"n":50}`) || strings.Contains(out, `"n":51}`) {
		t.Errorf("want lines 1 to 50:\n%s", out)
	}
	s.wantOneGET(t)
}

// JSON that never ends is a stream too: what came in the window, once.
func TestJSONThatNeverEndsIsAStream(t *testing.T) {
	t.Parallel()
	s, g := newStreamServer(t, 0)
	out := s.read(t, g, "streamBoard")
	if !strings.Contains(out, "e2e4 e7e5") || !strings.Contains(out, "this is the start of a stream") {
		t.Errorf("result:\n%s", out)
	}
	s.wantOneGET(t)
}
