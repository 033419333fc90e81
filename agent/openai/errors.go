package openai

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/game"
)

// A Brain's errors are *brain.Error values whose Kind is one of agent/brain's Err*
// kinds (test them with errors.Is); their text starts "openai:" and, when the key was
// refused, names keyEnv.
const keyEnv = "OPENAI_API_KEY"

// classify turns an error from go-openai or the transport into a *brain.Error (without
// Model, BaseURL and Attempts, which the caller knows).
func classify(err error) *brain.Error {
	var apiErr *goopenai.APIError
	var reqErr *goopenai.RequestError
	var synErr *json.SyntaxError
	var typErr *json.UnmarshalTypeError
	var opErr *net.OpError
	switch {
	case errors.As(err, &apiErr):
		e := byStatus(apiErr.HTTPStatusCode, apiErr.Message)
		if code, _ := apiErr.Code.(string); code == "context_length_exceeded" && apiErr.HTTPStatusCode < 500 {
			e.Kind = brain.ErrContextLength
		}
		return e
	case errors.As(err, &reqErr):
		detail := strings.TrimSpace(string(reqErr.Body))
		if detail == "" && reqErr.Err != nil {
			detail = reqErr.Err.Error()
		}
		return byStatus(reqErr.HTTPStatusCode, game.Clip(detail, 300))
	case errors.As(err, &synErr), errors.As(err, &typErr):
		return &brain.Error{Kind: brain.ErrMalformed, Detail: "not a chat completion: " + err.Error()}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &brain.Error{Kind: brain.ErrCut, Detail: "the connection closed mid-answer"}
	case errors.Is(err, goopenai.ErrTooManyEmptyStreamMessages):
		return &brain.Error{Kind: brain.ErrMalformed, Detail: "the stream carried no data lines (not an OpenAI event stream)"}
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return &brain.Error{Kind: brain.ErrUnreachable, Detail: err.Error()}
	}
	return &brain.Error{Kind: brain.ErrNetwork, Detail: err.Error()}
}

// byStatus classifies an HTTP error answer (brain.ByStatus, with no error type: an
// OpenAI-compatible server's types say no more than its status).
func byStatus(status int, msg string) *brain.Error { return brain.ByStatus(status, "", msg) }
