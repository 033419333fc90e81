package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sashabaranov/go-openai"
)

// maxHold bounds a timeout fault, so a forgotten client cannot hang a test run.
const maxHold = 30 * time.Second

// Server is a scripted OpenAI-compatible server on 127.0.0.1. It answers
// POST /v1/chat/completions from its cassette and GET /v1/models with the cassette's
// model. It is safe for concurrent use.
type Server struct {
	c    *Cassette
	ln   net.Listener
	http *http.Server
	done chan struct{} // closed by Close, to release held requests
	wg   sync.WaitGroup

	mu    sync.Mutex
	next  int // the step the next request gets
	pass  int // how many times a repeating cassette started over
	n     int // chat requests answered so far
	reqs  []openai.ChatCompletionRequest
	raw   [][]byte
	close sync.Once
}

// NewServer starts a server for c on a free loopback port. It panics if it cannot
// listen, like httptest.NewServer: there is nothing a caller could do about it.
func NewServer(c *Cassette) *Server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("llmtest: listen on 127.0.0.1: %v", err))
	}
	s := &Server{c: c, ln: ln, done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.track(s.chat))
	mux.HandleFunc("GET /v1/models", s.track(s.models))
	mux.HandleFunc("/", s.track(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("Unknown request URL: %s %s", r.Method, r.URL.Path), "invalid_request_error", "unknown_url")
	}))
	s.http = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go s.http.Serve(ln) //nolint:errcheck // Serve returns ErrServerClosed after Close
	return s
}

// URL returns the base URL, ending in /v1, for an OpenAI client's base URL setting.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() + "/v1" }

// Kept is how many requests a Server remembers: the most recent ones. A scripted
// demo (--brain script:FILE) can run for hours, and every request carries the whole
// prompt, so memory must not grow with the session.
const Kept = 1000

// keepLast drops the oldest entries past Kept, reusing the slice's storage.
func keepLast[T any](xs []T) []T {
	if len(xs) <= Kept {
		return xs
	}
	n := copy(xs, xs[len(xs)-Kept:])
	clear(xs[n:])
	return xs[:n]
}

// Requests returns the chat-completions requests received so far (the most recent
// Kept of them), in order, including those answered with a fault.
func (s *Server) Requests() []openai.ChatCompletionRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]openai.ChatCompletionRequest(nil), s.reqs...)
}

// RawRequests returns the request bodies received so far (the most recent Kept of
// them), byte for byte.
func (s *Server) RawRequests() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.raw...)
}

// Close stops the server, releases held requests and waits for handlers to return.
func (s *Server) Close() error {
	var err error
	s.close.Do(func() {
		close(s.done)
		err = s.http.Close()
		s.wg.Wait()
	})
	return err
}

func (s *Server) track(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.wg.Add(1)
		defer s.wg.Done()
		h(w, r)
	}
}

func (s *Server) models(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(mustJSON(map[string]any{ //nolint:errcheck // the client hung up
		"object": "list",
		"data":   []any{map[string]any{"id": s.c.Model, "object": "model", "created": created, "owned_by": "llmtest"}},
	}))
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		writeError(w, http.StatusBadRequest, "could not read the request body: "+err.Error(), "invalid_request_error", nil)
		return
	}
	var req openai.ChatCompletionRequest
	decodeErr := json.Unmarshal(body, &req)
	s.mu.Lock()
	s.raw = keepLast(append(s.raw, body))
	if decodeErr == nil {
		s.reqs = keepLast(append(s.reqs, req))
	}
	s.mu.Unlock()
	if decodeErr != nil {
		writeError(w, http.StatusBadRequest, "We could not parse the JSON body of your request: "+decodeErr.Error(), "invalid_request_error", nil)
		return
	}
	if msg, param := checkConversation(req.Messages); msg != "" {
		// Refused like OpenAI refuses it, and without using up a step: the script
		// is about the model, this is about the client.
		writeErrorParam(w, http.StatusBadRequest, msg, param)
		return
	}
	st, id := s.take()
	model := s.c.Model
	if req.Model != "" {
		model = req.Model
	}
	switch st.Fault {
	case "":
		s.answer(w, req, s.build(st, id, model, req), false)
	case FaultCut:
		if st.Text == "" && len(st.Calls) == 0 {
			st.Text = "Let me look around first, and then I will"
			st.Calls = []Call{{Tool: "observe_game", Args: json.RawMessage(`{"reason": "this call never finishes"}`)}}
		}
		s.answer(w, req, s.build(st, id, model, req), true)
	case FaultRateLimit:
		w.Header().Set("Retry-After", "1")
		w.Header().Set("X-Ratelimit-Limit-Requests", "3")
		w.Header().Set("X-Ratelimit-Remaining-Requests", "0")
		w.Header().Set("X-Ratelimit-Reset-Requests", "1s")
		writeError(w, http.StatusTooManyRequests,
			fmt.Sprintf("Rate limit reached for %s on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 1s.", model),
			"requests", "rate_limit_exceeded")
	case FaultServer:
		writeError(w, http.StatusInternalServerError, "The server had an error while processing your request. Sorry about that!", "server_error", nil)
	case FaultNoTools:
		writeError(w, http.StatusBadRequest, model+" does not support tools", "invalid_request_error", nil)
	case FaultMalformedBody:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "<html><head><title>Welcome</title></head><body><h1>It works!</h1></body></html>\n") //nolint:errcheck // the client hung up
	case FaultTimeout:
		select {
		case <-r.Context().Done():
		case <-s.done:
		case <-time.After(maxHold):
			writeError(w, http.StatusGatewayTimeout, "llmtest: timeout fault held the request for 30s", "server_error", nil)
		}
	}
}

// take consumes the next step. id numbers the answer for call ids: the step's index,
// with the pass appended when a repeating cassette goes round again, so ids stay
// unique in one conversation.
func (s *Server) take() (st Step, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	if s.next >= len(s.c.Steps) {
		if !s.c.Repeat {
			return Step{Text: "(end of script)"}, fmt.Sprintf("end_%d", s.n)
		}
		s.pass++
		s.next = 0
		for s.c.Steps[s.next].Fault != "" {
			s.next++
		}
	}
	i := s.next
	s.next++
	id = strconv.Itoa(i)
	if s.pass > 0 {
		id += "_r" + strconv.Itoa(s.pass)
	}
	return s.c.Steps[i], id
}

// build turns a step into an answer for req.
func (s *Server) build(st Step, id, model string, req openai.ChatCompletionRequest) answer {
	a := answer{id: "chatcmpl-llmtest-" + id, model: model, text: st.Text, finish: "stop"}
	completion := len(st.Text)
	for i, c := range st.Calls {
		cid := c.ID
		if cid == "" {
			cid = fmt.Sprintf("call_%s_%d", id, i)
		}
		args := c.Arguments()
		a.calls = append(a.calls, wireCall{ID: cid, Function: wireFunction{Name: c.Tool, Arguments: args}})
		completion += len(c.Tool) + len(args)
	}
	if len(a.calls) > 0 {
		a.finish = "tool_calls"
	}
	if st.Usage != nil {
		a.usage = wireUsage{PromptTokens: st.Usage.PromptTokens, CompletionTokens: st.Usage.CompletionTokens}
	} else {
		a.usage = wireUsage{PromptTokens: promptChars(req) / 4, CompletionTokens: completion / 4}
	}
	a.usage.TotalTokens = a.usage.PromptTokens + a.usage.CompletionTokens
	return a
}

// answer sends a, streamed when the request asked for it; cut stops it midway and
// drops the connection.
func (s *Server) answer(w http.ResponseWriter, req openai.ChatCompletionRequest, a answer, cut bool) {
	if !req.Stream {
		body := a.completion()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		if !cut {
			w.Write(body) //nolint:errcheck // the client hung up
			return
		}
		w.Write(body[:len(body)/2])           //nolint:errcheck // the client hung up
		http.NewResponseController(w).Flush() //nolint:errcheck // best effort before the abort
		panic(http.ErrAbortHandler)           // closes the connection short of Content-Length
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	events, cutAt := a.chunks()
	if cut {
		events = events[:cutAt]
	} else {
		events = append(events, a.tail(req.StreamOptions != nil && req.StreamOptions.IncludeUsage)...)
	}
	for _, e := range events {
		if _, err := w.Write(e); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
	if cut {
		panic(http.ErrAbortHandler) // no terminating chunk: the client sees the body end early
	}
}

// checkConversation refuses what OpenAI refuses about tool messages: a tool message
// that answers no call of the assistant message before it, and an assistant message
// whose calls are not all answered. It returns OpenAI's message and the param.
func checkConversation(msgs []openai.ChatCompletionMessage) (msg, param string) {
	if len(msgs) == 0 {
		return "[] is too short - 'messages'", "messages"
	}
	var open map[string]bool // calls of the last assistant message not yet answered
	var openAt int
	for i, m := range msgs {
		if m.Role == openai.ChatMessageRoleTool {
			if open == nil {
				return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", fmt.Sprintf("messages.[%d].role", i)
			}
			if _, ok := open[m.ToolCallID]; !ok {
				return fmt.Sprintf("Invalid parameter: 'tool_call_id' of '%s' not found in 'tool_calls' of previous message.", m.ToolCallID), fmt.Sprintf("messages.[%d].tool_call_id", i)
			}
			delete(open, m.ToolCallID)
			continue
		}
		if len(open) > 0 {
			return unanswered(open), fmt.Sprintf("messages.[%d].role", openAt)
		}
		open = nil
		if m.Role == openai.ChatMessageRoleAssistant && len(m.ToolCalls) > 0 {
			open = make(map[string]bool, len(m.ToolCalls))
			for _, c := range m.ToolCalls {
				open[c.ID] = true
			}
			openAt = i
		}
	}
	if len(open) > 0 {
		return unanswered(open), fmt.Sprintf("messages.[%d].role", openAt)
	}
	return "", ""
}

func unanswered(open map[string]bool) string {
	ids := make([]string, 0, len(open))
	for id := range open {
		ids = append(ids, id)
	}
	return "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: " + strings.Join(slices.Sorted(slices.Values(ids)), ", ")
}

// promptChars counts what the model is shown, for the usage estimate.
func promptChars(req openai.ChatCompletionRequest) int {
	n := 0
	for _, m := range req.Messages {
		n += len(m.Content)
		for _, c := range m.ToolCalls {
			n += len(c.Function.Name) + len(c.Function.Arguments)
		}
	}
	return n
}

func writeError(w http.ResponseWriter, status int, message, typ string, code any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(errorBody(message, typ, code)) //nolint:errcheck // the client hung up
}

func writeErrorParam(w http.ResponseWriter, status int, message, param string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(mustJSON(map[string]any{"error": map[string]any{ //nolint:errcheck // the client hung up
		"message": message, "type": "invalid_request_error", "param": param, "code": nil,
	}}))
}
