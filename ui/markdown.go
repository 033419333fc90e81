package ui

import (
	"strings"

	"charm.land/glamour/v2"
)

// markdownCache renders markdown with glamour once per text, width and background;
// glamour is far too slow to run on every frame.
type markdownCache struct {
	text  string
	width int
	dark  bool
	lines []string
}

func (c *markdownCache) render(text string, width int, dark bool) []string {
	if c.lines != nil && c.text == text && c.width == width && c.dark == dark {
		return c.lines
	}
	c.text, c.width, c.dark = text, width, dark
	c.lines = renderMarkdown(text, width, dark)
	return c.lines
}

// renderMarkdown renders text for a pane width columns wide; if glamour fails the text
// is shown wrapped, as written.
func renderMarkdown(text string, width int, dark bool) []string {
	style := "light"
	if dark {
		style = "dark"
	}
	r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(style), glamour.WithWordWrap(max(width-2, 10)))
	if err == nil {
		if out, err := r.Render(text); err == nil {
			lines := splitLines(out)
			// glamour frames the document with blank lines; the pane has its own.
			for len(lines) > 0 && strings.TrimSpace(stripANSI(lines[0])) == "" {
				lines = lines[1:]
			}
			for len(lines) > 0 && strings.TrimSpace(stripANSI(lines[len(lines)-1])) == "" {
				lines = lines[:len(lines)-1]
			}
			return lines
		}
	}
	return wrapText(text, width)
}
