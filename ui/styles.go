package ui

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// styles are the screen's colours and weights for one terminal background. Nothing
// relies on colour alone: selection, status and errors also have glyphs or words, so
// the screen reads the same under NO_COLOR.
type styles struct {
	dark bool

	border, focus, title         lipgloss.Style
	mutedTitle                   lipgloss.Style
	pending, pendingTitle        lipgloss.Style
	text, muted, accent, strong  lipgloss.Style
	good, bad, warn              lipgloss.Style
	key, statusBar, statusAccent lipgloss.Style
	tabOn, tabOff                lipgloss.Style
	selected                     lipgloss.Style
}

func newStyles(dark bool) styles {
	ld := lipgloss.LightDark(dark)
	c := func(light, dark string) color.Color { return ld(lipgloss.Color(light), lipgloss.Color(dark)) }
	fg := c("#1f2328", "#e6edf3")
	muted := c("#6e7781", "#8b949e")
	accent := c("#0550ae", "#79c0ff")
	good := c("#116329", "#56d364")
	bad := c("#a40e26", "#ff7b72")
	warn := c("#7d4e00", "#e3b341")
	barBg := c("#d0d7de", "#30363d")
	s := lipgloss.NewStyle()
	return styles{
		dark:         dark,
		border:       s.Foreground(muted),
		focus:        s.Foreground(accent),
		title:        s.Foreground(accent).Bold(true),
		mutedTitle:   s.Foreground(fg),
		pending:      s.Foreground(warn),
		pendingTitle: s.Foreground(warn).Bold(true),
		text:         s.Foreground(fg),
		muted:        s.Foreground(muted),
		accent:       s.Foreground(accent),
		strong:       s.Foreground(fg).Bold(true),
		good:         s.Foreground(good),
		bad:          s.Foreground(bad),
		warn:         s.Foreground(warn),
		key:          s.Foreground(accent).Bold(true),
		statusBar:    s.Foreground(fg).Background(barBg),
		statusAccent: s.Foreground(accent).Background(barBg).Bold(true),
		tabOn:        s.Foreground(accent).Bold(true).Underline(true),
		tabOff:       s.Foreground(muted),
		selected:     s.Foreground(accent).Bold(true),
	}
}
