package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/keymap"
)

// Agent is what the screen needs of the runner. Send must not block for long: it is
// called from the UI loop.
type Agent interface {
	Events() <-chan agent.Event
	Send(agent.Command) error
}

// Info is what the screen shows about the session and needs for checking edits.
type Info struct {
	// Game, Brain and Session name what is being played, by what, and where it is kept:
	// "SpaceTraders (offline universe)", "autopilot", "spacetraders-2026-11-22-1503".
	// The brain always stays in the status bar ("autopilot: no model configured").
	Game, Brain, Session string
	// Banner is one line saying which brain and game are in use and how to change them;
	// it opens the log.
	Banner string
	// Tools is the catalogue, for validating edited arguments as they are typed.
	Tools []game.Tool
	// Keys are the bindings; nil means keymap.Default().
	Keys *keymap.KeyMap
	// History is a resumed session's last journaled events, oldest first
	// (agent.RecentEvents): the log opens with them, so a resumed screen shows what
	// happened before. Nil for a new session.
	History []agent.Event
	// Rules are the approval rules from config.toml and the profile: the rules dialog
	// lists them, marked with where they come from, and cannot change them.
	Rules []agent.FixedRule
	// MaxTokens and MaxCost are the run's spend caps (0: none): the status bar shows the
	// spend against them ("41.2k/2.0M tok", "$0.0123/$1.50").
	MaxTokens int64
	MaxCost   float64
	// PriceFrom says where the model's price comes from: "catalogue", "config" or "none"
	// ("" says nothing: the autopilot, a test). The status bar names it after the cost.
	PriceFrom string
	// Notify is how the screen calls the person when it needs them and its terminal is
	// not focused ("" is auto).
	Notify NotifyMode
	// ReadOnly marks a screen that may watch but not steer (a watch key over SSH): it
	// neither offers nor opens what would steer (deciding, advice, pause, rules,
	// answers), and says so; the agent refuses its commands anyway.
	ReadOnly bool
	// Attached marks a second screen on a game another coplay plays (coplay attach, a
	// screen over SSH): quitting it asks "Detach? The game plays on." and stops nothing.
	Attached bool
	// Seats are a league's seats, in the order the seat bar shows them (seats.go); the
	// agent is then the league, which stamps each event with its seat. Empty: one agent.
	Seats []SeatInfo
	// Served says where else the session can be reached, for the status bar to keep in
	// sight: "ssh 127.0.0.1:2222", with what is missing ("no watch keys"); "" = nowhere.
	Served string
}

// DefaultGrace is how long decision keys are ignored after a new call appears.
const DefaultGrace = 400 * time.Millisecond

// The panes that take focus: the focused one scrolls with the keys and the wheel, has a
// highlighted border, and is the tab shown on a narrow terminal.
const (
	tabWorld = iota
	tabNotes
	tabLog
	numTabs
)

var tabNames = [numTabs]string{"World", "Notes & plan", "Log"}

// Model is the root model of the screen. It owns the layout and routes: an agent event
// to the parts it changes (events.go), a key to the open dialog, else the question or
// the advice input that has the focus, else the screen's own bindings (update.go).
// The parts (panes, the calls, the questions, the advice input, the dialogs) keep their
// own state and draw themselves in the space the Model gives them. Use New to make one.
type Model struct {
	// Grace is how long decision keys are ignored after a new pending call appears, so
	// typing never approves by accident. New sets DefaultGrace.
	Grace time.Duration
	// Now is the clock for countdowns and the grace period. New sets time.Now; tests
	// set a fixed clock so screens are reproducible.
	Now func() time.Time

	agent  Agent
	info   Info
	keys   *keymap.KeyMap
	tools  map[string]game.Tool
	events <-chan agent.Event

	st     styles
	layout layout

	advice adviceInput // the advice line (advice.go)
	// seats are the views, one for each seat of a league or one for a lone run, and
	// which one the panes show (seats.go, seatview.go).
	seats seats

	dlg       dialog // the open dialog (dialog.go), nil for none; changed only by open
	settled   string // what became elsewhere of the call the open dialog is about ("" nothing)
	hint      string // a one-off message in the status bar, cleared by the next key
	replaying bool   // folding in a resumed session's journal, or a replay's
	// moved is when the selected call was taken by another screen (takenElsewhere): the
	// decision keys wait a grace period after it, as after a new call.
	moved  time.Time
	notify notifier // calls the person when they are needed and look elsewhere (notify.go)
	// replayStep, on the replay screen, is the step shown: the Pending pane lists its
	// calls with their decisions (replay.go).
	replayStep *agent.ReplayStep
}

// New returns the screen for a, showing info. The agent's events are read only once
// the program runs (Init).
func New(a Agent, info Info) *Model {
	km := info.Keys
	if km == nil {
		km = keymap.Default()
	}
	info = cleanInfo(info)
	m := &Model{
		Grace:  DefaultGrace,
		Now:    time.Now,
		agent:  a,
		info:   info,
		keys:   km,
		tools:  map[string]game.Tool{},
		st:     newStyles(true),
		notify: newNotifier(info.Notify, info.Session),
	}
	if a != nil {
		m.events = a.Events()
	}
	for _, t := range info.Tools {
		m.tools[t.Name] = t
	}
	m.advice = newAdviceInput(&m.st, km)
	m.seats = newSeats(m, info.Seats)
	m.seats.placeholder(m)
	m.applyStyles()
	m.replayHistory(info.History)
	if len(info.History) > 0 {
		m.layout.tab = tabLog // a resumed session opens on what happened before
	}
	if info.Banner != "" {
		for _, v := range m.seats.list {
			v.log.add(kindInfo, info.Banner)
		}
	}
	return m
}

// cur is the view the panes show: the focused seat's, or the lone run's.
func (m *Model) cur() *seatView { return m.seats.cur() }

// applyStyles hands the current palette to the inputs that live as long as the Model
// and drops cached renders.
func (m *Model) applyStyles() {
	m.advice.restyle()
	for _, v := range m.seats.list {
		v.rules.restyle()
		v.log.gen++
	}
}

// Init starts reading the agent's events, the countdown clock and asks the terminal
// for its background colour.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.nextEvent(), tick(), tea.RequestBackgroundColor)
}

// eventMsg carries one agent event into Update.
type eventMsg agent.Event

// closedMsg says the agent's event channel was closed.
type closedMsg struct{}

// tickMsg redraws countdowns.
type tickMsg time.Time

// nextEvent waits for the agent's next event. It is re-armed after each one, so
// events arrive in order and the UI loop never blocks on the channel.
func (m *Model) nextEvent() tea.Cmd {
	ch := m.events
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return closedMsg{}
		}
		return eventMsg(ev)
	}
}

func tick() tea.Cmd {
	return tea.Tick(time.Second, func(t time.Time) tea.Msg { return tickMsg(t) })
}

func (m *Model) now() time.Time {
	if m.Now == nil {
		return time.Now()
	}
	return m.Now()
}
