package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/keymap"
)

// The whole view: one log entry or one call, all of its text, wrapped to the screen,
// line breaks as lines, scrolled with the pane keys. The log and the Pending pane fold
// what is long (a result's first lines, a call's first arguments); this is where it is
// read whole, and copied: the copy key puts the text on the clipboard through the
// terminal (OSC 52), which works over ssh and needs no mouse selection.

// detailView is the whole view over the panes. It holds its own text and scroll; the
// log's entries are walked with the pane keys without closing it.
type detailView struct {
	st     *styles
	km     *keymap.KeyMap
	title  string
	text   string // plain text: what is shown, and what is copied
	scroll paneScroll
	// log and at, when the view shows a log entry: the log and the entry's index, so
	// that the entries before and after can be shown in turn.
	log *logView
	at  int
	// note is a one-off word in the view's last line ("copied 1,204 characters").
	note string
}

// logDetail is the whole view of the log entry at the bottom of the log as last drawn
// (the newest one when the log follows its end), or nil when the log is empty.
func logDetail(l *logView) *detailView {
	if len(l.entries) == 0 {
		return nil
	}
	d := &detailView{log: l, at: len(l.entries)}
	if l.offset > 0 { // scrolled up: the entry at the bottom of the window
		d.show(min(max(l.bottom, 0), len(l.entries)-1))
		return d
	}
	d.walk(-1) // following the end: the newest entry shown
	if d.note != "" {
		return nil // every entry is hidden
	}
	return d
}

// show puts log entry i in the view.
func (d *detailView) show(i int) {
	e := d.log.entries[i]
	d.at, d.scroll, d.note = i, paneScroll{}, ""
	d.text = e.whole()
	d.title = fmt.Sprintf("Log entry %d of %d", i+1, len(d.log.entries))
	if name := e.kind.name(); name != "" {
		d.title += ": " + name
	}
}

// walk shows the next shown log entry in direction dir (1 newer, -1 older), and says
// so when there is none.
func (d *detailView) walk(dir int) {
	if d.log == nil {
		return
	}
	for i := d.at + dir; i >= 0 && i < len(d.log.entries); i += dir {
		if d.log.shown(d.log.entries[i]) {
			d.show(i)
			return
		}
	}
	d.note = map[int]string{1: "this is the newest entry", -1: "this is the oldest entry"}[dir]
}

// callDetail is the whole view of a call waiting for a decision: the reason it was
// proposed for, its arguments, its checks and its dry run.
func callDetail(p pendingCall) *detailView {
	c := p.call
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s)\n", p.name(), c.Kind)
	if p.reason != "" {
		fmt.Fprintf(&b, "\nwhy:\n%s\n", p.reason)
	}
	fmt.Fprintf(&b, "\narguments:\n%s\n", readablePretty(c.Args))
	for _, pr := range c.Problems {
		fmt.Fprintf(&b, "\n✗ %s", pr.String())
	}
	if s := c.Simulation; s != nil {
		fmt.Fprintf(&b, "\ndry run: %s", s.Summary)
		if s.Warning != "" {
			fmt.Fprintf(&b, "\n%s", s.Warning)
		}
	}
	return &detailView{title: "Call " + p.name() + ", waiting for a decision", text: strings.TrimRight(b.String(), "\n")}
}

// stepDetail is the whole view of a replayed step's calls: the model's words, then each
// call with its arguments, who decided what and why, and its whole result.
func stepDetail(s *agent.ReplayStep) *detailView {
	var b strings.Builder
	if s.Text != "" {
		fmt.Fprintf(&b, "why:\n%s\n", s.Text)
	}
	for _, c := range s.Calls {
		fmt.Fprintf(&b, "\n▸ %s %s\n", c.Tool, readableArgs(c.Args))
		switch d := c.Decision; {
		case d == nil:
			b.WriteString("  never decided\n")
		default:
			by := d.By
			if d.Rule != "" {
				by += " (" + d.Rule + ")"
			}
			fmt.Fprintf(&b, "  %s by %s", d.Decision, by)
			if d.Reason != "" {
				fmt.Fprintf(&b, ": %s", d.Reason)
			}
			if len(d.Args) > 0 {
				fmt.Fprintf(&b, "\n  ran with %s", readableJSON(d.Args))
			}
			b.WriteString("\n")
		}
		if r := c.Result; r != nil {
			switch {
			case r.Unknown:
				b.WriteString("  → outcome unknown\n")
			case r.Err != nil:
				fmt.Fprintf(&b, "  → error: %s\n", r.Err.Message)
			default:
				fmt.Fprintf(&b, "  → %s\n", r.Output)
			}
		}
	}
	if len(s.Calls) == 0 {
		b.WriteString("\nno calls at this step")
	}
	return &detailView{title: fmt.Sprintf("Step %d: %d call(s), whole", s.Step, len(s.Calls)), text: strings.TrimSpace(b.String())}
}

// readableArgs is a call's arguments for reading: on one line when short, else indented.
func readableArgs(raw []byte) string {
	if one := readableJSON(raw); len(one) <= 72 && !strings.Contains(one, "\n") {
		return one
	}
	return readablePretty(raw)
}

// readablePretty is JSON indented, its strings' line breaks written as line breaks: for
// reading (the editor has the exact JSON).
func readablePretty(raw []byte) string {
	return strings.NewReplacer(`\n`, "\n", `\\`, `\`).Replace(prettyJSON(raw))
}

func (d *detailView) kind() dialogKind { return detailDialog }
func (d *detailView) scrollBy(n int)   { d.scroll.by(n) }

func (d *detailView) hint() (string, []key.Binding) {
	km := d.km
	keys := []key.Binding{one(km.Copy, "copy"), one(km.Down, "scroll")}
	if d.log != nil {
		keys = append(keys, one(km.PrevTab, "older"), one(km.NextTab, "newer"))
	}
	return "the whole view:", append(keys, one(km.Cancel, "close"))
}

// update handles a key: scroll, walk the log, copy, or close.
func (d *detailView) update(msg tea.Msg) (tea.Cmd, action) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	km := d.km
	d.note = ""
	switch {
	case key.Matches(k, km.Cancel, km.Details, km.Quit):
		return nil, actClose
	case key.Matches(k, km.Copy):
		d.note = fmt.Sprintf("copied %d characters (OSC 52: the terminal must allow it; shift-drag selects too)", len([]rune(d.text)))
		return tea.SetClipboard(d.text), nil
	case key.Matches(k, km.NextTab):
		d.walk(1)
	case key.Matches(k, km.PrevTab):
		d.walk(-1)
	default:
		scrollKey(&d.scroll, km, k)
	}
	return nil, nil
}

// scrollKey scrolls s by a line or a page for the up, down and page keys; it says
// whether msg was one of them.
func scrollKey(s *paneScroll, km *keymap.KeyMap, msg tea.KeyPressMsg) bool {
	switch {
	case key.Matches(msg, km.Down):
		s.by(1)
	case key.Matches(msg, km.Up):
		s.by(-1)
	case key.Matches(msg, km.ScrollDown):
		s.by(s.page())
	case key.Matches(msg, km.ScrollUp):
		s.by(-s.page())
	default:
		return false
	}
	return true
}

// view draws the view as a box over the panes, w×h at most.
func (d *detailView) view(w, h int) []string {
	st, km := d.st, d.km
	dw := min(w, 100)
	body := wrapStyled(d.text, dw-2, st.text, "")
	keys := []key.Binding{withDesc(km.Copy, "copy"), withDesc(km.Down, "scroll"), withDesc(km.Cancel, "close")}
	if d.log != nil {
		keys = []key.Binding{withDesc(km.Copy, "copy"), withDesc(km.PrevTab, "older"), withDesc(km.NextTab, "newer"),
			withDesc(km.Down, "scroll"), withDesc(km.Cancel, "close")}
	}
	foot := helpLine(st, keys, dw-2)
	if d.note != "" {
		foot = padLine(st.warn.Render("! "+d.note), dw-2)
	}
	return scrolledBox(st, d.title, body, foot, &d.scroll, dw, h)
}

// scrolledBox draws body in a box of width w and at most h lines, through s, with foot
// as its last line and the scroll position in the title when body does not fit.
func scrolledBox(st *styles, title string, body []string, foot string, s *paneScroll, w, h int) []string {
	room := max(min(len(body), h-4), 1) // the frame, a blank line and foot
	lines := append(s.window(body, room), "", foot)
	return box(st, paneTitle(title, s), lines, w, len(lines)+2, frameFocus)
}
