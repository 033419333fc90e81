package ui

import (
	"regexp"
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

// nbHyphen is U+2011 NON-BREAKING HYPHEN, one cell wide like "-".
const nbHyphen = "\u2011"

// innerHyphen is a hyphen with a letter or digit before it and after it.
var innerHyphen = regexp.MustCompile(`([\p{L}\p{N}])-([\p{L}\p{N}])`)

// keepHyphens makes every hyphen inside a word non-breaking. Matches overlap in
// "X1-YS98-A1", so it runs until nothing changes (twice).
func keepHyphens(s string) string {
	for {
		t := innerHyphen.ReplaceAllString(s, "${1}"+nbHyphen+"${2}")
		if t == s {
			return t
		}
		s = t
	}
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
		// glamour wraps at hyphens too; a symbol such as X1-YS98-A1 or a date must stay
		// whole, so hyphens inside words are made non-breaking for the render.
		if out, err := r.Render(keepHyphens(text)); err == nil {
			out = strings.ReplaceAll(out, nbHyphen, "-")
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
	return wrapWords(text, width)
}
