package llmtest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Anthropic's Messages API, as its documentation describes the wire
// (https://docs.anthropic.com/en/api/messages, .../messages-streaming, .../errors,
// .../build-with-claude/prompt-caching): the same cassette answers POST /v1/messages,
// so a scripted model can be played through a Claude brain too.
//
// Prompt caching is explicit there. A request is a list of blocks in the order tools,
// system, messages; a block with cache_control is a breakpoint (at most 4). At each
// breakpoint the cache is looked up for the prefix ending there and, failing that, for
// the prefixes ending at up to 19 blocks before it (the documented 20-block lookback);
// the longest hit is cache_read_input_tokens. Every breakpoint's prefix is then written,
// and the tokens from the hit to the last breakpoint are cache_creation_input_tokens.
// input_tokens is what is left: the tokens after the last breakpoint, and those before
// it that were not cached. Prefixes under 1,024 tokens (Claude Sonnet's minimum) are
// neither read nor written. A block's tokens are its JSON (without cache_control)
// over 4.

// anthropicLookback is how many blocks before a breakpoint the cache looks for a hit.
const anthropicLookback = 20

// anthropicMaxBreakpoints is the most cache_control blocks a request may carry.
const anthropicMaxBreakpoints = 4

// anthropicCacheKept bounds the simulated cache's entries (oldest dropped first).
const anthropicCacheKept = 4096

// anthropicWindow is the context window the too_long fault reports.
const anthropicWindow = 200000

// anthropicRequest is the part of a Messages API request the server reads.
type anthropicRequest struct {
	Model        string             `json:"model"`
	MaxTokens    *int               `json:"max_tokens"`
	Stream       bool               `json:"stream"`
	System       json.RawMessage    `json:"system"`
	Messages     []anthropicMessage `json:"messages"`
	Tools        []json.RawMessage  `json:"tools"`
	Thinking     *anthropicThinking `json:"thinking"`
	Temperature  *float64           `json:"temperature"`
	CacheControl json.RawMessage    `json:"cache_control"`
	ToolChoice   *anthropicChoice   `json:"tool_choice"`
}

// anthropicChoice is a request's tool_choice: auto, any, tool (with a name) or none.
type anthropicChoice struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

type anthropicThinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

type anthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"` // a string or a list of blocks
}

// anthropicBlock is a content block of a request.
type anthropicBlock struct {
	Type         string          `json:"type"`
	Text         *string         `json:"text"`
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Input        json.RawMessage `json:"input"`
	ToolUseID    string          `json:"tool_use_id"`
	Thinking     string          `json:"thinking"`
	Signature    string          `json:"signature"`
	Data         string          `json:"data"`
	CacheControl json.RawMessage `json:"cache_control"`
}

// blocks reads a message's content: a string is one text block.
func (m anthropicMessage) blocks() ([]anthropicBlock, []json.RawMessage, error) {
	var s string
	if err := json.Unmarshal(m.Content, &s); err == nil {
		raw, _ := json.Marshal(map[string]string{"type": "text", "text": s})
		return []anthropicBlock{{Type: "text", Text: &s}}, []json.RawMessage{raw}, nil
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(m.Content, &raws); err != nil {
		return nil, nil, fmt.Errorf("content: want a string or a list of content blocks")
	}
	out := make([]anthropicBlock, len(raws))
	for i, r := range raws {
		if err := json.Unmarshal(r, &out[i]); err != nil {
			return nil, nil, fmt.Errorf("content.%d: want a content block object", i)
		}
	}
	return out, raws, nil
}

// anthropicPrefix is a request laid out as the cache sees it: for each block, the
// running hash and token count of the prompt up to and including it, and whether the
// block is a breakpoint.
type anthropicPrefix struct {
	hashes      [][32]byte
	tokens      []int // cumulative
	breakpoints []int
	total       int
}

// anthropicLayout lays out a request's blocks in cache order: tools, system, messages.
func anthropicLayout(req anthropicRequest) (anthropicPrefix, error) {
	var p anthropicPrefix
	var h [32]byte
	chars := 0
	add := func(role string, raw json.RawMessage) error {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return err
		}
		_, marked := m["cache_control"]
		delete(m, "cache_control") // where a breakpoint sits is not the content
		canon, err := json.Marshal(m)
		if err != nil {
			return err
		}
		sum := sha256.New()
		sum.Write(h[:])
		sum.Write([]byte(role))
		sum.Write(canon)
		copy(h[:], sum.Sum(nil))
		chars += len(canon)
		p.hashes = append(p.hashes, h)
		p.tokens = append(p.tokens, chars/charsPerToken)
		if marked {
			p.breakpoints = append(p.breakpoints, len(p.hashes)-1)
		}
		return nil
	}
	for i, t := range req.Tools {
		if err := add("tool", t); err != nil {
			return p, fmt.Errorf("tools.%d: want a tool object", i)
		}
	}
	if len(req.System) > 0 && string(req.System) != "null" {
		var s string
		if json.Unmarshal(req.System, &s) == nil {
			raw, _ := json.Marshal(map[string]string{"type": "text", "text": s})
			if err := add("system", raw); err != nil {
				return p, err
			}
		} else {
			var raws []json.RawMessage
			if err := json.Unmarshal(req.System, &raws); err != nil {
				return p, fmt.Errorf("system: want a string or a list of text blocks")
			}
			for i, r := range raws {
				if err := add("system", r); err != nil {
					return p, fmt.Errorf("system.%d: want a text block object", i)
				}
			}
		}
	}
	for i, m := range req.Messages {
		_, raws, err := m.blocks()
		if err != nil {
			return p, fmt.Errorf("messages.%d.%v", i, err)
		}
		for j, r := range raws {
			if err := add(m.Role, r); err != nil {
				return p, fmt.Errorf("messages.%d.content.%d: want a content block object", i, j)
			}
		}
	}
	if len(req.CacheControl) > 0 && string(req.CacheControl) != "null" && len(p.hashes) > 0 {
		// Automatic caching: a breakpoint on the last block.
		if n := len(p.hashes) - 1; len(p.breakpoints) == 0 || p.breakpoints[len(p.breakpoints)-1] != n {
			p.breakpoints = append(p.breakpoints, n)
		}
	}
	p.total = (chars + charsPerToken - 1) / charsPerToken
	return p, nil
}

// anthropicCache looks p up in the simulated cache and, when processed (the model read
// the prompt), writes its breakpoints' prefixes. It returns the tokens read from the
// cache and written to it.
func (s *Server) anthropicCache(p anthropicPrefix, processed bool) (read, write int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.anthCache == nil {
		s.anthCache = map[[32]byte]bool{}
	}
	for _, bp := range p.breakpoints {
		for j := bp; j >= 0 && j > bp-anthropicLookback; j-- {
			if p.tokens[j] >= cacheMinTokens && s.anthCache[p.hashes[j]] {
				read = max(read, p.tokens[j])
				break
			}
		}
	}
	last := -1
	for _, bp := range p.breakpoints {
		if p.tokens[bp] < cacheMinTokens {
			continue
		}
		last = bp
		if processed && !s.anthCache[p.hashes[bp]] {
			s.anthCache[p.hashes[bp]] = true
			s.anthOrder = append(s.anthOrder, p.hashes[bp])
			if len(s.anthOrder) > anthropicCacheKept {
				delete(s.anthCache, s.anthOrder[0])
				s.anthOrder = keepLast(s.anthOrder, anthropicCacheKept)
			}
		}
	}
	if last >= 0 && p.tokens[last] > read {
		write = p.tokens[last] - read
	}
	return read, write
}

// anthropicSignature is the server's seal on a thinking block: the block must come back
// with it unchanged.
func anthropicSignature(thinking string) string {
	sum := sha256.Sum256([]byte("llmtest-thinking\x00" + thinking))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// messages answers POST /v1/messages.
func (s *Server) messages(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		anthropicError(w, http.StatusBadRequest, "invalid_request_error", "could not read the request body: "+err.Error())
		return
	}
	s.mu.Lock()
	s.raw = keepLast(append(s.raw, body), Kept)
	s.mu.Unlock()
	if r.Header.Get("X-Api-Key") == "" && r.Header.Get("Authorization") == "" {
		anthropicError(w, http.StatusUnauthorized, "authentication_error", "x-api-key header is required")
		return
	}
	if r.Header.Get("Anthropic-Version") == "" {
		anthropicError(w, http.StatusBadRequest, "invalid_request_error", "anthropic-version: header is required")
		return
	}
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		anthropicError(w, http.StatusBadRequest, "invalid_request_error", "There was an error parsing the body of your request: "+err.Error())
		return
	}
	layout, err := anthropicLayout(req)
	if err == nil {
		err = checkAnthropic(req, len(layout.breakpoints))
	}
	if err != nil {
		// Refused as the API refuses it, without using up a step: the script is about
		// the model, this is about the client.
		anthropicError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	st, id := s.take()
	model := req.Model
	processed := st.Fault == "" || st.Fault == FaultCut || st.Fault == FaultTimeout || st.Fault == FaultOverloadedEvent
	read, write := s.anthropicCache(layout, processed)
	if s.c.Cache == CacheNone {
		read, write = 0, 0
	}
	switch st.Fault {
	case "":
		s.anthropicAnswer(w, req, s.anthropicBuild(st, id, model, req, layout.total, read, write), "")
	case FaultCut, FaultOverloadedEvent:
		if st.Fault == FaultCut && st.Text == "" && len(st.Calls) == 0 {
			st.Text = "Let me look around first, and then I will"
			st.Calls = []Call{{Tool: "observe_game", Args: json.RawMessage(`{"reason": "this call never finishes"}`)}}
		}
		if st.Fault == FaultOverloadedEvent && !req.Stream {
			anthropicError(w, 529, "overloaded_error", "Overloaded")
			return
		}
		s.anthropicAnswer(w, req, s.anthropicBuild(st, id, model, req, layout.total, read, write), st.Fault)
	case FaultRateLimit:
		w.Header().Set("Retry-After", "1")
		w.Header().Set("Anthropic-Ratelimit-Requests-Limit", "50")
		w.Header().Set("Anthropic-Ratelimit-Requests-Remaining", "0")
		w.Header().Set("Anthropic-Ratelimit-Requests-Reset", time.Unix(created, 0).UTC().Format(time.RFC3339))
		anthropicError(w, http.StatusTooManyRequests, "rate_limit_error",
			"Number of request tokens has exceeded your per-minute rate limit (https://docs.anthropic.com/en/api/rate-limits); see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later.")
	case FaultServer:
		anthropicError(w, http.StatusInternalServerError, "api_error", "Internal server error")
	case FaultOverloaded:
		anthropicError(w, 529, "overloaded_error", "Overloaded")
	case FaultTooLong:
		anthropicError(w, http.StatusBadRequest, "invalid_request_error",
			fmt.Sprintf("prompt is too long: %d tokens > %d maximum", max(layout.total, anthropicWindow+1), anthropicWindow))
	case FaultAuth:
		anthropicError(w, http.StatusUnauthorized, "authentication_error", "invalid x-api-key")
	case FaultNoTools:
		anthropicError(w, http.StatusBadRequest, "invalid_request_error", "tools: "+model+" does not support tool use")
	case FaultMalformedBody:
		writeWelcomePage(w)
	case FaultTimeout:
		if s.hold(r) {
			anthropicError(w, http.StatusGatewayTimeout, "timeout_error", "llmtest: timeout fault held the request for 30s")
		}
	}
}

// anthropicReply is a step ready to send in the Messages API's shape.
type anthropicReply struct {
	id, model string
	blocks    []map[string]any // content blocks, complete
	stop      string
	usage     map[string]int
}

// anthropicBuild turns a step into an answer to req, whose prompt has total tokens, of
// which read came from the cache and write went into it.
func (s *Server) anthropicBuild(st Step, id, model string, req anthropicRequest, total, read, write int) anthropicReply {
	a := anthropicReply{id: "msg_llmtest_" + id, model: model, stop: "end_turn"}
	completion := 0
	if req.Thinking != nil && req.Thinking.Type == "enabled" {
		text := st.Thinking
		if text == "" {
			text = "The script says what to do at step " + id + "."
		}
		a.blocks = append(a.blocks, map[string]any{"type": "thinking", "thinking": text, "signature": anthropicSignature(text)})
		completion += len(text)
	}
	if st.Text != "" {
		a.blocks = append(a.blocks, map[string]any{"type": "text", "text": st.Text})
		completion += len(st.Text)
	}
	for i, c := range st.Calls {
		cid := c.ID
		if cid == "" {
			cid = fmt.Sprintf("toolu_llmtest_%s_%d", id, i)
		}
		args := c.Arguments()
		a.blocks = append(a.blocks, map[string]any{"type": "tool_use", "id": cid, "name": c.Tool, "input": json.RawMessage(args)})
		completion += len(c.Tool) + len(args)
		a.stop = "tool_use"
	}
	prompt, out := total, (completion+charsPerToken-1)/charsPerToken
	if st.Usage != nil {
		prompt, out = st.Usage.PromptTokens, st.Usage.CompletionTokens
		read, write = min(st.Usage.CachedTokens, prompt), 0
	}
	read, write = min(read, prompt), min(write, prompt-min(read, prompt))
	a.usage = map[string]int{
		"input_tokens":                prompt - read - write,
		"cache_read_input_tokens":     read,
		"cache_creation_input_tokens": write,
		"output_tokens":               out,
	}
	return a
}

// anthropicAnswer sends a, streamed when the request asked for it. fault is "", cut
// (stop midway and drop the connection) or overloaded_event (an error event midway).
func (s *Server) anthropicAnswer(w http.ResponseWriter, req anthropicRequest, a anthropicReply, fault Fault) {
	if !req.Stream {
		for _, b := range a.blocks {
			if in, ok := b["input"].(json.RawMessage); ok && !json.Valid(in) {
				b["input"] = map[string]any{} // a whole answer is JSON; scripted junk cannot be
			}
		}
		body := mustJSON(map[string]any{
			"id": a.id, "type": "message", "role": "assistant", "model": a.model,
			"content": a.blocks, "stop_reason": a.stop, "stop_sequence": nil, "usage": a.usage,
		})
		writeWhole(w, body, fault == FaultCut)
		return
	}
	events, cut := a.events()
	switch fault {
	case FaultCut:
		events = events[:cut]
	case FaultOverloadedEvent:
		events = append(events[:cut], sse("error", map[string]any{"type": "error",
			"error": map[string]any{"type": "overloaded_error", "message": "Overloaded"}}))
	}
	// A cut sends no message_stop.
	writeEvents(w, events, fault == FaultCut)
}

// events is the streamed answer, and cut, how many events a cut sends: up to the first
// piece of the last tool call's input (so a call is always left unfinished), or up to
// the middle of the text.
func (a anthropicReply) events() (events [][]byte, cut int) {
	start := map[string]any{
		"id": a.id, "type": "message", "role": "assistant", "model": a.model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": a.usage["input_tokens"], "cache_read_input_tokens": a.usage["cache_read_input_tokens"],
			"cache_creation_input_tokens": a.usage["cache_creation_input_tokens"], "output_tokens": 1},
	}
	events = append(events, sse("message_start", map[string]any{"type": "message_start", "message": start}),
		sse("ping", map[string]any{"type": "ping"}))
	cut = len(events)
	for i, b := range a.blocks {
		delta := func(d map[string]any) []byte {
			return sse("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d})
		}
		switch b["type"] {
		case "text":
			events = append(events, sse("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}}))
			pieces := split(b["text"].(string), 3)
			for j, p := range pieces {
				events = append(events, delta(map[string]any{"type": "text_delta", "text": p}))
				if j == (len(pieces)-1)/2 {
					cut = len(events)
				}
			}
		case "thinking":
			events = append(events, sse("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "thinking", "thinking": ""}}))
			for _, p := range split(b["thinking"].(string), 3) {
				events = append(events, delta(map[string]any{"type": "thinking_delta", "thinking": p}))
			}
			events = append(events, delta(map[string]any{"type": "signature_delta", "signature": b["signature"]}))
		case "tool_use":
			events = append(events, sse("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}}))
			for j, p := range split(string(b["input"].(json.RawMessage)), 3) {
				events = append(events, delta(map[string]any{"type": "input_json_delta", "partial_json": p}))
				if j == 0 {
					cut = len(events)
				}
			}
		}
		events = append(events, sse("content_block_stop", map[string]any{"type": "content_block_stop", "index": i}))
	}
	events = append(events,
		sse("message_delta", map[string]any{"type": "message_delta",
			"delta": map[string]any{"stop_reason": a.stop, "stop_sequence": nil},
			"usage": map[string]int{"output_tokens": a.usage["output_tokens"]}}),
		sse("message_stop", map[string]any{"type": "message_stop"}))
	return events, cut
}

// sse is one named server-sent event, as Anthropic streams them.
func sse(name string, v any) []byte {
	return fmt.Appendf(nil, "event: %s\ndata: %s\n\n", name, mustJSON(v))
}

// anthropicError writes an Anthropic error object.
func anthropicError(w http.ResponseWriter, status int, typ, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Request-Id", "req_llmtest")
	w.WriteHeader(status)
	w.Write(mustJSON(map[string]any{ //nolint:errcheck // the client hung up
		"type": "error", "error": map[string]any{"type": typ, "message": message}, "request_id": "req_llmtest",
	}))
}
