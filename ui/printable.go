package ui

import (
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

// What reaches the screen from elsewhere (a seat's name, an attached owner's words, a
// game server's messages, a model's text) is printed, never obeyed: an escape sequence
// in it could clear the screen, move the cursor or retitle the window, and an invisible
// character (a zero-width space, a right-to-left override) could make one name look like
// another. The places that draw such text pass it through these first.

// printableText is s with escape sequences and control and format characters removed,
// its newlines and tabs kept: for text that is wrapped into lines.
func printableText(s string) string { return printable(s, "\n\t") }

// printableLine is s as one line of printable characters: for a name or a label.
func printableLine(s string) string { return printable(s, "") }

// printable removes escape sequences, then every control or format character but keep.
func printable(s, keep string) string {
	clean := func(r rune) bool {
		return (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) && !strings.ContainsRune(keep, r)
	}
	if strings.IndexFunc(s, clean) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if clean(r) {
			return -1
		}
		return r
	}, ansi.Strip(s))
}
