// Package ui is coplay's companion screen: one Bubble Tea program that draws what the
// agent reports and sends the person's decisions and advice back to it.
//
// The agent runs in its own goroutine; its events arrive here as messages through a
// command that waits on the event channel and is re-armed after each event. The screen
// never calls a game or a model: decisions, advice, pause and quit become
// agent.Commands sent through the Agent interface.
//
// Panes: world (the observation's markdown with its countdowns recomputed every second,
// countdown bars for timers, a map of the current system, a credits sparkline), notes &
// plan, pending calls (the model's reason, arguments folded to fit, validation, dry
// run, keys), the log (streamed text, calls, decisions, results, errors, advice, waits;
// the notebook's bookkeeping can be hidden), the advice input and a status bar. World,
// notes and log take the focus in turn (a highlighted border and "●" title) and scroll
// with the keys and the wheel, so nothing is cut off for good. Wide terminals get
// columns, narrow ones (down to 80×24) get tabs. Dialogs: veto reason, the JSON editor
// (its arguments go back to the runner for review before they are approved), the
// approval rules (add, edit and remove the session's; config and profile rules marked),
// help, quit. Model owns the layout and routes: each dialog is a type of its own that
// handles its keys and returns what the Model must do (dialog.go), and the events go to
// the parts they change (events.go). A resumed session's log opens with the
// journal's last entries (Info.History). Every key comes from package keymap.
//
// Rendering cost does not depend on the length of the log: only the visible window of
// the log is wrapped and drawn, wrapped lines are cached per entry and width, and a
// streaming message only re-wraps its own entry.
package ui
