package ui

import (
	"fmt"
	"image/color"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
)

func newLog(n int) *logView {
	st := newStyles(true)
	l := &logView{st: &st}
	for i := range n {
		l.add(kindInfo, fmt.Sprintf("entry %d", i))
	}
	return l
}

func plain(lines []string) string { return stripANSI(strings.Join(lines, "\n")) }

func TestLogFollowsAndKeepsPlaceWhenScrolled(t *testing.T) {
	l := newLog(50)
	if got := plain(l.render(20, 3)); !strings.HasSuffix(got, "entry 49") {
		t.Fatalf("following log ends with %q", got)
	}
	l.scroll(5)
	before := plain(l.render(20, 3))
	if !strings.HasSuffix(before, "entry 44") {
		t.Fatalf("scrolled up 5, log shows %q", before)
	}
	l.add(kindInfo, "new one")
	l.delta("streamed text that wraps over more than one line at this width")
	l.delta(" and grows")
	if got := plain(l.render(20, 3)); got != before {
		t.Errorf("scrolled-up view moved when output arrived:\n%s\nwas\n%s", got, before)
	}
	l.offset = 0
	if got := plain(l.render(20, 3)); !strings.Contains(got, "grows▍") {
		t.Errorf("following view does not end with the stream: %q", got)
	}
}

func TestLogScrollStopsAtTop(t *testing.T) {
	l := newLog(5)
	l.scroll(1000)
	got := plain(l.render(20, 3))
	if !strings.HasPrefix(got, "· entry 0") || l.offset != 2 {
		t.Errorf("scrolled past the top: offset %d, shows %q", l.offset, got)
	}
}

func TestStreamingAppendsToOneEntry(t *testing.T) {
	l := newLog(0)
	l.delta("Hello, ")
	l.delta("world")
	l.finishText("Hello, world.")
	l.delta("Next")
	if len(l.entries) != 2 {
		t.Fatalf("%d entries, want 2", len(l.entries))
	}
	got := plain(l.render(40, 5))
	if !strings.Contains(got, "◆ Hello, world.\n") || strings.Count(got, "▍") != 1 {
		t.Errorf("log = %q", got)
	}
}

func TestMouseWheelAndKeysScroll(t *testing.T) {
	m := newTestModel(newFake())
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	for i := range 200 {
		m.Update(eventMsg(agent.Event{Type: agent.EventError, Text: fmt.Sprint("problem ", i)}))
	}
	m.render()
	// The wheel scrolls the pane under the mouse: the log is on the right.
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelUp, X: 120, Y: 30})
	if m.cur().log.offset != 3 {
		t.Fatalf("wheel up: offset %d, want 3", m.cur().log.offset)
	}
	if !strings.Contains(stripANSI(m.render()), "Log · scrolled up 3, end to follow") {
		t.Error("scrolled log does not say how to follow")
	}
	m.Update(keyMsg("3")) // focus the log: page keys scroll the focused pane
	m.Update(keyMsg("pgup"))
	if m.cur().log.offset <= 3 {
		t.Errorf("pgup: offset %d", m.cur().log.offset)
	}
	m.Update(keyMsg("end"))
	if m.cur().log.offset != 0 {
		t.Errorf("end: offset %d, want 0", m.cur().log.offset)
	}
	// With no call pending, up and down scroll the log too.
	m.Update(keyMsg("k"))
	if m.cur().log.offset != 1 {
		t.Errorf("k without pending calls: offset %d, want 1", m.cur().log.offset)
	}
}

func TestLightBackground(t *testing.T) {
	m := newTestModel(newFake())
	m.Update(tea.BackgroundColorMsg{Color: color.White})
	if m.st.dark {
		t.Error("white background kept dark styles")
	}
	m.Update(tea.BackgroundColorMsg{Color: color.Black})
	if !m.st.dark {
		t.Error("black background kept light styles")
	}
}

func TestCountdownAndNumbers(t *testing.T) {
	for in, want := range map[string]string{"72s": "1m12s", "45s": "45s", "3725s": "1h02m", "-5s": "0s"} {
		var d = mustDuration(t, in)
		if got := countdown(d); got != want {
			t.Errorf("countdown(%s) = %s, want %s", in, got, want)
		}
	}
	for in, want := range map[float64]string{175000: "175,000", -1234567: "-1,234,567", 12: "12", 0.5: "0.50"} {
		if got := formatNumber(in); got != want {
			t.Errorf("formatNumber(%v) = %s, want %s", in, got, want)
		}
	}
	if got := sparkline([]float64{1, 2, 3, 4, 5, 6, 7, 8}, 8); got != "▁▂▃▄▅▆▇█" {
		t.Errorf("sparkline = %s", got)
	}
}

// A line that comes between a streamed message and its end (a server's notice) does not
// split the message: it shows once, whole, without the streaming cursor (issue 41: the
// narration showed twice, the first copy ending in ▍).
func TestStreamedMessageShowsOnceAroundANotice(t *testing.T) {
	m := newTestModel(newFake())
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	for _, ev := range []agent.Event{
		{Type: agent.EventStep, Step: 10},
		{Type: agent.EventTextDelta, Text: "That is the first loop "},
		{Type: agent.EventTextDelta, Text: "of the plan done."},
		{Type: agent.EventError, Text: "the server counted fewer prompt tokens than were sent"},
		{Type: agent.EventText, Text: "That is the first loop of the plan done."},
		{Type: agent.EventStep, Step: 11},
		{Type: agent.EventTextDelta, Text: "cut off mid"},
		{Type: agent.EventError, Text: "the model failed"},
		{Type: agent.EventStep, Step: 12},
	} {
		m.Update(eventMsg(ev))
	}
	got := plain(m.cur().log.render(100, 20))
	if n := strings.Count(got, "That is the first loop"); n != 1 {
		t.Errorf("the message shows %d times:\n%s", n, got)
	}
	if strings.Contains(got, "▍") {
		t.Errorf("a streaming cursor is left behind:\n%s", got)
	}
}
