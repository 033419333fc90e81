package ui

import (
	"regexp"
	"strings"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"
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

// listItem matches the start of a rendered list item: its indent and its marker.
var listItem = regexp.MustCompile(`^( *)(• |\d+\. )`)

// hangLists indents the continuation lines of list items under the item's text, as
// glamour leaves them under the bullet: a wrapped item reads as one.
func hangLists(lines []string, width int) []string {
	lead, hang := "", 0
	for i, l := range lines {
		plain := ansi.Strip(l)
		if m := listItem.FindStringSubmatch(plain); m != nil {
			lead, hang = m[1], len([]rune(m[2]))
			continue
		}
		if hang == 0 {
			continue
		}
		if strings.TrimSpace(plain) == "" || !strings.HasPrefix(plain, lead) || strings.HasPrefix(plain, lead+" ") || !strings.HasPrefix(l, lead) {
			lead, hang = "", 0
			continue
		}
		l = lead + strings.Repeat(" ", hang) + l[len(lead):]
		if ansi.StringWidth(l) > width && ansi.StringWidth(strings.TrimRight(ansi.Strip(l), " ")) <= width {
			l = ansi.Truncate(l, width, "") // only padding goes
		}
		lines[i] = l
	}
	return lines
}

// renderMarkdown renders text for a pane width columns wide; if glamour fails the text
// is shown wrapped, as written.
func renderMarkdown(text string, width int, dark bool) []string {
	style := "light"
	if dark {
		style = "dark"
	}
	// Two columns narrower than the pane leaves room to hang list items (hangLists).
	r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(style), glamour.WithWordWrap(max(width-4, 10)))
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
			return hangLists(lines, width)
		}
	}
	return wrapWords(text, width)
}
