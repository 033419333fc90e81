package ui

import (
	"fmt"
	"strings"

	"github.com/coplayhq/coplay/agent"
)

// The seat bar is one line above the advice line in a league: every seat's name, state,
// model, calls waiting and spend, the focused seat in brackets and highlighted, a seat
// that waits for the person in the warning colour. When the line is too short the least
// useful parts go first, in every seat alike: the spend, then the model, then the
// state's word (its glyph stays), then the spaces; last the names are cut. At 80
// columns three seats still show their name, state and calls waiting.

// seatGlyph is a state in one character, for a narrow bar.
var seatGlyph = map[agent.State]string{
	agent.Running:  "▶",
	agent.Deciding: "●",
	agent.Sleeping: "◷",
	agent.Idle:     "○",
	agent.Paused:   "‖",
	agent.Stopped:  "■",
	// the person holds the wheel
	agent.PersonPlays: "♟",
}

// seatWord is a state in words for the bar: "waits for you" rather than the status
// bar's "waiting for decision", since the bar is read across seats.
var seatWord = map[agent.State]string{
	agent.Running:  "running",
	agent.Deciding: "waits for you",
	agent.Sleeping: "waiting",
	agent.Idle:     "idle",
	agent.Paused:   "paused",
	agent.Stopped:  "stopped",
	// who plays: the person, at the wheel or on a seat of their own
	agent.PersonPlays: "you play",
}

// barLevels is how many ways the bar can be drawn, from the fullest to the tightest.
const barLevels = 6

// bar draws the seat bar in w columns, with the seat keys on the right when there is
// room for them. The levels are measured unstyled: a frame styles one.
func (s *seats) bar(m *Model, w int) string {
	keys := "  " + firstKey(m.keys.NextSeat) + " next seat · " + firstKey(m.keys.NextWaiting) + " next waiting"
	level, room := barLevels-1, false
	for l := range barLevels {
		n := s.barWidth(m, l)
		if room = n+widthOf(keys) <= w; room || n <= w {
			level = l
			break
		}
	}
	line := s.barAt(m, level)
	if room {
		line += m.st.muted.Render(keys)
	}
	return padLine(line, w)
}

// barWidth is how wide barAt draws level: each seat's text with its brackets or
// spaces, and the separators.
func (s *seats) barWidth(m *Model, level int) int {
	n := 0
	for i := range s.list {
		text, _ := s.segment(m, i, level)
		n += widthOf(text) + 2
	}
	if level < 4 {
		n += len(s.list) - 1
	}
	return n
}

// barAt draws every seat at one level of detail (0 the fullest).
func (s *seats) barAt(m *Model, level int) string {
	var parts []string
	for i := range s.list {
		text, hot := s.segment(m, i, level)
		switch {
		case i == s.focus:
			parts = append(parts, m.st.tabOn.Render("["+text+"]"))
		case hot:
			parts = append(parts, m.st.warn.Render(" "+text+" "))
		default:
			parts = append(parts, m.st.tabOff.Render(" "+text+" "))
		}
	}
	sep := " "
	if level >= 4 {
		sep = ""
	}
	return strings.Join(parts, sep)
}

// segment is seat i at a level of detail, and whether it waits for the person.
func (s *seats) segment(m *Model, i, level int) (text string, hot bool) {
	st := s.list[i]
	state := st.run.state
	waiting := st.waiting()
	hot = waiting > 0 || state == agent.Deciding
	glyph, word := seatGlyph[state], seatWord[state]
	if glyph == "" {
		glyph, word = "·", "starting"
	}
	name := st.Name
	if level >= 5 {
		name = cutName(name, 3)
	}
	if level >= 3 {
		text = name + " " + glyph
		if level >= 4 {
			text = name + glyph
		}
		if waiting > 0 {
			text += fmt.Sprint(waiting)
		}
		return text, hot
	}
	parts := []string{name + " " + glyph + " " + word}
	if level < 2 && st.Model != "" {
		parts = append(parts, st.Model)
	}
	if waiting > 0 {
		parts = append(parts, fmt.Sprintf("%d waiting", waiting))
	}
	if sp := st.spend; level < 1 && (sp.tokens > 0 || sp.cost > 0) {
		cost := fmt.Sprintf("$%.4f", sp.cost)
		if sp.unknown {
			cost = "cost ?"
		}
		parts = append(parts, ShortCount(int64(sp.tokens))+" tok "+cost)
	}
	return strings.Join(parts, " · "), hot
}

// cutName keeps the first n characters of a seat's name.
func cutName(name string, n int) string {
	if r := []rune(name); len(r) > n {
		return string(r[:n])
	}
	return name
}
