// Package agent runs the play loop: observe the game, ask a Brain what to do, validate
// its tool calls, ask the person about the ones that change the game, run the approved
// ones, and feed the results back. It talks to the outside through two typed channels:
// Commands in (decide, advise, pause, resume, stop, allow) and Events out.
//
// The UI and the headless runner are both just consumers of Events and producers of
// Commands; neither calls a game or a model directly.
package agent

import (
	"context"
	"encoding/json"

	"github.com/coplayhq/coplay/game"
)

// Brain decides what to do next: given the conversation so far and the tools, it
// returns text and tool calls. Implementations: agent/openai (any OpenAI-compatible
// endpoint), agent/autopilot (rule-based, no model).
type Brain interface {
	// Name says which brain this is, for the status bar: "autopilot", "gpt-4o-mini".
	Name() string
	// Next returns the brain's reply to req. Text may be streamed through req.OnDelta
	// (nil means no streaming) before Next returns the whole reply.
	Next(ctx context.Context, req Request) (Reply, error)
}

// InstantBrain is implemented by brains that answer at once, without a model to wait
// for (the autopilot). The runner then writes the step's start with the brain's reply,
// in one commit, rather than committing it first so that the screen shows the step
// while a model thinks.
type InstantBrain interface {
	Instant() bool
}

// Request is what a Brain sees at one step.
type Request struct {
	Messages []Message   // system prompt first, then the bounded history, then this step's input
	Tools    []game.Tool // the catalogue: the game's tools and the notebook's
	// Observation is this step's world state, also rendered into Messages; brains that
	// need structure (the autopilot) read it here.
	Observation game.Observation
	// OnDelta, if set, receives text as it streams.
	OnDelta func(text string)
}

// Role is who said a message.
type Role string

// Message roles, as in the OpenAI chat format.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one entry of the conversation.
type Message struct {
	Role       Role       `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`   // assistant messages
	ToolCallID string     `json:"tool_call_id,omitempty"` // tool messages: the call answered
}

// ToolCall is a call a Brain asked for. Args is whatever the brain sent: it may be
// invalid JSON, and is validated before anything else sees it.
type ToolCall struct {
	ID   string          `json:"id"`
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

// Reply is a Brain's answer for one step.
type Reply struct {
	Text  string
	Calls []ToolCall
	Usage Usage
}

// Usage is what one model call cost.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// CachedTokens is how many of PromptTokens the provider served from its prompt
	// cache (OpenAI's prompt_tokens_details.cached_tokens, DeepSeek's
	// prompt_cache_hit_tokens); they are billed at the cached price.
	CachedTokens int     `json:"cached_tokens"`  // always present: 0 is a count too
	Cost         float64 `json:"cost,omitempty"` // in dollars, when known
	// CostKnown says Cost is the real price of the call (the model has a price); when it
	// is false and tokens were used, the cost is unknown, not zero.
	CostKnown bool `json:"cost_known,omitempty"`
	// CostUpper says Cost counts cached tokens at the full prompt price (the model has no
	// cached price): the real bill is at most Cost.
	CostUpper   bool `json:"cost_upper,omitempty"`
	PromptChars int  `json:"prompt_chars"` // size of the prompt sent, measured by the runner
}
