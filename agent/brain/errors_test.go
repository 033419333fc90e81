package brain

import (
	"errors"
	"testing"
)

func TestNoToolsMessages(t *testing.T) {
	for _, m := range []string{
		"registry.ollama.ai/library/gemma:2b does not support tools",
		`"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set`,
		"tools param requires --jinja flag",
		"No endpoints found that support tool use. To learn more about provider routing, visit: https://openrouter.ai/docs/provider-routing",
	} {
		if e := ByStatus(400, "", m); e.Kind != ErrNoTools {
			t.Errorf("%q classified as %v, want ErrNoTools", m, e.Kind)
		}
	}
	if e := ByStatus(0, "", "overloaded"); e.Kind != ErrServer {
		t.Errorf("an error event inside a stream classified as %v, want ErrServer (retryable)", e.Kind)
	}
	if e := ByStatus(400, "", "tool_call_id x not found"); e.Kind == ErrNoTools {
		t.Error("an ordinary tool error was taken for a model without tools")
	}
}

// Anthropic's error types decide where the status alone would not: an overloaded event
// inside a 200 stream is a server error, a request_too_large a prompt to shrink.
func TestByStatusReadsAnthropicTypes(t *testing.T) {
	for _, c := range []struct {
		status int
		typ    string
		want   error
	}{
		{529, "overloaded_error", ErrServer},
		{0, "overloaded_error", ErrServer},
		{0, "rate_limit_error", ErrRateLimited},
		{400, "request_too_large", ErrContextLength},
		{0, "authentication_error", ErrAuth},
		{408, "timeout_error", ErrTimeout},
		{400, "invalid_request_error", ErrRejected},
	} {
		if e := ByStatus(c.status, c.typ, "x"); e.Kind != c.want || e.Type != c.typ {
			t.Errorf("ByStatus(%d, %q) = %v (type %q), want %v", c.status, c.typ, e.Kind, e.Type, c.want)
		}
	}
	if !Retryable(ErrServer) || Retryable(ErrAuth) || Retryable(ErrContextLength) {
		t.Error("Retryable: a server error is worth another attempt; a refused key or a long prompt is not")
	}
}

func TestErrorText(t *testing.T) {
	e := &Error{Provider: "anthropic", Kind: ErrAuth, Model: "claude-x", BaseURL: "https://api.anthropic.com",
		Status: 401, Detail: "invalid x-api-key", Attempts: 2, KeyEnv: "ANTHROPIC_API_KEY"}
	want := "anthropic: claude-x at https://api.anthropic.com: the server refused the API key (check ANTHROPIC_API_KEY) (HTTP 401): invalid x-api-key (gave up after 2 attempts)"
	if e.Error() != want {
		t.Errorf("Error() = %q\nwant      %q", e.Error(), want)
	}
	if !errors.Is(e, ErrAuth) {
		t.Error("errors.Is(e, ErrAuth) is false")
	}
}
