package ui

import (
	"bytes"
	"encoding/json"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Wrapping for the screen's own text. Lines break at spaces only: a symbol such as
// X1-YS98-A1 or a JSON value is never split at a hyphen or mid-word unless it is
// longer than the whole line, and then it is hard-broken. Continuation lines hang
// under the first line's text and keep its style, so a wrapped entry reads as one.

// wrapWords wraps plain text to w columns at spaces; a word longer than w is
// hard-broken. Newlines in s start new lines. It never returns an empty slice.
func wrapWords(s string, w int) []string {
	w = max(w, 1)
	var out []string
	for _, para := range strings.Split(s, "\n") {
		out = append(out, wrapParagraph(para, w)...)
	}
	return out
}

// wrapParagraph wraps one line of text (no newlines). Runs of spaces between words
// are kept inside a line and dropped at a break.
func wrapParagraph(s string, w int) []string {
	if ansi.StringWidth(s) <= w {
		return []string{s}
	}
	var lines []string
	var cur strings.Builder
	curW := 0
	flush := func() {
		lines = append(lines, strings.TrimRight(cur.String(), " "))
		cur.Reset()
		curW = 0
	}
	for _, word := range splitKeepSpaces(s) {
		ww := ansi.StringWidth(word)
		if strings.TrimSpace(word) == "" { // spaces
			if curW == 0 && len(lines) > 0 {
				continue // no spaces at the start of a continuation
			}
			if curW+ww > w {
				flush()
				continue
			}
			cur.WriteString(word)
			curW += ww
			continue
		}
		if curW+ww <= w {
			cur.WriteString(word)
			curW += ww
			continue
		}
		if curW > 0 && ww <= w {
			flush()
			cur.WriteString(word)
			curW = ww
			continue
		}
		// Longer than a line: fill the rest of this one, then whole lines.
		if curW > 0 && w-curW < 4 {
			flush()
		}
		rest := word
		for ansi.StringWidth(rest) > w-curW {
			cur.WriteString(ansi.Truncate(rest, w-curW, ""))
			rest = ansi.TruncateLeft(rest, w-curW, "")
			flush()
		}
		cur.WriteString(rest)
		curW = ansi.StringWidth(rest)
	}
	if curW > 0 || cur.Len() > 0 || len(lines) == 0 {
		flush()
	}
	return lines
}

// splitKeepSpaces splits s into alternating words and runs of spaces.
func splitKeepSpaces(s string) []string {
	var out []string
	start := 0
	for i := 1; i <= len(s); i++ {
		if i == len(s) || (s[i] == ' ') != (s[start] == ' ') {
			out = append(out, s[start:i])
			start = i
		}
	}
	return out
}

// wrapStyled wraps plain text to w columns with a hanging indent: the first line
// starts with first, every other line with spaces as wide as first, and each line is
// drawn whole in style. A paragraph's own leading spaces (indented JSON) are kept on
// its continuation lines too.
func wrapStyled(text string, w int, style lipgloss.Style, first string) []string {
	pw := ansi.StringWidth(first)
	cont := strings.Repeat(" ", pw)
	var out []string
	for i, para := range strings.Split(text, "\n") {
		lead := para[:len(para)-len(strings.TrimLeft(para, " "))]
		body := para[len(lead):]
		for j, l := range wrapWords(body, max(w-pw-len(lead), 1)) {
			prefix := cont
			if i == 0 && j == 0 {
				prefix = first
			}
			out = append(out, style.Render(prefix+lead+l))
		}
	}
	return out
}

// spacedJSON writes raw JSON on one line with a space after each comma and colon, so
// it wraps between values rather than inside them; invalid JSON is returned as it is.
func spacedJSON(raw json.RawMessage) string { return jsonLine(raw, false) }

// readableJSON is spacedJSON with the line breaks inside strings ("\n") written as line
// breaks, for reading rather than copying: the log shows a note's lines as lines.
func readableJSON(raw json.RawMessage) string { return jsonLine(raw, true) }

// jsonLine writes raw JSON spaced out after commas and colons; with breaks, an escaped
// line break inside a string is written as a line break.
func jsonLine(raw json.RawMessage, breaks bool) string {
	c := compactJSON(raw)
	if !json.Valid([]byte(c)) {
		return c
	}
	var b bytes.Buffer
	inStr, esc := false, false
	for i := 0; i < len(c); i++ {
		ch := c[i]
		switch {
		case esc:
			esc = false
			if breaks && ch == 'n' {
				b.Truncate(b.Len() - 1) // the backslash
				ch = '\n'
			}
		case inStr && ch == '\\':
			esc = true
		case ch == '"':
			inStr = !inStr
		}
		b.WriteByte(ch)
		if !inStr && (ch == ',' || ch == ':') {
			b.WriteByte(' ')
		}
	}
	return b.String()
}
