package anthropic

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/coplayhq/coplay/agent/openai"
	"github.com/coplayhq/coplay/agent/retry"
)

// Kinds of failure, the same values as agent/openai's, so a caller tests any brain's
// error the same way (errors.Is(err, anthropic.ErrRateLimited) and
// errors.Is(err, openai.ErrRateLimited) are one test).
var (
	ErrRateLimited   = openai.ErrRateLimited   // HTTP 429
	ErrServer        = openai.ErrServer        // HTTP 5xx, 529 overloaded, an error event mid-stream
	ErrTimeout       = openai.ErrTimeout       // silent for Config.Timeout
	ErrCut           = openai.ErrCut           // the answer stopped before the model finished
	ErrMalformed     = openai.ErrMalformed     // not a Messages API answer
	ErrAuth          = openai.ErrAuth          // HTTP 401 or 403 (the message names ANTHROPIC_API_KEY)
	ErrRejected      = openai.ErrRejected      // any other 4xx
	ErrUnreachable   = openai.ErrUnreachable   // nothing answered at the base URL
	ErrNetwork       = openai.ErrNetwork       // another connection failure
	ErrContextLength = openai.ErrContextLength // "prompt is too long", after shrinking failed
	ErrNoTools       = openai.ErrNoTools       // a proxy's model that cannot call tools
)

// Error is a failed model call: what kind of failure, where, and what the server said.
// Its text never contains the API key.
type Error struct {
	Kind     error  // one of the Err* values
	Model    string // the model asked
	BaseURL  string // the server asked
	Status   int    // HTTP status, 0 when there was no HTTP answer
	Type     string // Anthropic's error type (overloaded_error, rate_limit_error...), when it gave one
	Attempts int    // how many requests were made in all
	Detail   string // the server's message or the transport's error, scrubbed of the key

	noRetry bool          // another attempt would fail the same way, whatever the kind says
	wait    time.Duration // what the server asked to wait before a retry (retry-after)
}

// Error reads like "anthropic: claude-sonnet-4-5 at https://api.anthropic.com: rate
// limited (HTTP 429): Number of request tokens has exceeded your per-minute rate limit
// (gave up after 4 attempts)".
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "anthropic: %s at %s: ", e.Model, e.BaseURL)
	if e.Kind == ErrAuth {
		// openai's text names OPENAI_API_KEY; this brain's key is another variable.
		fmt.Fprintf(&b, "the server refused the API key (check %s)", KeyEnv)
	} else {
		fmt.Fprint(&b, e.Kind)
	}
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (gave up after %d attempts)", e.Attempts)
	}
	return b.String()
}

// Unwrap returns the Kind, so errors.Is(err, ErrRateLimited) works.
func (e *Error) Unwrap() error { return e.Kind }

// classify turns an error from the SDK or the transport into an *Error (without Model,
// BaseURL and Attempts, which the caller knows).
func classify(err error) *Error {
	var apiErr *sdk.Error
	var opErr *net.OpError
	switch {
	case errors.As(err, &apiErr):
		status := apiErr.StatusCode
		if status == http.StatusOK {
			status = 0 // an error event inside a 200 stream
		}
		e := byStatus(status, string(apiErr.Type()), clip(apiMessage(apiErr), 300))
		if apiErr.Response != nil {
			e.wait = retry.After(apiErr.Response.Header, time.Now())
		}
		switch apiErr.ErrorCode() {
		case sdk.ErrorCodeEnforcedSpendLimitReached, sdk.ErrorCodeContractSpendLimitReached:
			// A spend limit, not a rate: every retry fails until the limit is raised or
			// the month is over.
			e.noRetry = true
		}
		return e
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &Error{Kind: ErrCut, Detail: "the connection closed mid-answer"}
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return &Error{Kind: ErrUnreachable, Detail: err.Error()}
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return &Error{Kind: ErrNetwork, Detail: err.Error()}
	}
	msg := err.Error()
	if strings.Contains(msg, "unmarshal") || strings.Contains(msg, "invalid character") ||
		strings.Contains(msg, "content-type") || strings.Contains(msg, "unexpected end of JSON") {
		return &Error{Kind: ErrMalformed, Detail: "not a Messages API answer: " + clip(msg, 300)}
	}
	return &Error{Kind: ErrNetwork, Detail: clip(msg, 300)}
}

// apiMessage is what the server said: Anthropic's error.message, or the raw body when
// it was not an Anthropic error object.
func apiMessage(e *sdk.Error) string {
	if e.Message != "" {
		return e.Message
	}
	if raw := strings.TrimSpace(e.RawJSON()); raw != "" {
		return raw
	}
	return http.StatusText(e.StatusCode)
}

// byStatus classifies an HTTP error answer by its status and Anthropic's error type
// (https://docs.anthropic.com/en/api/errors).
func byStatus(status int, typ, msg string) *Error {
	e := &Error{Status: status, Type: typ, Detail: msg}
	switch {
	case status == 413 || typ == "request_too_large" || (status >= 400 && status < 500 && contextLengthMessage(msg)):
		e.Kind = ErrContextLength
	case status >= 400 && status < 500 && noToolsMessage(msg):
		e.Kind = ErrNoTools
	case status == 429 || typ == "rate_limit_error":
		e.Kind = ErrRateLimited
	case status == 529 || typ == "overloaded_error" || typ == "api_error" || status >= 500:
		e.Kind = ErrServer
	case status == 401 || status == 403 || typ == "authentication_error" || typ == "permission_error":
		e.Kind = ErrAuth
	case status == 0:
		// An error event inside a 200 stream of a type not named above: the server
		// failed mid-answer.
		e.Kind = ErrServer
	case status == 408 || typ == "timeout_error":
		e.Kind = ErrTimeout
	default:
		e.Kind = ErrRejected
	}
	return e
}

// contextLengthMessage recognises what Anthropic (and proxies in front of it) say when
// a prompt is too long: "prompt is too long: 212345 tokens > 200000 maximum", "input
// length and max_tokens exceed context limit", "request entity too large".
func contextLengthMessage(msg string) bool {
	m := strings.ToLower(msg)
	for _, s := range []string{"prompt is too long", "exceed context limit", "context window", "context length",
		"too many tokens", "entity too large", "request too large", "input is too long"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// noToolsMessage recognises a server saying its model cannot call tools: every Claude
// model can, but a proxy may serve another model under this wire.
func noToolsMessage(msg string) bool {
	m := strings.ToLower(msg)
	if !strings.Contains(m, "tool") {
		return false
	}
	for _, s := range []string{"does not support", "not supported", "unsupported"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// clip shortens s to at most n bytes, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
