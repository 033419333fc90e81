package brain

import (
	"fmt"
	"unicode/utf8"
)

// MaxShrinks is how many times a brain shrinks one request after the model refused it as
// too long: each halves what is sent, so this goes from a full prompt to its bare bones.
const MaxShrinks = 8

// minContent is the shortest message shrink cuts.
const minContent = 400

// Shrink returns a shorter version of a conversation a model refused as too long, for
// every brain: the older half of the history goes (an assistant message with its
// tool answers as one unit, so every tool_use keeps its tool_result), keeping the
// system prompt, the first user message (the notes) and the last one (the
// observation); once no history is left, every message longer than minContent is cut
// to half. ok is false when nothing more can go.
func Shrink(msgs []Message) (out []Message, ok bool) {
	first := 0
	for first < len(msgs) && (msgs[first].Role == RoleSystem ||
		(msgs[first].Role == RoleUser && first <= 2)) {
		first++
	}
	last := len(msgs) - 1
	if first < last {
		var units [][2]int
		for i := first; i < last; {
			j := i + 1
			for j < last && msgs[j].Role == RoleTool {
				j++
			}
			units = append(units, [2]int{i, j})
			i = j
		}
		drop := (len(units) + 1) / 2
		cut := units[drop-1][1]
		out = append(out, msgs[:first]...)
		out = append(out, msgs[cut:]...)
		return out, true
	}
	out = append([]Message(nil), msgs...)
	for i := range out {
		n := utf8.RuneCountInString(out[i].Content)
		if n > minContent {
			keep := n / 2
			out[i].Content = string([]rune(out[i].Content)[:keep]) +
				fmt.Sprintf("\n[… %d characters cut: the model refused the prompt as too long]", n-keep)
			ok = true
		}
	}
	return out, ok
}
