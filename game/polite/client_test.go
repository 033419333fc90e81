package polite

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coplayhq/coplay/game"
)

// sleeper records the waits a client asks for and returns at once.
type sleeper struct {
	mu     sync.Mutex
	slept  []time.Duration
	frozen *frozen // advanced by each sleep, when set
}

func (s *sleeper) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.slept = append(s.slept, d)
	if s.frozen != nil {
		s.frozen.add(d)
	}
	s.mu.Unlock()
	return ctx.Err()
}

// hangUp closes the connection without an answer: a reset.
func hangUp(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

func TestGetIsRetriedOn503AndResetWithBackoff(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) {
		case 1, 2:
			w.WriteHeader(http.StatusServiceUnavailable)
		case 3, 4:
			hangUp(w)
		default:
			w.Write([]byte("ok"))
		}
	}))
	defer srv.Close()
	s := &sleeper{}
	var waits []game.Wait
	ctx := game.WithWaitFunc(context.Background(), func(w game.Wait) { waits = append(waits, w) })
	// Without keep-alive, net/http does not retry a reset by itself: every attempt is ours.
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	c := &Client{HTTP: hc, Backoff: 100 * time.Millisecond, MaxBackoff: 400 * time.Millisecond, Notify: 300 * time.Millisecond, Sleep: s.sleep}
	resp, err := c.Do(ctx, Request{Method: http.MethodGet, URL: srv.URL + "/thing"})
	if err != nil || string(resp.Body) != "ok" || n.Load() != 5 {
		t.Fatalf("resp %+v err %v after %d requests", resp, err, n.Load())
	}
	want := []time.Duration{100, 200, 400, 400}
	if len(s.slept) != len(want) {
		t.Fatalf("slept %v, want %v (ms)", s.slept, want)
	}
	for i := range want {
		if d := s.slept[i]; d < (want[i]-5)*time.Millisecond || d > want[i]*time.Millisecond {
			t.Fatalf("slept %v, want about %v (ms: doubling, capped)", s.slept, want)
		}
	}
	// The two waits of 400 ms are long enough to report: each start, then its end.
	if len(waits) != 4 || waits[0].Until.IsZero() || !waits[1].Until.IsZero() || waits[0].Reason == "" {
		t.Fatalf("reported waits %+v", waits)
	}
}

func TestGetRetriesUntilTheContextEnds(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	c := &Client{Backoff: time.Millisecond, Sleep: func(ctx context.Context, d time.Duration) error {
		if calls++; calls == 50 {
			cancel() // the person pauses
		}
		return ctx.Err()
	}}
	_, err := c.Do(ctx, Request{Method: http.MethodGet, URL: srv.URL})
	if !errors.Is(err, context.Canceled) || calls != 50 {
		t.Fatalf("err %v after %d backoffs", err, calls)
	}
}

func TestPostIsNeverRetried(t *testing.T) {
	for _, fault := range []string{"503", "reset"} {
		var n atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			if fault == "503" {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			hangUp(w)
		}))
		c := &Client{Sleep: (&sleeper{}).sleep}
		_, err := c.Do(context.Background(), Request{Method: http.MethodPost, URL: srv.URL, Body: []byte(`{}`)})
		var uo *UnknownOutcomeError
		if !errors.As(err, &uo) || n.Load() != 1 {
			t.Errorf("%s: err %v after %d requests; want one request and an unknown outcome", fault, err, n.Load())
		}
		srv.Close()
		_, err = c.Do(context.Background(), Request{Method: http.MethodPost, URL: srv.URL})
		var ns *NotSentError
		if !errors.As(err, &ns) {
			t.Errorf("%s: a closed server: %v, want not sent", fault, err)
		}
	}
}

func Test429IsWaitedOutAndTakesAToken(t *testing.T) {
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		var n atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) == 1 {
				w.Header().Set("Retry-After", "2")
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			w.Write([]byte("done"))
		}))
		f := newFrozen()
		lim := exact(Budget{PerSecond: 2, Burst: 0, BurstWindow: time.Minute}, f)
		s := &sleeper{frozen: f}
		var waits []game.Wait
		ctx := game.WithWaitFunc(context.Background(), func(w game.Wait) { waits = append(waits, w) })
		c := &Client{Limiter: lim, Sleep: s.sleep, Name: "Test"}
		start := f.t
		resp, err := c.Do(ctx, Request{Method: method, URL: srv.URL})
		srv.Close()
		if err != nil || string(resp.Body) != "done" || n.Load() != 2 {
			t.Fatalf("%s: %+v %v after %d requests", method, resp, err, n.Load())
		}
		if len(s.slept) != 1 || s.slept[0] != 2*time.Second {
			t.Fatalf("%s: slept %v, want the 2 s of Retry-After", method, s.slept)
		}
		if len(waits) != 2 || !waits[0].Until.Equal(start.Add(2*time.Second)) || !waits[1].Until.IsZero() {
			t.Fatalf("%s: reported waits %+v", method, waits)
		}
		// The resend took a token: of the two the bucket holds at +2 s, one is left.
		if at, _ := lim.Reserve(); !at.Equal(f.t) {
			t.Fatalf("%s: the second token is not there", method)
		}
		if at, _ := lim.Reserve(); !at.After(f.t) {
			t.Fatalf("%s: the resend took no token", method)
		}
	}
}

func TestClientErrorsAreReturnedNotRetried(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":{"code":4236}}`))
	}))
	defer srv.Close()
	c := &Client{}
	resp, err := c.Do(context.Background(), Request{Method: http.MethodGet, URL: srv.URL})
	if err != nil || resp.Status != 400 || n.Load() != 1 {
		t.Fatalf("%+v %v after %d", resp, err, n.Load())
	}
}
