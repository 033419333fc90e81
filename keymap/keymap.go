// Package keymap holds every key binding of the coplay screen in one place, with the
// help text shown by "?", and loads the player's overrides from a JSON config file.
//
// A binding is a bubbles/key.Binding; the screen matches key presses against the
// bindings of a KeyMap and never against literal key names, so an override in
// keys.json changes both what a key does and what the help says.
package keymap

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
)

// KeyMap is every binding of the screen. The field comments give the action name used
// in the config file.
type KeyMap struct {
	// Decisions about the selected pending call.
	Approve     key.Binding // approve
	Veto        key.Binding // veto (asks for an optional reason)
	Edit        key.Binding // edit (JSON editor)
	AlwaysAllow key.Binding // always_allow: approve and never ask again for this tool
	ApproveAll  key.Binding // approve_all: approve every pending call
	Up          key.Binding // up: previous pending call (or scroll the focused pane up when none)
	Down        key.Binding // down: next pending call (or scroll the focused pane down when none)
	Unfold      key.Binding // unfold: show or fold the selected call's long arguments

	// A game server's question (elicitation) or request to use the model (sampling),
	// shown in the Pending pane before any call. Up and Down move between its fields.
	AnswerAccept  key.Binding // answer_accept: send the form (or approve the model's use)
	AnswerDecline key.Binding // answer_decline: say no to the server
	AnswerCancel  key.Binding // answer_cancel: dismiss the question without choosing
	Choose        key.Binding // choose: the next choice of the field (an enum, a yes/no)
	ChooseBack    key.Binding // choose_back: the previous choice of the field
	Fill          key.Binding // fill: type the field's value (text, a number)
	OpenURL       key.Binding // open_url: open the page a server asks the person to visit

	// The agent.
	Pause       key.Binding // pause: pause or resume the agent
	KeepPlaying key.Binding // keep_playing: hand play over (an answer without calls does not stop it) or take it back
	TakeWheel   key.Binding // take_wheel: take the wheel (no model request, no autopilot step) or hand it back

	// The person's own moves.
	Move     key.Binding // move: open the move line (a tool's name, then its arguments)
	Complete key.Binding // complete: complete the tool's name, an argument's name or value (in the move line)

	// Advice input and dialogs.
	Advise key.Binding // advise: focus the advice input
	Send   key.Binding // send: send advice, a veto reason, confirm
	Submit key.Binding // submit: submit the edited arguments
	Cancel key.Binding // cancel: leave the input or close a dialog

	// Panes and the log.
	ScrollUp       key.Binding // scroll_up: scroll the focused pane up a page
	ScrollDown     key.Binding // scroll_down: scroll the focused pane down a page
	Follow         key.Binding // follow: jump to the end of the log and follow it
	ToggleNotebook key.Binding // toggle_notebook: hide or show the notebook's bookkeeping in the log
	Details        key.Binding // details: show the selected call, or the log entry at the bottom of the log, whole
	Copy           key.Binding // copy: copy what the details view shows to the clipboard (OSC 52)
	Legend         key.Binding // legend: show what the map's symbols mean

	// Approval rules.
	Rules    key.Binding // rules: open the rules dialog
	AddRule  key.Binding // add_rule: type a new rule (in the rules dialog)
	EditRule key.Binding // edit_rule: edit the selected session rule (in the rules dialog)
	Revoke   key.Binding // revoke: remove the selected session rule (in the rules dialog)

	// Screen.
	NextTab    key.Binding // next_tab: focus the next pane (the next tab on narrow terminals)
	PrevTab    key.Binding // prev_tab: focus the previous pane
	FocusWorld key.Binding // world: focus the world pane
	FocusNotes key.Binding // notes: focus the notes & plan pane
	FocusLog   key.Binding // log: focus the log
	Help       key.Binding // help: show or hide the full help
	Quit       key.Binding // quit (asks first while a call runs or waits for a decision)
	Yes        key.Binding // yes: confirm a question
	No         key.Binding // no: decline a question

	// A league (several seats in one world): the panes show the focused seat.
	NextSeat    key.Binding // next_seat: focus the next seat
	NextWaiting key.Binding // next_waiting: focus the next seat that waits for a decision, its oldest call selected
}

// Default returns the default bindings.
func Default() *KeyMap {
	b := func(desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(helpKeys(keys), desc))
	}
	return &KeyMap{
		Approve:        b("approve", "a"),
		Veto:           b("veto", "v"),
		Edit:           b("edit", "e"),
		AlwaysAllow:    b("add rule: allow this tool", "A"),
		ApproveAll:     b("approve all", "ctrl+a"),
		Up:             b("previous call / scroll", "up", "k"),
		Down:           b("next call / scroll", "down", "j"),
		Unfold:         b("unfold/fold arguments", "z"),
		AnswerAccept:   b("accept (send the answer)", "a"),
		AnswerDecline:  b("decline", "d"),
		AnswerCancel:   b("cancel (dismiss)", "c"),
		Choose:         b("next choice", "space", "right", "l"),
		ChooseBack:     b("previous choice", "left", "h"),
		Fill:           b("type the field's value", "enter", "e"),
		OpenURL:        b("open the page", "o"),
		Pause:          b("pause/resume (resumes when idle too)", "p"),
		KeepPlaying:    b("keep playing on/off (hand play over)", "K"),
		TakeWheel:      b("take the wheel / hand it back", "T"),
		Move:           b("play a move yourself", ":"),
		Complete:       b("complete (in the move line)", "tab"),
		Advise:         b("talk to the agent (start with ? to ask)", "/", "tab"),
		Send:           b("send", "enter"),
		Submit:         b("submit edit for review", "ctrl+s"),
		Cancel:         b("cancel/leave", "esc"),
		ScrollUp:       b("pane page up", "pgup", "ctrl+u"),
		ScrollDown:     b("pane page down", "pgdown", "ctrl+d"),
		Follow:         b("follow log", "end", "G"),
		ToggleNotebook: b("hide/show notebook in log", "b"),
		Details:        b("show the call / log entry whole", "enter"),
		Copy:           b("copy the whole view (OSC 52)", "c"),
		Legend:         b("map legend", "m"),
		Rules:          b("approval rules", "R"),
		AddRule:        b("add rule (in rules)", "a", "+"),
		EditRule:       b("edit rule (in rules)", "e"),
		Revoke:         b("remove rule (in rules)", "x", "delete"),
		NextTab:        b("next pane", "]", "right", "l"),
		PrevTab:        b("previous pane", "[", "left", "h"),
		FocusWorld:     b("world pane", "1"),
		FocusNotes:     b("notes & plan pane", "2"),
		FocusLog:       b("log pane", "3"),
		Help:           b("help", "?"),
		Quit:           b("quit", "q", "ctrl+c"),
		Yes:            b("yes", "y"),
		No:             b("no", "n"),
		NextSeat:       b("next seat (league)", "s"),
		NextWaiting:    b("next seat waiting for you (league)", "w"),
	}
}

// helpKeys is how a binding's keys are shown in help: "↑/k"; "/ or tab" when a key is
// itself a slash, which "//tab" would hide.
func helpKeys(keys []string) string {
	shown := make([]string, len(keys))
	for i, k := range keys {
		switch k {
		case "up":
			k = "↑"
		case "down":
			k = "↓"
		case "left":
			k = "←"
		case "right":
			k = "→"
		}
		shown[i] = k
	}
	if slices.ContainsFunc(keys, func(k string) bool { return strings.Contains(k, "/") }) {
		return strings.Join(shown, " or ")
	}
	return strings.Join(shown, "/")
}

// Action is one named binding of a KeyMap.
type Action struct {
	Name    string       // the config file name, e.g. "approve"
	Binding *key.Binding // the binding in the KeyMap
}

// Actions lists every binding with its config name, in help order.
func (k *KeyMap) Actions() []Action {
	return []Action{
		{"approve", &k.Approve},
		{"veto", &k.Veto},
		{"edit", &k.Edit},
		{"always_allow", &k.AlwaysAllow},
		{"approve_all", &k.ApproveAll},
		{"up", &k.Up},
		{"down", &k.Down},
		{"unfold", &k.Unfold},
		{"answer_accept", &k.AnswerAccept},
		{"answer_decline", &k.AnswerDecline},
		{"answer_cancel", &k.AnswerCancel},
		{"choose", &k.Choose},
		{"choose_back", &k.ChooseBack},
		{"fill", &k.Fill},
		{"open_url", &k.OpenURL},
		{"pause", &k.Pause},
		{"keep_playing", &k.KeepPlaying},
		{"take_wheel", &k.TakeWheel},
		{"move", &k.Move},
		{"complete", &k.Complete},
		{"advise", &k.Advise},
		{"send", &k.Send},
		{"submit", &k.Submit},
		{"cancel", &k.Cancel},
		{"scroll_up", &k.ScrollUp},
		{"scroll_down", &k.ScrollDown},
		{"follow", &k.Follow},
		{"toggle_notebook", &k.ToggleNotebook},
		{"details", &k.Details},
		{"copy", &k.Copy},
		{"legend", &k.Legend},
		{"rules", &k.Rules},
		{"add_rule", &k.AddRule},
		{"edit_rule", &k.EditRule},
		{"revoke", &k.Revoke},
		{"next_tab", &k.NextTab},
		{"prev_tab", &k.PrevTab},
		{"world", &k.FocusWorld},
		{"notes", &k.FocusNotes},
		{"log", &k.FocusLog},
		{"help", &k.Help},
		{"quit", &k.Quit},
		{"yes", &k.Yes},
		{"no", &k.No},
		{"next_seat", &k.NextSeat},
		{"next_waiting", &k.NextWaiting},
	}
}

// FullHelp is every binding but the league's in groups, for the help screen: decisions
// and rules, agent and inputs, a server's question, panes and screen. A league's screen
// adds LeagueHelp as a group of its own.
func (k *KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Approve, k.Veto, k.Edit, k.AlwaysAllow, k.ApproveAll, k.Up, k.Down, k.Unfold, k.Rules, k.AddRule, k.EditRule, k.Revoke},
		{k.Pause, k.KeepPlaying, k.TakeWheel, k.Move, k.Complete, k.Advise, k.Send, k.Submit, k.Cancel, k.Yes, k.No},
		{k.AnswerAccept, k.AnswerDecline, k.AnswerCancel, k.Choose, k.ChooseBack, k.Fill, k.OpenURL},
		{k.NextTab, k.PrevTab, k.FocusWorld, k.FocusNotes, k.FocusLog, k.ScrollUp, k.ScrollDown, k.Follow, k.ToggleNotebook, k.Details, k.Copy, k.Legend, k.Help, k.Quit},
	}
}

// LeagueHelp is the bindings only a league's screen has (several seats in one world):
// its help shows them as one more group.
func (k *KeyMap) LeagueHelp() []key.Binding { return []key.Binding{k.NextSeat, k.NextWaiting} }
