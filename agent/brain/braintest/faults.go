package braintest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/agent/llmtest"
)

// OKStep is the cassette step a brain reaches once a fault is behind it.
const OKStep = `{"text": "Recovered.", "calls": [{"tool": "orbit_ship", "args": {"shipSymbol": "COPLAY-1"}}]}`

// Settings are what the fault suite changes of a brain's configuration.
type Settings struct {
	Stream     bool
	Timeout    time.Duration
	MaxRetries int // -1: no retries
}

// Opener makes a brain of the kind under test on a scripted server for the cassette
// (Kind.Opener): streaming, two retries, a timeout of seconds, then mod's changes.
type Opener func(t testing.TB, cassette string, mod func(*Settings)) (*llmtest.Server, brain.Brain, *Waits)

// Faults is the suite every model brain runs against the scripted server's faults (as
// adk-go's session backends run one suite): what is retried and after how long, what is
// never retried (text already on screen, a malformed answer, a model without tools),
// the silence limit, and a cancel that stops at once.
func Faults(t *testing.T, open Opener) {
	t.Run("RateLimitWaitsRetryAfter", func(t *testing.T) { rateLimit(t, open) })
	t.Run("ServerErrorRetriedWithBackoff", func(t *testing.T) { serverBackoff(t, open) })
	t.Run("NoRetriesWhenNegative", func(t *testing.T) { noRetries(t, open) })
	t.Run("CutStreamAfterTextNotRetried", func(t *testing.T) { cutAfterText(t, open) })
	t.Run("CutBeforeTextRetried", func(t *testing.T) { cutBeforeText(t, open) })
	t.Run("SilenceIsATimeout", func(t *testing.T) { silence(t, open) })
	t.Run("TimeoutRetried", func(t *testing.T) { timeoutRetried(t, open) })
	t.Run("CancelStopsAtOnce", func(t *testing.T) { cancelStops(t, open) })
	t.Run("FaultKinds", func(t *testing.T) { faultKinds(t, open) })
}

func rateLimit(t *testing.T, open Opener) {
	srv, b, w := open(t, `{"steps": [{"fault": "429"}, `+OKStep+`]}`, nil)
	reply, err := b.Next(context.Background(), request(t))
	if err != nil {
		t.Fatal(err)
	}
	if reply.Text != "Recovered." || len(reply.Calls) != 1 {
		t.Errorf("reply = %+v", reply)
	}
	if got := w.All(); len(got) != 1 || got[0] != time.Second {
		t.Errorf("waits = %v, want [1s] from Retry-After", got)
	}
	if n := len(srv.RawRequests()); n != 2 {
		t.Errorf("requests = %d, want 2", n)
	}
}

func serverBackoff(t *testing.T, open Opener) {
	srv, b, w := open(t, `{"steps": [{"fault": "500"}, {"fault": "500"}, `+OKStep+`]}`, nil)
	if _, err := b.Next(context.Background(), request(t)); err != nil {
		t.Fatal(err)
	}
	got := w.All()
	if len(got) != 2 || got[0] < 500*time.Millisecond || got[1] < time.Second || got[1] > 2*time.Second {
		t.Errorf("waits = %v, want about [0.5s 1s] (exponential, with jitter)", got)
	}
	if n := len(srv.RawRequests()); n != 3 {
		t.Errorf("requests = %d, want 3", n)
	}
}

func noRetries(t *testing.T, open Opener) {
	srv, b, _ := open(t, `{"steps": [{"fault": "500"}, `+OKStep+`]}`, func(s *Settings) { s.MaxRetries = -1 })
	if _, err := b.Next(context.Background(), request(t)); !errors.Is(err, brain.ErrServer) {
		t.Fatalf("err = %v, want brain.ErrServer", err)
	}
	if n := len(srv.RawRequests()); n != 1 {
		t.Errorf("requests = %d, want 1", n)
	}
}

func cutAfterText(t *testing.T, open Opener) {
	srv, b, _ := open(t, `{"steps": [{"fault": "cut", "text": "I will orbit and then look around the system.",
		"calls": [{"tool": "orbit_ship", "args": {"shipSymbol": "COPLAY-1"}}]}, `+OKStep+`]}`, nil)
	req := request(t)
	var shown strings.Builder
	req.OnDelta = func(s string) { shown.WriteString(s) }
	reply, err := b.Next(context.Background(), req)
	if !errors.Is(err, brain.ErrCut) {
		t.Fatalf("err = %v, want brain.ErrCut", err)
	}
	if !strings.Contains(err.Error(), "cut off") || !strings.Contains(err.Error(), "1 unfinished tool call(s) dropped") {
		t.Errorf("error %q: want it to say the answer was cut and the call dropped", err)
	}
	if len(reply.Calls) != 0 || reply.Text != "" {
		t.Errorf("reply = %+v, want nothing from a cut answer", reply)
	}
	if shown.Len() == 0 {
		t.Error("no text reached OnDelta before the cut")
	}
	// Text was on screen: a retry would show it twice, so the brain must not retry.
	if n := len(srv.RawRequests()); n != 1 {
		t.Errorf("requests = %d, want 1", n)
	}
}

func cutBeforeText(t *testing.T, open Opener) {
	for _, stream := range []bool{true, false} {
		srv, b, _ := open(t, `{"steps": [{"fault": "cut", "calls": [{"tool": "orbit_ship", "args": {"shipSymbol": "COPLAY-1"}}]}, `+OKStep+`]}`,
			func(s *Settings) { s.Stream = stream })
		reply, err := b.Next(context.Background(), request(t))
		if err != nil {
			t.Fatalf("stream=%v: %v", stream, err)
		}
		if reply.Text != "Recovered." || len(srv.RawRequests()) != 2 {
			t.Errorf("stream=%v: reply %+v after %d requests, want the second step", stream, reply, len(srv.RawRequests()))
		}
	}
}

func silence(t *testing.T, open Opener) {
	for _, stream := range []bool{true, false} {
		_, b, _ := open(t, `{"steps": [{"fault": "timeout"}, `+OKStep+`]}`, func(s *Settings) {
			s.Stream, s.Timeout, s.MaxRetries = stream, 150*time.Millisecond, -1
		})
		start := time.Now()
		_, err := b.Next(context.Background(), request(t))
		if !errors.Is(err, brain.ErrTimeout) {
			t.Fatalf("stream=%v: err = %v, want brain.ErrTimeout", stream, err)
		}
		if d := time.Since(start); d < 150*time.Millisecond {
			t.Errorf("stream=%v: gave up after %v, before the 150ms timeout", stream, d)
		}
		if !strings.Contains(err.Error(), "150ms") {
			t.Errorf("error %q does not say how long it waited", err)
		}
	}
}

func timeoutRetried(t *testing.T, open Opener) {
	_, b, _ := open(t, `{"steps": [{"fault": "timeout"}, `+OKStep+`]}`, func(s *Settings) { s.Timeout = 100 * time.Millisecond })
	reply, err := b.Next(context.Background(), request(t))
	if err != nil || reply.Text != "Recovered." {
		t.Fatalf("reply %+v, err %v: want the step after the timeout", reply, err)
	}
}

func cancelStops(t *testing.T, open Opener) {
	for _, stream := range []bool{true, false} {
		_, b, _ := open(t, `{"steps": [{"fault": "timeout"}]}`, func(s *Settings) { s.Stream, s.Timeout = stream, time.Minute })
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := b.Next(ctx, request(t))
			done <- err
		}()
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "stopped") {
			t.Errorf("stream=%v: err = %v, want it stopped by the cancel", stream, err)
		}
	}
}

// faultKinds: each fault is its kind, streamed or not, and the kinds no retry can fix
// are not retried.
func faultKinds(t *testing.T, open Opener) {
	for fault, kind := range map[string]error{
		"malformed_body": brain.ErrMalformed,
		"no_tools":       brain.ErrNoTools,
		"500":            brain.ErrServer,
	} {
		for _, stream := range []bool{true, false} {
			_, b, _ := open(t, `{"steps": [{"fault": "`+fault+`"}]}`, func(s *Settings) { s.MaxRetries = -1; s.Stream = stream })
			if _, err := b.Next(context.Background(), request(t)); !errors.Is(err, kind) {
				t.Errorf("%s stream=%v: err = %v, want %v", fault, stream, err, kind)
			}
		}
	}
	for _, fault := range []string{"malformed_body", "no_tools"} {
		for _, stream := range []bool{true, false} {
			srv, b, _ := open(t, `{"steps": [{"fault": "`+fault+`"}, `+OKStep+`]}`, func(s *Settings) { s.Stream = stream })
			if _, err := b.Next(context.Background(), request(t)); err == nil {
				t.Errorf("%s stream=%v: no error", fault, stream)
			}
			if n := len(srv.RawRequests()); n != 1 {
				t.Errorf("%s stream=%v: requests = %d, want 1 (not retried)", fault, stream, n)
			}
		}
	}
}

// request is a short conversation with the Tools.
func request(t testing.TB) brain.Request {
	return brain.Request{
		Messages: []brain.Message{
			{Role: brain.RoleSystem, Content: "You play SpaceTraders."},
			{Role: brain.RoleUser, Content: "Start playing."},
		},
		Tools: Tools(t),
	}
}
