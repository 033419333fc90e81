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
// model; POST /v1/messages answers from the same cassette in Anthropic's Messages API
// (anthropic.go). It is safe for concurrent use.
//
// It reports cached prompt tokens the way automatic prefix caching does. A request's
// prompt text is the raw JSON of its tools array followed by the raw JSON of its
// messages array, as received (PromptText); its prompt tokens are the text's length
// divided by 4, rounded up. Its cached tokens are the longest byte prefix it shares
// with the prompt text of one of the last CacheKept requests the model processed,
// divided by 4 and rounded down to a whole number of 128-token blocks, and 0 under
// 1,024 tokens. A step's scripted usage replaces both counts.
type Server struct {
	c    *Cassette
	ln   net.Listener
	http *http.Server
	done chan struct{} // closed by Close, to release held requests
	wg   sync.WaitGroup

	mu   sync.Mutex
	next int // the step the next request gets
	pass int // how many times a repeating cassette started over
	n    int // chat requests answered so far
	reqs []openai.ChatCompletionRequest
	raw  [][]byte
	// prompts are the prompt texts of the last CacheKept requests the model processed
	// (answered, cut or held), oldest first: the simulated prompt cache.
	prompts [][]byte
	// anthCache is the simulated prompt cache of the Messages API route: the prefixes
	// written at breakpoints (anthropic.go), anthOrder the same oldest first.
	anthCache map[[32]byte]bool
	anthOrder [][32]byte
	close     sync.Once
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
	mux.HandleFunc("POST /v1/messages", s.track(s.messages)) // Anthropic's wire (anthropic.go)
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

// CacheKept is how many earlier prompts the simulated prompt cache compares a request
// with: the most recent ones, so its memory and its work per request stay bounded.
const CacheKept = 64

// keepLast drops the oldest entries past n, reusing the slice's storage.
func keepLast[T any](xs []T, n int) []T {
	if len(xs) <= n {
		return xs
	}
	k := copy(xs, xs[len(xs)-n:])
	clear(xs[k:])
	return xs[:k]
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

// PromptTexts returns the prompt text (see PromptText) of each request body that
// RawRequests returns, in the same order; nil for a body that is not a JSON object.
// Tests measure with it how much of each prompt repeats the one before (SharedPrefix).
func (s *Server) PromptTexts() [][]byte {
	raw := s.RawRequests()
	out := make([][]byte, len(raw))
	for i, body := range raw {
		out[i], _ = PromptText(body)
	}
	return out
}

// PromptText returns a chat-completions request body's prompt text: the raw JSON of
// its tools array followed by the raw JSON of its messages array, byte for byte as
// sent (either is left out when absent). It is what a provider's prefix cache sees,
// in the order providers put it.
func PromptText(body []byte) ([]byte, error) {
	var p struct {
		Tools    json.RawMessage `json:"tools"`
		Messages json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, fmt.Errorf("llmtest: a request body that is not a JSON object: %w", err)
	}
	return append(append(make([]byte, 0, len(p.Tools)+len(p.Messages)), p.Tools...), p.Messages...), nil
}

// SharedPrefix returns how many bytes a and b have in common from their start.
func SharedPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	const block = 64
	i := 0
	for i+block <= n && string(a[i:i+block]) == string(b[i:i+block]) {
		i += block
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// Cache arithmetic, as OpenAI documents its automatic prompt caching.
const (
	charsPerToken   = 4    // the server's estimate of a token
	cacheMinTokens  = 1024 // prompts shorter than this are never cached
	cacheBlockToken = 128  // the cache hits in blocks of this many tokens
)

// promptTokens estimates the tokens of a prompt text: its length over 4, rounded up.
func promptTokens(text []byte) int { return (len(text) + charsPerToken - 1) / charsPerToken }

// cachedTokens turns a shared prefix in bytes into cached tokens: whole blocks of 128
// tokens, none under 1,024.
func cachedTokens(prefix int) int {
	t := prefix / charsPerToken
	if t < cacheMinTokens {
		return 0
	}
	return t / cacheBlockToken * cacheBlockToken
}

// lookup returns the cached tokens of prompt against the recent prompts and, when
// processed (the model read it), remembers prompt for the requests after it.
func (s *Server) lookup(prompt []byte, processed bool) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	best := 0
	for _, p := range s.prompts {
		best = max(best, SharedPrefix(p, prompt))
	}
	if processed {
		s.prompts = keepLast(append(s.prompts, prompt), CacheKept)
	}
	return cachedTokens(best)
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
	s.raw = keepLast(append(s.raw, body), Kept)
	if decodeErr == nil {
		s.reqs = keepLast(append(s.reqs, req), Kept)
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
	// The model reads the prompt of a request it answers, even one cut short or held;
	// a refused one (429, 500, no tools) or one a proxy answered never reached it.
	prompt, _ := PromptText(body) // the body decoded above, so it is an object
	cached := s.lookup(prompt, st.Fault == "" || st.Fault == FaultCut || st.Fault == FaultTimeout)
	switch st.Fault {
	case "":
		s.answer(w, req, s.build(st, id, model, prompt, cached), false)
	case FaultCut:
		if st.Text == "" && len(st.Calls) == 0 {
			st.Text = "Let me look around first, and then I will"
			st.Calls = []Call{{Tool: "observe_game", Args: json.RawMessage(`{"reason": "this call never finishes"}`)}}
		}
		s.answer(w, req, s.build(st, id, model, prompt, cached), true)
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
	case FaultOverloaded, FaultOverloadedEvent:
		writeError(w, 529, "The server is overloaded. Please try again later.", "server_error", nil)
	case FaultTooLong:
		writeError(w, http.StatusBadRequest, fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.",
			anthropicWindow, max(promptTokens(prompt), anthropicWindow+1)), "invalid_request_error", "context_length_exceeded")
	case FaultAuth:
		writeError(w, http.StatusUnauthorized, "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.", "invalid_request_error", "invalid_api_key")
	case FaultMalformedBody:
		writeWelcomePage(w)
	case FaultTimeout:
		if s.hold(r) {
			writeError(w, http.StatusGatewayTimeout, "llmtest: timeout fault held the request for 30s", "server_error", nil)
		}
	}
}

// Played reports how many answers a cassette that does not repeat has given, out of how
// many it has (faults are not answers). A repeating cassette never runs out: its total
// is 0.
func (s *Server) Played() (played, total int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c.Repeat {
		return 0, 0
	}
	for i, st := range s.c.Steps {
		if st.Fault == "" {
			total++
			if i < s.next {
				played++
			}
		}
	}
	return played, total
}

// Skip passes over the cassette's first n answers (and the faults among and before
// them), as if they had been given: a resumed session goes on where its script was.
func (s *Server) Skip(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ; n > 0 && s.next < len(s.c.Steps); s.next++ {
		if s.c.Steps[s.next].Fault == "" {
			n--
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

// build turns a step into an answer to a request with the given prompt text, of
// which the prompt cache holds cached tokens.
func (s *Server) build(st Step, id, model string, prompt []byte, cached int) answer {
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
		cached = st.Usage.CachedTokens
	} else {
		a.usage = wireUsage{PromptTokens: promptTokens(prompt), CompletionTokens: completion / charsPerToken}
	}
	a.usage.TotalTokens = a.usage.PromptTokens + a.usage.CompletionTokens
	cached = min(cached, a.usage.PromptTokens)
	switch s.c.Cache {
	case CacheNone:
	case CacheDeepSeek:
		miss := a.usage.PromptTokens - cached
		a.usage.PromptCacheHitTokens, a.usage.PromptCacheMissTokens = &cached, &miss
	default:
		a.usage.PromptTokensDetails = &wirePromptDetails{CachedTokens: cached}
	}
	return a
}

// answer sends a, streamed when the request asked for it; cut stops it midway and
// drops the connection.
func (s *Server) answer(w http.ResponseWriter, req openai.ChatCompletionRequest, a answer, cut bool) {
	if !req.Stream {
		writeWhole(w, a.completion(), cut)
		return
	}
	events, cutAt := a.chunks()
	if cut {
		events = events[:cutAt] // no terminating chunk
	} else {
		events = append(events, a.tail(req.StreamOptions != nil && req.StreamOptions.IncludeUsage)...)
	}
	writeEvents(w, events, cut)
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
