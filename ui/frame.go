package ui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// The screen is assembled from blocks of exactly w columns by h lines, so panes can be
// joined side by side and stacked without lipgloss measuring (and re-wrapping) them
// on every frame, and a resize can never push a pane out of its place.

// padLine cuts or pads one line to exactly w columns.
func padLine(line string, w int) string {
	if w <= 0 {
		return ""
	}
	lw := ansi.StringWidth(line)
	if lw > w {
		line = ansi.Truncate(line, w, "…")
		lw = ansi.StringWidth(line)
	}
	if lw < w {
		line += strings.Repeat(" ", w-lw)
	}
	return line
}

// block makes exactly h lines of exactly w columns from lines.
func block(lines []string, w, h int) []string {
	if h <= 0 {
		return nil
	}
	out := make([]string, h)
	for i := range out {
		if i < len(lines) {
			out[i] = padLine(lines[i], w)
		} else {
			out[i] = strings.Repeat(" ", max(w, 0))
		}
	}
	return out
}

// splitLines splits rendered text into lines, without a trailing empty one.
func splitLines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// frame is how a box's border is drawn.
type frame int

const (
	frameNormal  frame = iota // a pane without the focus: muted border and title
	frameFocus                // the focused pane or a dialog: bright border, "●" before the title
	framePending              // the pending calls: what the agent waits for
)

// box draws lines in a rounded border of exactly w×h cells, with title in the top
// edge. The body is w-2 columns by h-2 lines.
func box(st *styles, title string, lines []string, w, h int, f frame) []string {
	if w < 4 || h < 2 {
		return block(nil, w, h)
	}
	bs, ts := st.border, st.mutedTitle
	switch f {
	case frameFocus:
		bs, ts = st.focus, st.title
		if title != "" {
			title = "● " + title
		}
	case framePending:
		bs, ts = st.pending, st.pendingTitle
	}
	inner := w - 2
	t := ""
	if title != "" {
		t = ansi.Truncate(" "+title+" ", inner-1, "…")
	}
	top := bs.Render("╭─") + ts.Render(t) + bs.Render(strings.Repeat("─", max(inner-1-ansi.StringWidth(t), 0))+"╮")
	out := make([]string, 0, h)
	out = append(out, top)
	side := bs.Render("│")
	for _, l := range block(lines, inner, h-2) {
		out = append(out, side+l+side)
	}
	out = append(out, bs.Render("╰"+strings.Repeat("─", inner)+"╯"))
	return out
}

// besides joins blocks of equal height side by side.
func besides(blocks ...[]string) []string {
	if len(blocks) == 0 {
		return nil
	}
	out := make([]string, len(blocks[0]))
	for i := range out {
		var b strings.Builder
		for _, bl := range blocks {
			if i < len(bl) {
				b.WriteString(bl[i])
			}
		}
		out[i] = b.String()
	}
	return out
}

// overlay draws the dialog block centred over the background block.
func overlay(bg []string, dlg []string, w, h int) []string {
	c := lipgloss.NewCanvas(w, h)
	dw := 0
	for _, l := range dlg {
		dw = max(dw, ansi.StringWidth(l))
	}
	x := max((w-dw)/2, 0)
	y := max((h-len(dlg))/3, 0)
	c.Compose(lipgloss.NewCompositor(
		lipgloss.NewLayer(strings.Join(bg, "\n")),
		lipgloss.NewLayer(strings.Join(dlg, "\n")).X(x).Y(y).Z(1),
	))
	return block(strings.Split(c.Render(), "\n"), w, h)
}

// stripANSI removes escape sequences, for measuring and for plain-text goldens.
func stripANSI(s string) string { return ansi.Strip(s) }
