package openai_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/agent/brain/braintest"
	"github.com/coplayhq/coplay/agent/openai"
)

// TestFaults runs the fault suite every model brain runs.
func TestFaults(t *testing.T) { braintest.Faults(t, kind.Opener()) }

func TestRetriesExhausted(t *testing.T) {
	srv, b, _ := script(t, `{"steps": [{"fault": "500"}, {"fault": "429"}, {"fault": "500"}, `+braintest.OKStep+`]}`, nil)
	_, err := b.Next(context.Background(), request(t))
	if !errors.Is(err, brain.ErrServer) {
		t.Fatalf("err = %v, want brain.ErrServer", err)
	}
	var e *brain.Error
	if !errors.As(err, &e) || e.Attempts != 3 || e.Status != 500 {
		t.Fatalf("err = %#v, want 3 attempts ending in HTTP 500", err)
	}
	for _, want := range []string{"test-model", srv.URL(), "HTTP 500", "gave up after 3 attempts", "server had an error"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("requests = %d, want 3 (MaxRetries 2)", n)
	}
}

func TestCutPlainBody(t *testing.T) {
	_, b, _ := script(t, `{"steps": [{"fault": "cut"}]}`, func(c *openai.Config) { c.Stream = false; c.MaxRetries = -1 })
	reply, err := b.Next(context.Background(), request(t))
	if !errors.Is(err, brain.ErrCut) || len(reply.Calls) != 0 {
		t.Fatalf("reply %+v, err = %v, want brain.ErrCut and no calls", reply, err)
	}
}

func TestNoTools(t *testing.T) {
	srv, b, _ := script(t, `{"steps": [{"fault": "no_tools"}, `+braintest.OKStep+`]}`, nil)
	_, err := b.Next(context.Background(), request(t))
	if !errors.Is(err, brain.ErrNoTools) {
		t.Fatalf("err = %v, want brain.ErrNoTools", err)
	}
	for _, want := range []string{"does not support tool calls", "pick a model", "test-model does not support tools"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("requests = %d: a model without tools must not be retried", n)
	}
}

func TestRawArgsPassedThrough(t *testing.T) {
	for _, stream := range []bool{true, false} {
		_, b, _ := script(t, `{"steps": [{"calls": [{"tool": "navigate_ship", "raw_args": "{\"shipSymbol\": \"COPL"},
			{"tool": "warp_drive", "args": {}}, {"tool": "dock_ship", "raw_args": ""}]}]}`, func(c *openai.Config) { c.Stream = stream })
		reply, err := b.Next(context.Background(), request(t))
		if err != nil {
			t.Fatalf("stream=%v: %v", stream, err)
		}
		if len(reply.Calls) != 3 {
			t.Fatalf("stream=%v: calls = %+v", stream, reply.Calls)
		}
		if got := string(reply.Calls[0].Args); got != `{"shipSymbol": "COPL` {
			t.Errorf("stream=%v: raw args = %q, want them verbatim", stream, got)
		}
		if reply.Calls[1].Tool != "warp_drive" || string(reply.Calls[1].Args) != "{}" {
			t.Errorf("stream=%v: unknown tool call = %+v, want it passed on for the runner to refuse", stream, reply.Calls[1])
		}
		if reply.Calls[2].Args != nil {
			t.Errorf("stream=%v: empty arguments = %q, want nil", stream, reply.Calls[2].Args)
		}
	}
}

func TestCancelDuringRequest(t *testing.T) {
	_, b, _ := script(t, `{"steps": [{"fault": "timeout"}]}`, func(c *openai.Config) { c.Timeout = 20 * time.Second })
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := b.Next(ctx, request(t))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v to stop after cancel", d)
	}
}

func TestCancelDuringBackoff(t *testing.T) {
	srv, b, _ := script(t, `{"steps": [{"fault": "429"}, `+braintest.OKStep+`]}`, nil)
	ctx, cancel := context.WithCancel(context.Background())
	openai.SetSleep(b, func(ctx context.Context, d time.Duration) error {
		cancel()
		<-ctx.Done()
		return ctx.Err()
	})
	_, err := b.Next(ctx, request(t))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("requests = %d, want 1: nothing after the cancel", n)
	}
}

func TestRetryAfterTooLong(t *testing.T) {
	hits := 0
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"error": {"message": "quota exceeded", "type": "insufficient_quota"}}`))
	}))
	defer ts.Close()
	b, err := openai.New(openai.Config{BaseURL: ts.URL + "/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Next(context.Background(), request(t))
	if !errors.Is(err, brain.ErrRateLimited) || !strings.Contains(err.Error(), "asks to wait 1h0m0s") {
		t.Fatalf("err = %v, want brain.ErrRateLimited saying how long the server asks to wait", err)
	}
	if hits != 1 {
		t.Errorf("hits = %d, want 1", hits)
	}
}

func TestKeyNeverInErrors(t *testing.T) {
	const key = "sk-test-DO-NOT-LEAK-0123456789"
	var gotAuth string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth = r.Header.Get("Authorization")
		// A careless server echoing the key it got.
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error": {"message": "Incorrect API key provided: ` + key + `", "type": "invalid_request_error", "code": "invalid_api_key"}}`))
	}))
	defer ts.Close()
	cfg := openai.Config{BaseURL: ts.URL + "/v1", Model: "m", APIKey: key}
	b, err := openai.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Next(context.Background(), request(t))
	if !errors.Is(err, brain.ErrAuth) {
		t.Fatalf("err = %v, want brain.ErrAuth", err)
	}
	if gotAuth != "Bearer "+key {
		t.Errorf("Authorization = %q: the key was not sent", gotAuth)
	}
	var e *brain.Error
	errors.As(err, &e)
	for what, s := range map[string]string{
		"error": err.Error(), "error %+v": fmtV(err), "detail": e.Detail,
		"config": fmtV(cfg), "config %#v": fmtGo(cfg), "brain": fmtV(b), "brain %#v": fmtGo(b),
	} {
		if strings.Contains(s, key) || strings.Contains(s, "DO-NOT-LEAK") {
			t.Errorf("%s shows the key: %s", what, s)
		}
	}
}
