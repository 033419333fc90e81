package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/keymap"
)

// helpView is the help dialog: every binding in its group, scrolled when it is taller
// than the terminal. Closing it goes back to the dialog it was opened from, if any.
type helpView struct {
	st     *styles
	km     *keymap.KeyMap
	back   dialog // the dialog the help was opened over; nil for the panes
	scroll paneScroll
	league bool // a league's screen: its seat keys are a group of their own
	watch  bool // a screen that may only watch: the keys that steer are left out
}

func (d *helpView) kind() dialogKind { return helpDialog }

func (d *helpView) hint() (string, []key.Binding) {
	return "help:", []key.Binding{one(d.km.Down, "scroll"), one(d.km.Cancel, "close")}
}

func (d *helpView) update(msg tea.Msg) (tea.Cmd, action) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	km := d.km
	switch {
	case key.Matches(k, km.Help, km.Cancel, km.Quit):
		return nil, actOpen{d.back}
	default:
		scrollKey(&d.scroll, km, k)
	}
	return nil, nil
}

// view lists every binding in its group: groups side by side when they fit, else one
// under the other.
func (d *helpView) view(w, h int) []string {
	st := d.st
	titles := []string{"Decisions & rules", "Agent & input", "A server's question", "Panes & screen", "League"}
	groups := d.km.FullHelp()
	if d.league {
		groups = append(groups, d.km.LeagueHelp())
	}
	if d.watch { // only what a watcher can do: the panes, and the seats
		titles, groups = titles[3:], groups[3:]
	}
	var cols [][]string
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
		cols = append(cols, block(col, kw+2+dw+3, len(col)))
	}
	lines, widest := packColumns(cols, w)
	dw := min(w, max(widest, 52)+2)
	if d.watch {
		lines = append(wrapStyled(readOnlyHint+".", dw-2, d.st.warn, ""), append([]string{""}, lines...)...)
	}
	lines = append(lines, "")
	lines = append(lines, wrapStyled("Copying: the mouse wheel scrolls, so a plain drag does not select; shift-drag selects "+
		"(option-drag in macOS Terminal, fn-drag in iTerm2). "+firstKey(d.km.Details)+" shows the selected call or the log entry "+
		"at the bottom of the log whole, and "+firstKey(d.km.Copy)+" there copies it (OSC 52).", dw-2, st.muted, "")...)
	lines = append(lines, st.muted.Render(firstKey(d.km.Help)+" or esc closes · keys can be changed in keys.json"))
	shown := d.scroll.window(lines, max(min(len(lines), h-2), 1))
	title := "Help"
	if s := d.scroll.status(); s != "" {
		title += " · " + s + " (" + d.km.Down.Help().Key + ", " + d.km.ScrollDown.Help().Key + ")"
	}
	return box(st, title, shown, dw, min(len(lines)+2, h), frameFocus)
}

// packColumns puts columns side by side in rows that fit w, a blank line between rows;
// it returns the lines and the widest row.
func packColumns(cols [][]string, w int) (lines []string, widest int) {
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
	return lines, widest
}
