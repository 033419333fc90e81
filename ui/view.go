package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// wideWidth is the narrowest terminal that gets columns instead of tabs.
const wideWidth = 120

// layout is the terminal's size, the pane with the focus and where each pane was last
// drawn (for the mouse).
type layout struct {
	width, height int
	tab           int           // the focused pane
	rects         [numTabs]rect // where each pane was last drawn (zero: not on screen)
}

// rect is where a pane was drawn, for finding the pane under the mouse.
type rect struct{ x, y, w, h int }

func (r rect) has(x, y int) bool { return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h }

// View draws the screen, and asks for focus reports: notify.go calls the person only
// when they look elsewhere.
func (m *Model) View() tea.View {
	v := screenView(m.render())
	v.ReportFocus = true
	v.WindowTitle = m.title()
	return v
}

// screenView shows a drawn screen in the alternate buffer, with mouse wheel reporting
// on for scrolling the panes.
func screenView(s string) tea.View {
	v := tea.NewView(s)
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	return v
}

// render draws the whole screen as exactly height lines of width columns: the panes,
// the open dialog over them, the advice line and the status bar.
func (m *Model) render() string {
	w, h := m.layout.width, m.layout.height
	if w <= 0 || h <= 0 {
		return ""
	}
	// A league's seat bar goes above the advice line, with the status: the panes keep
	// their place, so the mouse finds them where they were drawn.
	var bar []string
	switch {
	case !m.seats.on() || h <= 3:
	case m.advice.focus && m.hint != "": // the advice input has the advice line: "no seat …" shows here
		bar = []string{padLine(m.st.warn.Render("! "+m.hint), w)}
	default:
		bar = []string{m.seats.bar(m, w)}
	}
	ph := max(h-2-len(bar), 0)
	main := m.renderPanes(w, ph)
	if m.dlg != nil {
		main = overlay(main, m.dialogView(w, ph), w, ph)
	}
	lines := append(append(main, bar...), m.renderAdviceLine(w), m.renderStatus(w))
	return strings.Join(block(lines, w, h), "\n")
}

// renderPanes lays the panes out in w×h: columns on a wide terminal, tabs on a narrow
// one.
func (m *Model) renderPanes(w, h int) []string {
	h = max(h, 0)
	if w >= wideWidth {
		return m.renderWide(w, h)
	}
	return m.renderNarrow(w, h)
}

// pendingRoom is the most lines the pending pane may take of h: more while the
// selected call is unfolded.
func (m *Model) pendingRoom(h int) int {
	if m.cur().calls.unfold {
		return max(h-4, h/2)
	}
	return h / 2
}

// renderWide puts world and notes in a left column, pending and log in a right one.
func (m *Model) renderWide(w, h int) []string {
	leftW := w * 2 / 5
	rightW := w - leftW
	worldH := h * 3 / 5
	notesH := h - worldH
	left := append(m.renderWorldBox(leftW, worldH), m.renderNotesBox(leftW, notesH)...)
	m.layout.rects = [numTabs]rect{tabWorld: {0, 0, leftW, worldH}, tabNotes: {0, worldH, leftW, notesH}}
	var right []string
	logH := h
	if m.pendingShown() {
		pl := m.pendingLines(rightW-2, m.pendingRoom(h)-2)
		ph := min(len(pl)+2, m.pendingRoom(h))
		right = box(&m.st, m.pendingTitle(), pl, rightW, ph, framePending)
		logH = h - ph
	}
	m.layout.rects[tabLog] = rect{leftW, h - logH, rightW, logH}
	right = append(right, m.renderLogBox(rightW, logH)...)
	return besides(left, right)
}

// renderNarrow shows a tab bar and one pane at a time; pending calls stay above the
// pane whatever the tab, since they are what the agent waits for.
func (m *Model) renderNarrow(w, h int) []string {
	if h <= 0 {
		return nil
	}
	out := []string{m.renderTabs(w)}
	body := h - 1
	if m.pendingShown() {
		room := body * 3 / 5
		if m.cur().calls.unfold {
			room = max(body-3, room) // the pane below keeps its title and a line
		}
		pl := m.pendingLines(w-2, room-2)
		ph := min(len(pl)+2, room)
		out = append(out, box(&m.st, m.pendingTitle(), pl, w, ph, framePending)...)
		body -= ph
	}
	tab := m.layout.tab
	m.layout.rects = [numTabs]rect{}
	m.layout.rects[tab] = rect{0, h - body, w, body}
	switch tab {
	case tabWorld:
		out = append(out, m.renderWorldBox(w, body)...)
	case tabNotes:
		out = append(out, m.renderNotesBox(w, body)...)
	default:
		out = append(out, m.renderLogBox(w, body)...)
	}
	return out
}

// frameOf is the border of pane p: highlighted when it has the focus.
func (m *Model) frameOf(p int) frame {
	if m.layout.tab == p {
		return frameFocus
	}
	return frameNormal
}

// paneTitle adds the scroll position to a pane's title when its body does not fit.
func paneTitle(name string, s *paneScroll) string {
	if st := s.status(); st != "" {
		return name + " · " + st
	}
	return name
}

func (m *Model) renderWorldBox(w, h int) []string {
	v := m.cur()
	body := v.world.render(&m.st, m.now(), v.run.wait, w-2, h-2)
	shown := v.world.scroll.window(body, h-2)
	return box(&m.st, paneTitle("World", &v.world.scroll), shown, w, h, m.frameOf(tabWorld))
}

func (m *Model) renderNotesBox(w, h int) []string {
	v := m.cur()
	body := v.notes.render(&m.st, w-2)
	shown := v.notes.scroll.window(body, h-2)
	return box(&m.st, paneTitle(v.notes.title(), &v.notes.scroll), shown, w, h, m.frameOf(tabNotes))
}

func (m *Model) renderTabs(w int) string {
	var parts []string
	for i, name := range tabNames {
		label := fmt.Sprintf("%d %s", i+1, name)
		if i == m.layout.tab {
			parts = append(parts, m.st.tabOn.Render("["+label+"]"))
		} else {
			parts = append(parts, m.st.tabOff.Render(" "+label+" "))
		}
	}
	tabs := strings.Join(parts, " ")
	nav := m.st.muted.Render("  " + firstKey(m.keys.PrevTab) + " " + firstKey(m.keys.NextTab) + " switch")
	// What is played and where it is kept, on the right: the status bar has no room for
	// them on a narrow terminal. The switch keys give way first (the help has them).
	game, _, _ := strings.Cut(m.info.Game, " (")
	for _, right := range []string{strings.Join(nonEmpty(game, m.info.Session), " · "), m.info.Session, ""} {
		for _, left := range []string{tabs + nav, tabs} {
			if gap := w - widthOf(left) - widthOf(right); right != "" && gap >= 1 {
				return left + strings.Repeat(" ", gap) + m.st.muted.Render(right)
			}
		}
	}
	return padLine(tabs+nav, w)
}

// nonEmpty is ss without its empty strings.
func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// renderAdviceLine is the advice input when it has focus, else the last one-off
// message, else what the person can do now (hint.go).
func (m *Model) renderAdviceLine(w int) string {
	if m.advice.focus || m.hint != "" {
		return m.advice.view(w, m.hint)
	}
	if m.dlg != nil { // the hint follows the open dialog
		lead, keys := m.dialogHint()
		return fitLine(&m.st, lead, keys, w)
	}
	v := m.cur()
	if v.ask.editing && v.ask.gone != "" {
		return fitLine(&m.st, v.ask.gone+"; nothing typed here is sent:", []key.Binding{one(m.keys.Cancel, "close")}, w)
	}
	now := situation{state: v.run.state, calls: len(m.seats.queue()) > 0, asking: len(v.ask.items) > 0, stopped: v.run.closed,
		watch: m.info.ReadOnly, attached: m.info.Attached, seat: m.seats.cur().Name, othersWait: m.seats.othersWait(),
		ownSeat: v.Model == PersonSeatModel}
	return hintLine(&m.st, m.keys, now, w)
}

// pendingShown says whether the Pending pane has anything: a question or a call (or,
// replaying, the step's calls).
func (m *Model) pendingShown() bool {
	return m.replayStep != nil || len(m.cur().ask.items) > 0 || len(m.seats.queue()) > 0
}

// pendingLines draws the Pending pane: the first question when one waits, else the
// calls.
func (m *Model) pendingLines(w, maxH int) []string {
	if m.replayStep != nil {
		return replayPending(&m.st, m.keys, m.replayStep, w, maxH)
	}
	if len(m.cur().ask.items) > 0 {
		return m.cur().ask.view(w, maxH)
	}
	q := m.seats.queue() // a league's whole queue
	return renderPending(&m.st, m.keys, q, m.seats.selIndex(q), m.cur().calls.unfold, m.info.ReadOnly, w, maxH)
}

func (m *Model) pendingTitle() string {
	if s := m.replayStep; s != nil {
		return fmt.Sprintf("Pending at step %d: %d call(s), as decided", s.Step, len(s.Calls))
	}
	if t := m.cur().ask.title(); t != "" {
		return t
	}
	if m.seats.on() {
		n := len(m.seats.queue())
		if other := m.seats.elsewhere(); other != "" {
			return fmt.Sprintf("Pending decisions, every seat (%d) · the panes show %s", n, other)
		}
		return fmt.Sprintf("Pending decisions, every seat, oldest first (%d)", n)
	}
	return fmt.Sprintf("Pending decision (%d)", len(m.cur().calls.pending))
}

func (m *Model) renderLogBox(w, h int) []string {
	l := &m.cur().log
	title := "Log"
	if l.hideNotebook {
		title += " (notebook hidden, " + firstKey(m.keys.ToggleNotebook) + " shows)"
	}
	if l.offset > 0 {
		title += fmt.Sprintf(" · scrolled up %d, %s to follow", l.offset, firstKey(m.keys.Follow))
	}
	return box(&m.st, title, l.render(w-2, h-2), w, h, m.frameOf(tabLog))
}

// firstKey is the first key of a binding, for compact hints.
func firstKey(b key.Binding) string {
	if ks := b.Keys(); len(ks) > 0 {
		return ks[0]
	}
	return ""
}

func widthOf(s string) int { return ansi.StringWidth(s) }
