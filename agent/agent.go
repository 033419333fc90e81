// Package agent runs the play loop: observe the game, ask a Brain what to do, validate
// its tool calls, ask the person about the ones that change the game, run the approved
// ones, and feed the results back. It talks to the outside through two typed channels:
// Commands in (decide, advise, pause, resume, stop, allow) and Events out.
//
// The UI and the headless runner are both just consumers of Events and producers of
// Commands; neither calls a game or a model directly.
package agent

import "github.com/coplayhq/coplay/agent/brain"

// The brain contract lives in agent/brain, so that the brains depend on it and not on
// the runner; these names keep the runner's own code, the screen, cli and eval as they
// were.
type (
	// Brain decides what to do next (brain.Brain).
	Brain = brain.Brain
	// InstantBrain is a brain that answers at once (brain.InstantBrain).
	InstantBrain = brain.InstantBrain
	// Finite is a brain that can come to an end, a script (brain.Finite).
	Finite = brain.Finite
	// Preparer is a brain that learns about its model before the first step (brain.Preparer).
	Preparer = brain.Preparer
	// Prep is what a Preparer learned (brain.Prep).
	Prep = brain.Prep
	// Request is what a Brain sees at one step (brain.Request).
	Request = brain.Request
	// Role is who said a message (brain.Role).
	Role = brain.Role
	// Message is one entry of the conversation (brain.Message).
	Message = brain.Message
	// Thinking is a piece of a model's reasoning (brain.Thinking).
	Thinking = brain.Thinking
	// ToolCall is a call a Brain asked for (brain.ToolCall).
	ToolCall = brain.ToolCall
	// Reply is a Brain's answer for one step (brain.Reply).
	Reply = brain.Reply
	// Usage is what one model call cost (brain.Usage).
	Usage = brain.Usage
)

// Message roles (brain.RoleSystem, ...).
const (
	RoleSystem    = brain.RoleSystem
	RoleUser      = brain.RoleUser
	RoleAssistant = brain.RoleAssistant
	RoleTool      = brain.RoleTool
)
