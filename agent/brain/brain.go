// Package brain is the contract between the runner (package agent) and whatever decides
// what to do next: a model client (agent/openai, agent/anthropic), a rule-based player
// (agent/autopilot, agent/autopilot/arena) or a scripted test model (agent/llmtest).
//
// A Brain is asked once a step with a Request (the conversation, OpenAI-shaped, and the
// tools offered) and answers with a Reply (text, tool calls, what it cost). The runner
// builds the Request and acts on the Reply; a brain never sees the runner, the screen or
// the notebook, only this package and the game's tool and observation types. Optional
// interfaces (InstantBrain, Preparer) let a brain tell the runner more about itself.
//
// The package also holds what every model client shares about failure: the kinds of
// error (ErrRateLimited, ErrContextLength, ...) that callers test with errors.Is, the
// Error that carries them, which kinds are worth another attempt (Retryable), and how a
// conversation refused as too long is made shorter (Shrink).
package brain

import (
	"context"
	"encoding/json"

	"github.com/coplayhq/coplay/game"
)

// Brain decides what to do next: given the conversation so far and the tools, it
// returns text and tool calls. Implementations: agent/openai (any OpenAI-compatible
// endpoint), agent/anthropic (Claude), agent/autopilot (rule-based, no model).
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

// Finite is implemented by brains that can come to an end: a script (a cassette) whose
// answers are all played. The runner asks Over before each step; once it says why, the
// run stops with that reason and the brain is never asked again, so a finished script
// costs nothing more.
type Finite interface {
	// Over says why the brain has nothing more to say, or "" while it has.
	Over() string
}

// Preparer is implemented by brains that learn about their model before the first
// step: a local server's context window, whether it will cut a long prompt. The runner
// calls Prepare once, before its first model request, sizes the prompt to Prep.Window
// when agent.Config.ContextWindow is not set, and shows Prep.Notice to the
// person. An error is shown too, and play goes on: the first request will say more.
type Preparer interface {
	Prepare(ctx context.Context) (Prep, error)
}

// Prep is what a Preparer learned.
type Prep struct {
	// Window is the model's usable context in tokens as the server will run it (0 =
	// unknown): the prompt, the tools and the answer must fit in it.
	Window int
	// Notice is one plain line for the person (the server will cut prompts, and how
	// to fix it), or "".
	Notice string
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
	// ToolChoice is "" (the model may call the tools) or ToolChoiceNone: the person
	// asked a question, and the model answers in words. The tools are sent all the same,
	// so that the request's prefix is the one the provider's prompt cache holds. A call
	// in the answer anyway is dropped by the runner. A brain without a model (the
	// autopilots) answers from its rules: what it will do next, and why.
	ToolChoice string
}

// ToolChoiceNone is Request.ToolChoice when the model must answer without calls.
const ToolChoiceNone = "none"

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
	// Thinking is the model's signed reasoning of an assistant message (Reply.Thinking
	// blocks that carry a Signature or Redacted data): a provider that signs its thinking
	// (Anthropic) needs it back within a tool loop. Other brains never send it.
	Thinking []Thinking `json:"thinking,omitempty"`
}

// Thinking is a piece of a model's reasoning: the content's <think> blocks, a
// reasoning_content or reasoning field, Anthropic's thinking blocks. It is shown to the
// person dimmed, counted in usage, and never written into notes or sent back to the
// model as text.
type Thinking struct {
	Text string `json:"text,omitempty"`
	// Signature is the provider's seal on the block (Anthropic): the block must go back
	// to that provider unchanged within a tool loop.
	Signature string `json:"signature,omitempty"`
	// Redacted is a provider's encrypted reasoning (Anthropic's redacted_thinking):
	// nothing to show, sent back as it came.
	Redacted string `json:"redacted,omitempty"`
}

// ToolCall is a call a Brain asked for. Args is whatever the brain sent: it may be
// invalid JSON, and is validated before anything else sees it.
type ToolCall struct {
	ID   string          `json:"id"`
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
	// FromText says the call was read from the model's text (a <tool_call> block, a
	// [TOOL_CALLS] list) because the server returned no native call: the Log marks it.
	FromText bool `json:"from_text,omitempty"`
	// Why is the brain's reason for this call alone, when it gives one per call (the
	// autopilot does: "Set COPLAY-1 to BURN for the 14-unit hop"). The screen shows it
	// as the call's why instead of the whole step's text. It is never sent to a model.
	Why string `json:"why,omitempty"`
}

// Reply is a Brain's answer for one step.
type Reply struct {
	Text  string
	Calls []ToolCall
	Usage Usage
	// Thinking is the model's reasoning for this reply, apart from Text: shown dimmed,
	// never put into notes or sent back as text.
	Thinking []Thinking
	// Notices are the brain's word to the person about the server (it probably cut the
	// prompt, and how to fix that): each is shown once, as an error line.
	Notices []string
	// Unread says what the brain could not read in the model's text (a malformed
	// <tool_call> block): the person sees it, and the model is told at its next step.
	Unread []string
}

// Usage is what one model call cost.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// CachedTokens is how many of PromptTokens the provider served from its prompt
	// cache (OpenAI's prompt_tokens_details.cached_tokens, DeepSeek's
	// prompt_cache_hit_tokens); they are billed at the cached price.
	CachedTokens int `json:"cached_tokens"` // always present: 0 is a count too
	// CacheWriteTokens is how many of PromptTokens the provider wrote into its cache
	// (Anthropic's cache_creation_input_tokens), billed at the cache-write price.
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
	// ThinkingTokens is how many of CompletionTokens were reasoning, when the provider
	// says (OpenAI's completion_tokens_details.reasoning_tokens), or an estimate.
	ThinkingTokens int     `json:"thinking_tokens,omitempty"`
	Cost           float64 `json:"cost,omitempty"` // in dollars, when known
	// CostKnown says Cost is the real price of the call (the model has a price); when it
	// is false and tokens were used, the cost is unknown, not zero.
	CostKnown bool `json:"cost_known,omitempty"`
	// CostUpper says Cost counts cached tokens at the full prompt price (the model has no
	// cached price): the real bill is at most Cost.
	CostUpper   bool `json:"cost_upper,omitempty"`
	PromptChars int  `json:"prompt_chars"` // size of the prompt sent, measured by the runner
}
