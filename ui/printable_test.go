package ui

import (
	"strings"
	"testing"
)

func TestPrintableDropsWhatATerminalWouldObey(t *testing.T) {
	for in, want := range map[string]string{
		"Heron":                      "Heron",
		"He\u200bron":                "Heron",
		"\u202eHeron":                "Heron",
		"Heron\x1b[2J\x1b]0;pwned\a": "Heron",
		"bell\a and\rreturn":         "bell andreturn",
		"two\nlines\tand a tab":      "twolinesand a tab",
	} {
		if got := printableLine(in); got != want {
			t.Errorf("printableLine(%q) = %q, want %q", in, got, want)
		}
	}
	if got := printableText("two\nlines\tand\x1b[31m red"); got != "two\nlines\tand red" {
		t.Errorf("printableText kept %q", got)
	}
}

// TestLogPrintsNoEscapeFromAnEvent: a server's words with an escape sequence in them
// reach the log as text, without the escape.
func TestLogPrintsNoEscapeFromAnEvent(t *testing.T) {
	l := newLog(0)
	l.add(kindError, "the server said \x1b[2J\x1b]2;title\a hello")
	l.delta("streamed \x1b[H")
	got := strings.Join(l.render(60, 4), "\n")
	if strings.Contains(stripANSI(got), "[2J") || strings.Contains(got, "]2;") || strings.Contains(got, "\x1b[H") {
		t.Fatalf("the log passed an escape on:\n%q", got)
	}
	if !strings.Contains(plain(l.render(60, 4)), "the server said  hello") {
		t.Fatalf("the log lost the words:\n%s", plain(l.render(60, 4)))
	}
}
