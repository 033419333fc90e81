// Package ui is coplay's companion screen: one Bubble Tea program that draws what the
// agent reports and sends the person's decisions and advice back to it.
//
// The agent runs in its own goroutine; its events arrive here as messages through a
// command that waits on the event channel and is re-armed after each event. The screen
// never calls a game or a model: decisions, advice, pause and quit become
// agent.Commands sent through the Agent interface.
//
// Panes: world (the observation's markdown, countdown bars for timers, a map of the
// current system, a credits sparkline), notes & plan, pending calls, the log (streamed
// text, calls, decisions, results, errors, advice, waits), the advice input and a status
// bar. Wide terminals get columns, narrow ones (down to 80×24) get tabs. Every key comes
// from package keymap.
//
// Rendering cost does not depend on the length of the log: only the visible window of
// the log is wrapped and drawn, wrapped lines are cached per entry and width, and a
// streaming message only re-wraps its own entry.
package ui
