package anthropic

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/agent/retry"
	"github.com/coplayhq/coplay/game"
)

// classify turns an error from the SDK or the transport into a *brain.Error (without Model,
// BaseURL and Attempts, which the caller knows).
func classify(err error) *brain.Error {
	var apiErr *sdk.Error
	var opErr *net.OpError
	switch {
	case errors.As(err, &apiErr):
		status := apiErr.StatusCode
		if status == http.StatusOK {
			status = 0 // an error event inside a 200 stream
		}
		e := brain.ByStatus(status, string(apiErr.Type()), game.Clip(apiMessage(apiErr), 300))
		if apiErr.Response != nil {
			e.Wait = retry.After(apiErr.Response.Header, time.Now())
		}
		switch apiErr.ErrorCode() {
		case sdk.ErrorCodeEnforcedSpendLimitReached, sdk.ErrorCodeContractSpendLimitReached:
			// A spend limit, not a rate: every retry fails until the limit is raised or
			// the month is over.
			e.NoRetry = true
		}
		return e
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &brain.Error{Kind: brain.ErrCut, Detail: "the connection closed mid-answer"}
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return &brain.Error{Kind: brain.ErrUnreachable, Detail: err.Error()}
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return &brain.Error{Kind: brain.ErrNetwork, Detail: err.Error()}
	}
	msg := err.Error()
	if strings.Contains(msg, "unmarshal") || strings.Contains(msg, "invalid character") ||
		strings.Contains(msg, "content-type") || strings.Contains(msg, "unexpected end of JSON") {
		return &brain.Error{Kind: brain.ErrMalformed, Detail: "not a Messages API answer: " + game.Clip(msg, 300)}
	}
	return &brain.Error{Kind: brain.ErrNetwork, Detail: game.Clip(msg, 300)}
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
