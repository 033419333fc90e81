package ui

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
)

// NotifyMode says how the screen calls the person when it needs them (a call waits, a
// server asks, the agent is idle or a spend cap is reached) and its terminal is not
// focused.
type NotifyMode string

// The notification modes (--notify, notify = in config.toml).
const (
	NotifyAuto    NotifyMode = "auto"    // a bell, and OSC 9 or OSC 777 where the terminal is known to show them
	NotifyBell    NotifyMode = "bell"    // a bell only
	NotifyOSC     NotifyMode = "osc"     // OSC 9 or 777 (OSC 9 where the terminal is not known), and a bell
	NotifyDesktop NotifyMode = "desktop" // a desktop notification (notify-send, osascript), and a bell
	NotifyOff     NotifyMode = "off"     // never
)

// NotifyModes lists the modes, for flag and config checks.
var NotifyModes = []NotifyMode{NotifyAuto, NotifyBell, NotifyOSC, NotifyDesktop, NotifyOff}

// osc is the desktop-notification escape a terminal takes.
type osc int

const (
	oscNone osc = iota
	osc9        // iTerm2, WezTerm, kitty, Ghostty, Windows Terminal, ConEmu
	osc777      // foot, VTE terminals (GNOME Terminal, Tilix), urxvt, Ghostty
)

// detectOSC tells from the environment which notification escape the terminal shows.
// Inside tmux or screen the escape would reach the multiplexer, not the terminal: only
// the bell passes there (tmux shows it as the window's bell flag).
func detectOSC(getenv func(string) string) osc {
	if getenv("TMUX") != "" || strings.HasPrefix(getenv("TERM"), "screen") {
		return oscNone
	}
	switch prog := getenv("TERM_PROGRAM"); {
	case prog == "iTerm.app", prog == "WezTerm", prog == "ghostty":
		return osc9
	}
	switch term := getenv("TERM"); {
	case term == "xterm-kitty", term == "xterm-ghostty", getenv("KITTY_WINDOW_ID") != "":
		return osc9
	case strings.HasPrefix(term, "foot"), strings.HasPrefix(term, "rxvt-unicode"):
		return osc777
	}
	if getenv("WT_SESSION") != "" || getenv("ConEmuPID") != "" {
		return osc9
	}
	if getenv("VTE_VERSION") != "" {
		return osc777
	}
	return oscNone
}

// focus is what the terminal last said of its focus.
type focus int

const (
	focusUnknown focus = iota // it never said: it may not report focus at all
	focusIn
	focusOut
)

// notifier calls the person once per wait, never while the terminal is focused; a
// terminal that never reports focus is called on each wait.
type notifier struct {
	mode    NotifyMode
	osc     osc
	desktop func(title, body string) // nil: no desktop notifications
	session string

	focus  focus
	wait   string // the wait now ("" none): its key
	text   string // what waits, in words
	called bool   // this wait was called
}

// newNotifier makes the notifier of a screen in mode (auto when empty).
func newNotifier(mode NotifyMode, session string) notifier {
	if mode == "" {
		mode = NotifyAuto
	}
	n := notifier{mode: mode, osc: detectOSC(os.Getenv), session: session}
	switch mode {
	case NotifyOSC:
		if n.osc == oscNone {
			n.osc = osc9
		}
	case NotifyBell, NotifyDesktop:
		n.osc = oscNone
	}
	if mode == NotifyDesktop {
		n.desktop = desktopNotify
	}
	return n
}

// need takes what the person is needed for now (key "" when nothing): a new wait is
// called unless the terminal is focused.
func (n *notifier) need(key, text string) tea.Cmd {
	if key == n.wait {
		n.text = text
		return nil
	}
	n.wait, n.text, n.called = key, text, false
	if key == "" || n.focus == focusIn {
		return nil
	}
	return n.call()
}

// focused takes a focus report: focus leaving while the person is needed calls them.
func (n *notifier) focused(in bool) tea.Cmd {
	if in {
		n.focus = focusIn
		return nil
	}
	n.focus = focusOut
	if n.wait != "" && !n.called {
		return n.call()
	}
	return nil
}

// call makes the notification of the wait now.
func (n *notifier) call() tea.Cmd {
	if n.mode == NotifyOff {
		return nil
	}
	n.called = true
	body := n.text
	if n.session != "" {
		body += " · " + n.session
	}
	body = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f { // no escape may end the sequence early
			return ' '
		}
		return r
	}, body)
	seq := "\a"
	switch n.osc {
	case osc9:
		seq += "\x1b]9;coplay: " + body + "\x1b\\"
	case osc777:
		seq += "\x1b]777;notify;coplay;" + body + "\x1b\\"
	}
	cmds := []tea.Cmd{tea.Raw(seq)}
	if n.desktop != nil {
		d := n.desktop
		cmds = append(cmds, func() tea.Msg { d("coplay", body); return nil })
	}
	return tea.Batch(cmds...)
}

// desktopNotify shows a desktop notification with the system's own tool; where there
// is none, the bell has said it.
func desktopNotify(title, body string) {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("osascript", "-e", fmt.Sprintf("display notification %q with title %q", body, title))
	default:
		if _, err := exec.LookPath("notify-send"); err != nil {
			return
		}
		cmd = exec.Command("notify-send", "--app-name=coplay", title, body)
	}
	_ = cmd.Run()
}

// needed says what the person is needed for now, as a key that changes with each new
// wait and the words of a notification; "" when nothing waits for them. In a league the
// words name the seat (seats.needed).
func (m *Model) needed() (key, text string) {
	if m.seats.on() {
		return m.seats.needed()
	}
	return needOf(m.cur())
}

// needOf is what the person is needed for by one agent (one seat of a league).
func needOf(l *seatView) (key, text string) {
	if len(l.ask.items) > 0 {
		it := l.ask.items[0]
		if it.el != nil {
			return "ask:" + it.el.ID, it.el.Server + " asks: " + it.el.Message
		}
		if it.sm != nil {
			return "sample:" + it.sm.ID, it.sm.Server + " asks to use the model"
		}
	}
	pending, step := l.calls.pending, l.run.step
	switch l.run.state {
	case agent.Deciding:
		if len(pending) == 0 {
			return "", ""
		}
		what := pending[0].call.Tool
		if len(pending) > 1 {
			what = fmt.Sprintf("%s and %d more", what, len(pending)-1)
		}
		return fmt.Sprintf("decide:%d", step), "waiting for your decision: " + what
	case agent.Idle:
		return fmt.Sprintf("idle:%d", step), "the agent waits for your advice"
	case agent.PersonPlays:
		// The person plays this seat: what the game sends it is theirs to answer, and
		// calls them as a call waiting would.
		if l.trigger != "" {
			return fmt.Sprintf("trigger:%d", l.triggerSeq), "for you: " + l.trigger
		}
	case agent.Paused, agent.Stopped:
		if l.run.state == agent.Paused && l.loopText != "" {
			return fmt.Sprintf("loop:%d", step), "the agent is stuck: " + l.loopText
		}
		if strings.Contains(l.stateText, " cap of ") {
			return fmt.Sprintf("cap:%d", step), l.stateText
		}
	}
	return "", ""
}

// title is the terminal window's title: how many calls wait, and the session.
func (m *Model) title() string {
	t := "coplay"
	if n := len(m.seats.queue()); n > 0 && (m.cur().run.state == agent.Deciding || m.seats.on()) {
		t = fmt.Sprintf("(%d waiting) coplay", n)
	}
	if m.info.Session != "" {
		t += " · " + m.info.Session
	}
	return t
}
