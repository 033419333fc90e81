package client

import (
	"net/http"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent/brain"
)

func TestAttemptsDefaults(t *testing.T) {
	for _, c := range []struct {
		retries     int
		timeout     time.Duration
		wantRetries int
		wantTimeout time.Duration
	}{
		{0, 0, DefaultMaxRetries, DefaultTimeout},
		{-1, time.Second, 0, time.Second},
		{5, -time.Second, 5, DefaultTimeout},
	} {
		if r, d := Attempts(c.retries, c.timeout); r != c.wantRetries || d != c.wantTimeout {
			t.Errorf("Attempts(%d, %v) = %d, %v; want %d, %v", c.retries, c.timeout, r, d, c.wantRetries, c.wantTimeout)
		}
	}
}

// The caller's client is copied, never changed, and the copy has no timeout.
func TestHTTPCopiesWithoutTimeout(t *testing.T) {
	mine := &http.Client{Timeout: time.Second}
	hc := HTTP(mine)
	if hc == mine || hc.Timeout != 0 || mine.Timeout != time.Second {
		t.Errorf("HTTP(client with 1s) = %p timeout %v; the caller's is %p timeout %v", hc, hc.Timeout, mine, mine.Timeout)
	}
	if HTTP(nil) == nil {
		t.Error("HTTP(nil) = nil")
	}
}

func TestShownHidesTheKey(t *testing.T) {
	temp := float32(0.5)
	if k, tt := Shown("sk-secret", &temp); k != "[set]" || tt != "0.5" {
		t.Errorf("Shown = %q, %q", k, tt)
	}
	if k, tt := Shown("", nil); k != "[none]" || tt != "default" {
		t.Errorf("Shown(none) = %q, %q", k, tt)
	}
}

func TestEstimates(t *testing.T) {
	r := brain.Reply{Text: "abcd", Thinking: []brain.Thinking{{Text: "ef"}}, Calls: []brain.ToolCall{{Tool: "go", Args: []byte("{}")}}}
	if n := CompletionChars(r); n != 10 {
		t.Errorf("CompletionChars = %d, want 10", n)
	}
	if EstimateTokens(0) != 0 || EstimateTokens(1) != 1 || EstimateTokens(8) != 2 {
		t.Error("EstimateTokens: want four characters a token, rounded up")
	}
}
