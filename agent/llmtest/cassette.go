package llmtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/coplayhq/coplay/internal/infile"
)

// Cassette is a scripted model: each chat-completions request gets the next Step.
type Cassette struct {
	Name  string `json:"name"`
	Model string `json:"model"` // the model name the server reports; "scripted" if empty
	// Repeat starts again from the first step that is not a fault when the steps run
	// out. Without it, every later request gets the text "(end of script)".
	Repeat bool `json:"repeat"`
	// Cache is how the server reports the prompt tokens its simulated prompt cache
	// served (see Server): "openai" (the default when empty), "deepseek" or "none".
	Cache Cache `json:"cache,omitempty"`
	// Price, when set, is what the scripted model's tokens cost, so that a demo shows
	// the bill a hosted model would run up; config.toml's [prices] for the model win.
	Price *Price `json:"price,omitempty"`
	Steps []Step `json:"steps"`
}

// Price is a cassette's price for its tokens, in dollars per million, as [prices] in
// config.toml.
type Price struct {
	Prompt       float64 `json:"prompt"`
	Completion   float64 `json:"completion"`
	CachedPrompt float64 `json:"cached_prompt,omitempty"` // 0: cached tokens cost the prompt price
}

// Cache is the wire format in which a Server reports cached prompt tokens.
type Cache string

// The ways a cassette can report cached prompt tokens.
const (
	// CacheOpenAI sends usage.prompt_tokens_details.cached_tokens, as OpenAI and
	// OpenRouter do. It is the default.
	CacheOpenAI Cache = "openai"
	// CacheDeepSeek sends usage.prompt_cache_hit_tokens and prompt_cache_miss_tokens
	// (together the prompt tokens), as DeepSeek does.
	CacheDeepSeek Cache = "deepseek"
	// CacheNone reports no cached tokens at all, as a server without a prompt cache.
	CacheNone Cache = "none"
)

var caches = []Cache{CacheOpenAI, CacheDeepSeek, CacheNone}

// Step is one answer: text and tool calls, or a fault.
type Step struct {
	Text  string `json:"text,omitempty"`
	Calls []Call `json:"calls,omitempty"`
	// Fault, if set, answers the request with a failure instead. A "cut" fault may
	// carry Text and Calls: the part that is sent before the cut.
	Fault Fault  `json:"fault,omitempty"`
	Usage *Usage `json:"usage,omitempty"` // reported token counts; estimated when nil
	// Thinking is the model's reasoning, sent as a signed thinking block by the Messages
	// API route when the request turns thinking on (a default line when empty); the
	// chat-completions route does not send it.
	Thinking string `json:"thinking,omitempty"`
}

// Call is a scripted tool call.
type Call struct {
	ID   string          `json:"id,omitempty"` // generated as call_<step>_<i> when empty
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args,omitempty"` // a JSON object, sent as the arguments string
	// RawArgs, if set, is sent verbatim as the arguments string instead of Args, to
	// script malformed arguments.
	RawArgs *string `json:"raw_args,omitempty"`
}

// Arguments returns the arguments string as it goes on the wire.
func (c Call) Arguments() string {
	if c.RawArgs != nil {
		return *c.RawArgs
	}
	if len(c.Args) == 0 {
		return "{}"
	}
	var b bytes.Buffer
	if json.Compact(&b, c.Args) != nil {
		return string(c.Args) // Parse checked it; a hand-built Call gets what it asked for
	}
	return b.String()
}

// Usage is a step's reported token counts.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// CachedTokens is how many of PromptTokens are reported as served from the prompt
	// cache (in the cassette's Cache format); 0 when not scripted.
	CachedTokens int `json:"cached_tokens,omitempty"`
}

// Fault is a scripted failure.
type Fault string

// Faults a step can script.
const (
	// FaultRateLimit answers HTTP 429 with Retry-After: 1 and an OpenAI error body.
	FaultRateLimit Fault = "429"
	// FaultServer answers HTTP 500 with an OpenAI error body.
	FaultServer Fault = "500"
	// FaultCut sends part of the answer, then closes the connection: a stream
	// without [DONE] or finish_reason, or a truncated JSON body.
	FaultCut Fault = "cut"
	// FaultTimeout holds the request until the client gives up or the server
	// closes, at most 30 s.
	FaultTimeout Fault = "timeout"
	// FaultNoTools answers HTTP 400 "<model> does not support tools", as Ollama does.
	FaultNoTools Fault = "no_tools"
	// FaultMalformedBody answers HTTP 200 with a body that is not JSON.
	FaultMalformedBody Fault = "malformed_body"
	// FaultOverloaded answers HTTP 529, Anthropic's overloaded_error.
	FaultOverloaded Fault = "529"
	// FaultOverloadedEvent starts a streamed answer and breaks it off with an error
	// event of type overloaded_error, as Anthropic does under load (HTTP 529 when not
	// streamed, and on the chat-completions route).
	FaultOverloadedEvent Fault = "overloaded_event"
	// FaultTooLong refuses the prompt as longer than the model's window: HTTP 400
	// "prompt is too long" (Anthropic), context_length_exceeded (OpenAI).
	FaultTooLong Fault = "too_long"
	// FaultAuth answers HTTP 401: the key was refused.
	FaultAuth Fault = "401"
)

var faults = []Fault{FaultRateLimit, FaultServer, FaultCut, FaultTimeout, FaultNoTools, FaultMalformedBody,
	FaultOverloaded, FaultOverloadedEvent, FaultTooLong, FaultAuth}

// Load reads and checks a cassette file. Errors name the file, the field and what
// was wrong with it, e.g. "x.json: steps[2].fault: unknown fault "502" (want ...)".
// A file over 64 MiB, or a FIFO, device or directory, is refused unread.
func Load(path string) (*Cassette, error) {
	data, err := infile.Read(path, infile.Large)
	if err != nil {
		return nil, fmt.Errorf("llmtest: %w", err)
	}
	c, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("llmtest: %s: %s", path, strings.TrimPrefix(err.Error(), "llmtest: "))
	}
	return c, nil
}

// Parse reads and checks a cassette. Unknown fields are errors, so a typo in a
// hand-written cassette does not silently script something else.
func Parse(data []byte) (*Cassette, error) {
	c, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("llmtest: %w", err)
	}
	return c, nil
}

func parse(data []byte) (*Cassette, error) {
	var doc json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			line, col := position(data, syn.Offset)
			return nil, fmt.Errorf("line %d, column %d: not JSON: %v", line, col, err)
		}
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	top, err := object(doc, "cassette", "name", "model", "repeat", "cache", "price", "steps")
	if err != nil {
		return nil, err
	}
	c := &Cassette{}
	if err := fields(top, "cassette", spec{"name", &c.Name, "a string"}, spec{"model", &c.Model, "a string"},
		spec{"repeat", &c.Repeat, "true or false"}); err != nil {
		return nil, err
	}
	c.Cache = CacheOpenAI
	if _, ok := top["cache"]; ok {
		var cache string
		if err := field(top, "cassette", "cache", &cache, "a string"); err != nil {
			return nil, err
		}
		c.Cache = Cache(cache)
		if !slices.Contains(caches, c.Cache) {
			return nil, fmt.Errorf("cassette.cache: unknown cache %q (want %s)", cache, cacheList())
		}
	}
	if c.Price, err = parsePrice(top); err != nil {
		return nil, err
	}
	var steps []json.RawMessage
	if err := field(top, "cassette", "steps", &steps, "a list of steps"); err != nil {
		return nil, err
	}
	if len(steps) == 0 {
		return nil, errors.New("steps: the cassette has no steps")
	}
	for i, raw := range steps {
		st, err := parseStep(raw, fmt.Sprintf("steps[%d]", i), c.Cache)
		if err != nil {
			return nil, err
		}
		c.Steps = append(c.Steps, st)
	}
	if c.Repeat && !slices.ContainsFunc(c.Steps, func(s Step) bool { return s.Fault == "" }) {
		return nil, errors.New("repeat: every step is a fault, so repeating would fail forever")
	}
	if c.Model == "" {
		c.Model = "scripted"
	}
	return c, nil
}

func parseStep(raw json.RawMessage, path string, cache Cache) (Step, error) {
	m, err := object(raw, path, "text", "calls", "fault", "usage", "thinking")
	if err != nil {
		return Step{}, err
	}
	var st Step
	var fault string
	if err := fields(m, path, spec{"text", &st.Text, "a string"}, spec{"thinking", &st.Thinking, "a string"},
		spec{"fault", &fault, "a string"}); err != nil {
		return st, err
	}
	st.Fault = Fault(fault)
	if st.Fault != "" && !slices.Contains(faults, st.Fault) {
		return st, fmt.Errorf("%s.fault: unknown fault %q (want %s)", path, fault, faultList())
	}
	if u, ok := m["usage"]; ok {
		um, err := object(u, path+".usage", "prompt_tokens", "completion_tokens", "cached_tokens")
		if err != nil {
			return st, err
		}
		st.Usage = &Usage{}
		if err := fields(um, path+".usage", spec{"prompt_tokens", &st.Usage.PromptTokens, "a whole number"},
			spec{"completion_tokens", &st.Usage.CompletionTokens, "a whole number"},
			spec{"cached_tokens", &st.Usage.CachedTokens, "a whole number"}); err != nil {
			return st, err
		}
		if st.Usage.PromptTokens < 0 || st.Usage.CompletionTokens < 0 || st.Usage.CachedTokens < 0 {
			return st, fmt.Errorf("%s.usage: token counts cannot be negative", path)
		}
		if _, ok := um["cached_tokens"]; ok && cache == CacheNone {
			return st, fmt.Errorf("%s.usage.cached_tokens: the cassette's cache is %q, which reports no cached tokens", path, CacheNone)
		}
		if st.Usage.CachedTokens > st.Usage.PromptTokens {
			return st, fmt.Errorf("%s.usage.cached_tokens: %d is more than prompt_tokens %d (cached tokens are some of the prompt's)",
				path, st.Usage.CachedTokens, st.Usage.PromptTokens)
		}
	}
	var calls []json.RawMessage
	if err := field(m, path, "calls", &calls, "a list of calls"); err != nil {
		return st, err
	}
	for j, rc := range calls {
		c, err := parseCall(rc, fmt.Sprintf("%s.calls[%d]", path, j))
		if err != nil {
			return st, err
		}
		st.Calls = append(st.Calls, c)
	}
	switch {
	case st.Fault != "" && st.Fault != FaultCut && st.Fault != FaultOverloadedEvent && (st.Text != "" || len(st.Calls) > 0):
		return st, fmt.Errorf("%s: a %q fault sends no answer, so text and calls make no sense here (only a cut or overloaded_event fault carries the part sent before the break)", path, st.Fault)
	case st.Fault == "" && st.Text == "" && len(st.Calls) == 0:
		return st, fmt.Errorf("%s: empty step: want text, calls or fault", path)
	}
	return st, nil
}

func parseCall(raw json.RawMessage, path string) (Call, error) {
	m, err := object(raw, path, "id", "tool", "args", "raw_args")
	if err != nil {
		return Call{}, err
	}
	var c Call
	if err := fields(m, path, spec{"id", &c.ID, "a string"}, spec{"tool", &c.Tool, "a string"}); err != nil {
		return c, err
	}
	if c.Tool == "" {
		return c, fmt.Errorf("%s.tool: missing: every call names its tool", path)
	}
	if a, ok := m["args"]; ok {
		if _, err := object(a, path+".args"); err != nil {
			return c, fmt.Errorf("%s.args: want a JSON object (use raw_args for anything else)", path)
		}
		c.Args = a
	}
	if _, ok := m["raw_args"]; ok {
		var s string
		if err := field(m, path, "raw_args", &s, "a string (sent verbatim as the arguments)"); err != nil {
			return c, err
		}
		c.RawArgs = &s
		if c.Args != nil {
			return c, fmt.Errorf("%s: both args and raw_args: pick one", path)
		}
	}
	return c, nil
}

// parsePrice reads the cassette's price, if it has one: dollars per million tokens,
// none negative.
func parsePrice(top map[string]json.RawMessage) (*Price, error) {
	raw, ok := top["price"]
	if !ok {
		return nil, nil
	}
	m, err := object(raw, "cassette.price", "prompt", "completion", "cached_prompt")
	if err != nil {
		return nil, err
	}
	p := &Price{}
	for _, f := range []struct {
		name string
		dst  *float64
	}{{"prompt", &p.Prompt}, {"completion", &p.Completion}, {"cached_prompt", &p.CachedPrompt}} {
		if err := field(m, "cassette.price", f.name, f.dst, "dollars per million tokens"); err != nil {
			return nil, err
		}
		if *f.dst < 0 {
			return nil, fmt.Errorf("cassette.price.%s: a price cannot be negative", f.name)
		}
	}
	return p, nil
}

// object decodes raw as a JSON object whose keys are all in allowed (any key when
// allowed is empty).
func object(raw json.RawMessage, path string, allowed ...string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("%s: want a JSON object, got %s", path, kindOf(raw))
	}
	if len(allowed) > 0 {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if !slices.Contains(allowed, k) {
				return nil, fmt.Errorf("%s: unknown field %q (want %s)", path, k, strings.Join(allowed, ", "))
			}
		}
	}
	return m, nil
}

// spec is a field to decode: its name, where it goes, and what it should be (for the
// error when it is something else).
type spec struct {
	name string
	dst  any
	what string
}

// fields decodes the fields of m that are present, in order, and returns the error of
// the first that does not decode.
func fields(m map[string]json.RawMessage, path string, ws ...spec) error {
	for _, w := range ws {
		if err := field(m, path, w.name, w.dst, w.what); err != nil {
			return err
		}
	}
	return nil
}

// field decodes m[name] into dst when present.
func field(m map[string]json.RawMessage, path, name string, dst any, want string) error {
	raw, ok := m[name]
	if !ok {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("%s.%s: want %s, got %s", path, name, want, kindOf(raw))
	}
	return nil
}

// kindOf names what a JSON value is, for messages.
func kindOf(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	switch {
	case s == "":
		return "nothing"
	case s == "null":
		return "null"
	case s[0] == '{':
		return "an object"
	case s[0] == '[':
		return "a list"
	case s[0] == '"':
		return "a string " + s
	case s == "true" || s == "false":
		return s
	}
	return "the number " + s
}

func cacheList() string {
	s := make([]string, len(caches))
	for i, c := range caches {
		s[i] = string(c)
	}
	return strings.Join(s, ", ")
}

func faultList() string {
	s := make([]string, len(faults))
	for i, f := range faults {
		s[i] = string(f)
	}
	return strings.Join(s, ", ")
}

// position turns a json.SyntaxError offset, which counts the bad byte itself, into
// the 1-based line and column of that byte.
func position(data []byte, off int64) (line, col int) {
	off = max(min(off, int64(len(data)))-1, 0)
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}
