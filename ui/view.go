package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/coplayhq/coplay/agent"
)

// wideWidth is the narrowest terminal that gets columns instead of tabs.
const wideWidth = 120

// View draws the screen in the alternate buffer, with mouse wheel reporting on for
// scrolling the log.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.ReportFocus = true // notify.go calls the person only when they look elsewhere
	v.WindowTitle = m.title()
	return v
}

// render draws the whole screen as exactly height lines of width columns.
func (m *Model) render() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return ""
	}
	mainH := max(h-2, 0)
	var main []string
	if w >= wideWidth {
		main = m.renderWide(w, mainH)
	} else {
		main = m.renderNarrow(w, mainH)
	}
	if d := m.renderDialog(w, mainH); d != nil {
		main = overlay(main, d, w, mainH)
	}
	main = m.overlayViews(main, w, mainH)
	lines := append(main, m.renderAdviceLine(w), m.renderStatus(w))
	return strings.Join(block(lines, w, h), "\n")
}

// overlayViews draws the open view (the whole view of a call or log entry, the map
// legend) over the panes.
func (m *Model) overlayViews(main []string, w, h int) []string {
	switch {
	case m.detail != nil:
		return overlay(main, m.detail.View(&m.st, m.keys, w, h), w, h)
	case m.legend != nil:
		return overlay(main, m.legend.View(&m.st, m.keys, w, h), w, h)
	}
	return main
}

// rect is where a pane was drawn, for finding the pane under the mouse.
type rect struct{ x, y, w, h int }

func (r rect) has(x, y int) bool { return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h }

// pendingRoom is the most lines the pending pane may take of h: more while the
// selected call is unfolded.
func (m *Model) pendingRoom(h int) int {
	if m.unfold {
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
	m.rects = [numTabs]rect{tabWorld: {0, 0, leftW, worldH}, tabNotes: {0, worldH, leftW, notesH}}
	var right []string
	logH := h
	if m.pendingShown() {
		pl := m.pendingLines(rightW-2, m.pendingRoom(h)-2)
		ph := min(len(pl)+2, m.pendingRoom(h))
		right = box(&m.st, m.pendingTitle(), pl, rightW, ph, framePending)
		logH = h - ph
	}
	m.rects[tabLog] = rect{leftW, h - logH, rightW, logH}
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
		if m.unfold {
			room = max(body-3, room) // the pane below keeps its title and a line
		}
		pl := m.pendingLines(w-2, room-2)
		ph := min(len(pl)+2, room)
		out = append(out, box(&m.st, m.pendingTitle(), pl, w, ph, framePending)...)
		body -= ph
	}
	m.rects = [numTabs]rect{}
	m.rects[m.tab] = rect{0, h - body, w, body}
	switch m.tab {
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
	if m.tab == p {
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
	body := m.world.render(&m.st, m.now(), m.wait, w-2, h-2)
	shown := m.world.scroll.window(body, h-2)
	return box(&m.st, paneTitle("World", &m.world.scroll), shown, w, h, m.frameOf(tabWorld))
}

func (m *Model) renderNotesBox(w, h int) []string {
	body := m.notes.render(&m.st, w-2)
	shown := m.notes.scroll.window(body, h-2)
	return box(&m.st, paneTitle(m.notes.title(), &m.notes.scroll), shown, w, h, m.frameOf(tabNotes))
}

func (m *Model) renderTabs(w int) string {
	var parts []string
	for i, name := range tabNames {
		label := fmt.Sprintf("%d %s", i+1, name)
		if i == m.tab {
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

func (m *Model) pendingTitle() string {
	if s := m.replayStep; s != nil {
		return fmt.Sprintf("Pending at step %d: %d call(s), as decided", s.Step, len(s.Calls))
	}
	if t := m.askTitle(); t != "" {
		return t
	}
	return fmt.Sprintf("Pending decision (%d)", len(m.pending))
}

func (m *Model) renderLogBox(w, h int) []string {
	title := "Log"
	if m.log.hideNotebook {
		title += " (notebook hidden, " + firstKey(m.keys.ToggleNotebook) + " shows)"
	}
	if m.log.offset > 0 {
		title += fmt.Sprintf(" · scrolled up %d, %s to follow", m.log.offset, firstKey(m.keys.Follow))
	}
	return box(&m.st, title, m.log.render(w-2, h-2), w, h, m.frameOf(tabLog))
}

// renderAdviceLine is the advice input when it has focus, else the last one-off
// message, else what the person can do now (hint.go).
func (m *Model) renderAdviceLine(w int) string {
	if m.adviceFocus {
		m.advice.SetWidth(max(w-len(m.advice.Prompt)-1, 1))
		return padLine(m.advice.View(), w)
	}
	if m.hint != "" {
		return padLine(m.st.warn.Render("! "+m.hint), w)
	}
	return hintLine(&m.st, m.keys, situation{state: m.state, calls: len(m.pending) > 0, asking: len(m.ask.items) > 0, stopped: m.closed}, w)
}

// renderStatus is the bottom line: game, brain, step, state, tokens and cost, wait,
// session, and the key to the help. When the line is too short the least useful parts
// go first: the session, the game and the tool count (a narrow terminal's tab bar shows
// the game and the session); then the line packs tighter (the state and the bill in
// short words, narrower separators) before the bill goes, last of all: an 80-column
// terminal still shows what the run costs.
func (m *Model) renderStatus(w int) string {
	parts := m.statusParts()
	// The keys for what to do now are on the line above (hint.go); here only the help.
	right := " " + firstKey(m.keys.Help) + " help "
	left := m.statusLeft(parts, 3, 0)
	for _, try := range []struct {
		limit, tight int
	}{{2, 0}, {1, 0}, {1, 1}, {1, 2}, {0, 1}, {0, 2}} {
		if widthOf(left)+widthOf(right) <= w {
			break
		}
		left = m.statusLeft(parts, try.limit, try.tight)
	}
	lw, rw := widthOf(left), widthOf(right)
	if lw+rw > w {
		return padLine(left, w)
	}
	return left + m.st.statusBar.Render(strings.Repeat(" ", w-lw-rw)+right)
}

// statusPart is one piece of the status bar's left side.
type statusPart struct {
	text  string
	tight string // a shorter form for a narrow screen; "" keeps text
	drop  int    // 0 never dropped; higher is dropped first
	hot   bool
}

// statusParts lists what the status bar says, most useful first.
func (m *Model) statusParts() []statusPart {
	var parts []statusPart
	if m.info.Game != "" {
		parts = append(parts, statusPart{text: m.info.Game, drop: 2, hot: true})
	}
	if b := brainLabel(m.info.Brain); b != "" {
		parts = append(parts, statusPart{text: b, hot: m.info.Game == ""})
	}
	parts = append(parts, statusPart{text: fmt.Sprintf("step %d", m.step)})
	if m.state != "" {
		parts = append(parts, statusPart{text: strings.ReplaceAll(string(m.state), "_", " "), tight: tightState[m.state]})
	}
	if m.keepPlaying {
		parts = append(parts, statusPart{text: "keep playing", hot: true})
	}
	bill := m.spendText()
	parts = append(parts, statusPart{text: bill, tight: strings.ReplaceAll(bill, " · ", " "), drop: 1})
	if c := m.catalog; c != nil && c.Loaded < c.Total {
		parts = append(parts, statusPart{text: fmt.Sprintf("tools %d/%d", c.Loaded, c.Total), drop: 2})
	}
	if m.wait != nil {
		parts = append(parts, statusPart{text: "wait " + countdown(m.wait.Until.Sub(m.now())), hot: true})
	}
	if m.info.Session != "" {
		parts = append(parts, statusPart{text: m.info.Session, drop: 3})
	}
	return parts
}

// tightState is the short word for a long state on a narrow status bar.
var tightState = map[agent.State]string{agent.Deciding: "deciding"}

// statusLeft renders the parts dropped to limit; tight 1 uses their short forms, and
// 2 narrower separators besides.
func (m *Model) statusLeft(parts []statusPart, limit, tight int) string {
	st := &m.st
	sep := " │ "
	if tight >= 2 {
		sep = "│"
	}
	var out []string
	for _, p := range parts {
		if p.drop > limit {
			continue
		}
		text := p.text
		if tight >= 1 && p.tight != "" {
			text = p.tight
		}
		if p.hot {
			out = append(out, st.statusAccent.Render(text))
		} else {
			out = append(out, st.statusBar.Render(text))
		}
	}
	return st.statusBar.Render(" ") + strings.Join(out, st.statusBar.Render(sep)) + st.statusBar.Render(" ")
}

// brainLabel is how the status bar names the brain; the autopilot says that no model
// is configured, since that is why it plays.
func brainLabel(b string) string {
	if b == "autopilot" {
		return "autopilot: no model configured"
	}
	return b
}

// firstKey is the first key of a binding, for compact hints.
func firstKey(b key.Binding) string {
	if ks := b.Keys(); len(ks) > 0 {
		return ks[0]
	}
	return ""
}

// ShortCount writes a count as 812, 41.2k or 1.3M: how the status bar and `coplay
// sessions` show tokens.
func ShortCount(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// renderDialog draws the open dialog, or nil.
func (m *Model) renderDialog(w, h int) []string {
	st := &m.st
	switch m.dialog {
	case helpDialog:
		return m.renderHelp(w, h)
	case quitDialog:
		n := len(m.pending) + len(m.executing)
		lines := []string{
			fmt.Sprintf("%d call(s) running or waiting for a decision.", n),
			"Quit anyway? The session is kept; --resume continues it.",
			"",
			helpLine(st, []key.Binding{m.keys.Yes, m.keys.No}, 50),
		}
		return box(st, "Quit?", lines, min(w, 60), len(lines)+2, frameFocus)
	case vetoDialog:
		dw := min(w, 76)
		var lines []string
		lines = append(lines, wrapStyled(m.editCall.Tool+" "+spacedJSON(m.editCall.Args), dw-2, st.text, "")...)
		lines = append(lines, "", padLine(m.vetoInput.View(), dw-2), "",
			helpLine(st, []key.Binding{m.keys.Send, m.keys.Cancel}, dw-2))
		return box(st, "Veto "+m.editCall.Tool, lines, dw, len(lines)+2, frameFocus)
	case editDialog:
		dw := min(w, 90)
		lines := wrapStyled("arguments (JSON), checked against the tool's schema as you type; "+
			firstKey(m.keys.Submit)+" sends them for review (new dry run), then "+firstKey(m.keys.Approve)+" approves", dw-2, st.muted, "")
		lines = append(lines, splitLines(m.editor.View())...)
		lines = append(lines, "")
		if len(m.editProbs) == 0 {
			lines = append(lines, st.good.Render("✓ valid"))
		}
		for _, p := range m.editProbs {
			lines = append(lines, wrapStyled(p, dw-2, st.bad, "✗ ")...)
		}
		if m.editRefused {
			lines = append(lines, st.warn.Render("! fix the problems above before submitting"))
		}
		lines = append(lines, helpLine(st, []key.Binding{m.keys.Submit, m.keys.Cancel}, dw-2))
		return box(st, "Edit "+m.editCall.Tool, lines, dw, min(len(lines)+2, h), frameFocus)
	case rulesDialog:
		return m.renderRules(w, h)
	}
	return nil
}

// renderHelp lists every binding in its group: groups side by side when they fit,
// else one under the other.
func (m *Model) renderHelp(w, h int) []string {
	st := &m.st
	groups := m.keys.FullHelp()
	titles := []string{"Decisions & rules", "Agent & input", "A server's question", "Panes & screen"}
	var cols [][]string
	total := 0
	for i, g := range groups {
		kw, dw := 0, len(titles[i])
		for _, b := range g {
			kw = max(kw, widthOf(b.Help().Key))
			dw = max(dw, widthOf(b.Help().Desc))
		}
		col := []string{st.strong.Render(titles[i])}
		for _, b := range g {
			hp := b.Help()
			col = append(col, st.key.Render(padLine(hp.Key, kw))+"  "+hp.Desc)
		}
		cw := kw + 2 + dw + 3
		total += cw
		cols = append(cols, block(col, cw, len(col)))
	}
	// Pack the groups into rows of columns that fit the width.
	var lines []string
	widest := 0
	for i := 0; i < len(cols); {
		row := [][]string{cols[i]}
		rw := widthOf(cols[i][0])
		for i++; i < len(cols) && rw+widthOf(cols[i][0])+2 <= w; i++ {
			row = append(row, cols[i])
			rw += widthOf(cols[i][0])
		}
		hgt := 0
		for _, c := range row {
			hgt = max(hgt, len(c))
		}
		for j := range row {
			row[j] = block(row[j], widthOf(row[j][0]), hgt)
		}
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, besides(row...)...)
		widest = max(widest, rw)
	}
	total = widest
	lines = append(lines, "")
	lines = append(lines, wrapStyled("Copying: the mouse wheel scrolls, so a plain drag does not select; shift-drag selects "+
		"(option-drag in macOS Terminal, fn-drag in iTerm2). "+firstKey(m.keys.Details)+" shows the selected call or the log entry "+
		"at the bottom of the log whole, and "+firstKey(m.keys.Copy)+" there copies it (OSC 52).", min(w, max(total, 52)+2)-2, st.muted, "")...)
	lines = append(lines, st.muted.Render(firstKey(m.keys.Help)+" or esc closes · keys can be changed in keys.json"))
	dw := min(w, max(total, 52)+2)
	shown := m.helpScroll.window(lines, max(min(len(lines), h-2), 1))
	title := "Help"
	if s := m.helpScroll.status(); s != "" {
		title += " · " + s + " (" + m.keys.Down.Help().Key + ", " + m.keys.ScrollDown.Help().Key + ")"
	}
	return box(st, title, shown, dw, min(len(lines)+2, h), frameFocus)
}

// resizeWidgets fits the text inputs to the terminal.
func (m *Model) resizeWidgets() {
	dw := min(m.width, 90)
	m.editor.SetWidth(max(dw-4, 10))
	lines := strings.Count(m.editor.Value(), "\n") + 1
	m.editor.SetHeight(max(min(lines, m.height-12), 3))
	m.vetoInput.SetWidth(max(min(m.width, 76)-len(m.vetoInput.Prompt)-4, 10))
}

func widthOf(s string) int { return ansi.StringWidth(s) }
