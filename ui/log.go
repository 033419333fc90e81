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
	streaming bool   // the model's text still arriving
	notebook  bool   // bookkeeping of the notebook (note tools and their results), hideable
	full      string // the whole text, when text is folded (a result's first lines); "": text is whole

	width int
	gen   int
	lines []string
}

// whole is the entry's whole text, for the whole view and the clipboard.
func (e *entry) whole() string {
	if e.full != "" {
		return e.full
	}
	return e.text
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
	// bottom is the index of the entry on the last line drawn: the one the whole view
	// opens on.
	bottom int
}

// add appends an entry and returns it (nil when muted), for setting its whole text.
func (l *logView) add(k kind, text string) *entry { return l.addEntry(&entry{kind: k, text: text}) }

// addNotebook appends an entry that is the notebook's bookkeeping.
func (l *logView) addNotebook(k kind, text string) *entry {
	return l.addEntry(&entry{kind: k, text: text, notebook: true})
}

func (l *logView) addEntry(e *entry) *entry {
	if l.muted {
		return nil
	}
	l.entries = append(l.entries, e)
	l.keepPlace(len(l.entries) - 1)
	return e
}

// addAside adds an entry before the model's message if it is still streaming, so that
// the message stays last and finishes in place (the model's reasoning arrives after
// its streamed text).
func (l *logView) addAside(k kind, text, full string) {
	n := len(l.entries)
	if l.muted || n == 0 || !l.entries[n-1].streaming {
		if e := l.add(k, text); e != nil {
			e.full = full
		}
		return
	}
	streaming := l.entries[n-1]
	l.entries = append(l.entries[:n-1], &entry{kind: k, text: text, full: full}, streaming)
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

// streamingEntry is the model's message still arriving, or nil. It is usually the last
// entry, but a line may have come in between (a server notice, an error), which must not
// split the message in two.
func (l *logView) streamingEntry() *entry {
	for i := len(l.entries) - 1; i >= 0; i-- {
		switch e := l.entries[i]; {
		case e.streaming:
			return e
		case e.kind == kindStep:
			return nil // a message never streams across steps
		}
	}
	return nil
}

// delta appends streamed text to the model's message in progress.
func (l *logView) delta(text string) {
	if l.muted {
		return
	}
	if e := l.streamingEntry(); e != nil {
		old := len(e.lines)
		valid := e.width == l.width && e.gen == l.gen
		e.text += text
		e.width = -1
		if l.offset > 0 && l.width > 0 && valid && e == l.entries[len(l.entries)-1] {
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
	if e := l.streamingEntry(); e != nil {
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

// endStream drops the streaming cursor of a message that never got its whole text (the
// model failed in the middle): a new step begins.
func (l *logView) endStream() {
	if e := l.streamingEntry(); e != nil {
		e.streaming = false
		e.width = -1
	}
}

// scroll moves the view up (positive) or down (negative) by n lines.
func (l *logView) scroll(n int) {
	l.offset = max(l.offset+n, 0)
}

// name is what the whole view calls an entry of kind k.
func (k kind) name() string {
	return map[kind]string{kindText: "the model's words", kindCall: "a call", kindDecision: "a decision", kindVeto: "a veto",
		kindResult: "a result", kindError: "a problem", kindAdvice: "advice", kindWait: "a wait", kindTrigger: "a trigger",
		kindThinking: "the model's reasoning", kindStep: "a step"}[k]
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
	var idx []int // the entry of each block in rev
	got := 0
	for i := len(l.entries) - 1; i >= 0 && got < need; i-- {
		if !l.shown(l.entries[i]) {
			continue
		}
		ls := l.wrapped(l.entries[i], w)
		rev = append(rev, ls)
		idx = append(idx, i)
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
	// The entry on the last line drawn: counted from the end, offset lines up.
	for i, below := 0, l.offset; i < len(rev); i++ {
		if below < len(rev[i]) {
			l.bottom = idx[i]
			break
		}
		below -= len(rev[i])
	}
	start := max(end-h, 0)
	return all[start:end]
}
