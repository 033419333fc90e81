package ui

import (
	"strings"
)

// kind is what a log entry records; it picks the glyph and colour.
type kind int

const (
	kindInfo kind = iota
	kindStep
	kindText
	kindCall
	kindDecision
	kindVeto
	kindResult
	kindError
	kindAdvice
	kindWait
	kindTrigger  // something in the game woke the agent
	kindThinking // the model's reasoning: dimmed, folded
)

// entry is one item of the log. lines caches its wrapped, styled form for width.
type entry struct {
	kind      kind
	text      string
	streaming bool // the model's text still arriving
	notebook  bool // bookkeeping of the notebook (note tools and their results), hideable

	width int
	gen   int
	lines []string
}

// logView is the scrollable log. Entries are only ever appended (the streaming one
// grows at the end), so the visible window is found by walking back from the end:
// a frame costs the lines on screen plus the scroll offset, never the whole log.
type logView struct {
	entries []*entry
	// offset is how many lines the view is scrolled up from the end; 0 follows new
	// output.
	offset int
	width  int // the width the log was last drawn at, for keeping offset steady
	gen    int // bumped when styles change, to invalidate every cached wrap
	st     *styles
	// hideNotebook leaves the notebook's bookkeeping out of the view.
	hideNotebook bool
	// muted drops what is added: the event is already in the log (a resumed session's
	// journal).
	muted bool
	// The progress line of the call running, replaced while it is the last line.
	progEntry *entry
	progCall  string
}

// add appends an entry.
func (l *logView) add(k kind, text string) { l.addEntry(&entry{kind: k, text: text}) }

// addNotebook appends an entry that is the notebook's bookkeeping.
func (l *logView) addNotebook(k kind, text string) {
	l.addEntry(&entry{kind: k, text: text, notebook: true})
}

func (l *logView) addEntry(e *entry) {
	if l.muted {
		return
	}
	l.entries = append(l.entries, e)
	l.keepPlace(len(l.entries) - 1)
}

// addAside adds an entry before the model's message if it is still streaming, so that
// the message stays last and finishes in place (the model's reasoning arrives after
// its streamed text).
func (l *logView) addAside(k kind, text string) {
	n := len(l.entries)
	if l.muted || n == 0 || !l.entries[n-1].streaming {
		l.add(k, text)
		return
	}
	streaming := l.entries[n-1]
	l.entries = append(l.entries[:n-1], &entry{kind: k, text: text}, streaming)
	l.keepPlace(n - 1)
}

// shown says whether e is in the view.
func (l *logView) shown(e *entry) bool { return !(l.hideNotebook && e.notebook) }

// toggleNotebook hides or shows the notebook's bookkeeping; the view follows the end
// again, since the lines above it changed.
func (l *logView) toggleNotebook() {
	l.hideNotebook = !l.hideNotebook
	l.offset = 0
}

// keepPlace keeps a scrolled-up view still when entry i grows or arrives.
func (l *logView) keepPlace(i int) {
	if l.offset == 0 || l.width <= 0 || !l.shown(l.entries[i]) {
		return
	}
	e := l.entries[i]
	before := 0
	if e.width == l.width && e.gen == l.gen {
		before = len(e.lines)
	}
	l.offset += len(l.wrapped(e, l.width)) - before
}

// delta appends streamed text to the model's message in progress.
func (l *logView) delta(text string) {
	if l.muted {
		return
	}
	if n := len(l.entries); n > 0 && l.entries[n-1].streaming {
		e := l.entries[n-1]
		old := len(e.lines)
		valid := e.width == l.width && e.gen == l.gen
		e.text += text
		e.width = -1
		if l.offset > 0 && l.width > 0 && valid {
			l.offset += len(l.wrapped(e, l.width)) - old
		}
		return
	}
	l.entries = append(l.entries, &entry{kind: kindText, text: text, streaming: true})
	l.keepPlace(len(l.entries) - 1)
}

// finishText ends the streaming message with the whole text, or adds it when nothing
// streamed.
func (l *logView) finishText(text string) {
	if l.muted {
		return
	}
	if n := len(l.entries); n > 0 && l.entries[n-1].streaming {
		e := l.entries[n-1]
		e.streaming = false
		if text != "" {
			e.text = text
		}
		e.width = -1 // drop the streaming cursor
		return
	}
	if strings.TrimSpace(text) != "" {
		l.add(kindText, text)
	}
}

// scroll moves the view up (positive) or down (negative) by n lines.
func (l *logView) scroll(n int) {
	l.offset = max(l.offset+n, 0)
}

// glyph is the mark at the start of an entry's first line.
func (k kind) glyph() string {
	switch k {
	case kindStep:
		return ""
	case kindText:
		return "◆ "
	case kindCall:
		return "» "
	case kindDecision:
		return "✓ "
	case kindVeto:
		return "✗ "
	case kindResult:
		return "« "
	case kindError:
		return "! "
	case kindAdvice:
		return "☞ "
	case kindWait:
		return "~ "
	case kindTrigger:
		return "↯ "
	case kindThinking:
		return "∴ "
	}
	return "· "
}

// wrapped returns e's lines at width w, from the cache when it is current.
func (l *logView) wrapped(e *entry, w int) []string {
	if e.width == w && e.gen == l.gen && e.lines != nil {
		return e.lines
	}
	st := l.st
	style := st.text
	switch e.kind {
	case kindInfo, kindWait, kindThinking:
		style = st.muted
	case kindStep:
		style = st.muted
	case kindCall:
		style = st.accent
	case kindDecision, kindResult:
		style = st.good
	case kindVeto, kindError:
		style = st.bad
	case kindAdvice, kindTrigger:
		style = st.warn
	}
	var lines []string
	if e.kind == kindStep {
		rule := "── " + e.text + " "
		lines = []string{style.Render(padLine(rule+strings.Repeat("─", max(w-len([]rune(rule)), 0)), w))}
	} else {
		text := strings.TrimRight(e.text, "\n")
		if e.streaming {
			text += "▍"
		}
		lines = wrapStyled(text, w, style, e.kind.glyph())
	}
	e.lines, e.width, e.gen = lines, w, l.gen
	return lines
}

// render returns the h visible lines at width w.
func (l *logView) render(w, h int) []string {
	l.width = w
	if h <= 0 {
		return nil
	}
	need := l.offset + h
	// Collect lines from the end, newest entry first, until the window is covered.
	var rev [][]string
	got := 0
	for i := len(l.entries) - 1; i >= 0 && got < need; i-- {
		if !l.shown(l.entries[i]) {
			continue
		}
		ls := l.wrapped(l.entries[i], w)
		rev = append(rev, ls)
		got += len(ls)
	}
	if got < need {
		// Scrolled past the top: pin to the first line.
		l.offset = max(got-h, 0)
	}
	all := make([]string, 0, got)
	for i := len(rev) - 1; i >= 0; i-- {
		all = append(all, rev[i]...)
	}
	end := len(all) - l.offset
	start := max(end-h, 0)
	return all[start:end]
}
