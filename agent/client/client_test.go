package client

import (
	"net/http"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent/brain"
)

// Zero means the default; retries below zero mean none; a timeout must be positive.
func TestAttemptsDefaults(t *testing.T) {
	if r, d := Attempts(0, 0); r != DefaultMaxRetries || d != DefaultTimeout {
		t.Errorf("Attempts(0, 0) = %d, %v; want the defaults", r, d)
	}
	if r, d := Attempts(-1, time.Second); r != 0 || d != time.Second {
		t.Errorf("Attempts(-1, 1s) = %d, %v; want no retries, 1s", r, d)
	}
	if r, d := Attempts(5, -time.Second); r != 5 || d != DefaultTimeout {
		t.Errorf("Attempts(5, -1s) = %d, %v; want 5 and the default timeout", r, d)
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
