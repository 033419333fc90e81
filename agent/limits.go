package agent

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/coplayhq/coplay/notes"
)

// Limits on what a session may hold and send. A session must never be bricked by its
// own contents: a note, an argument or a result too large for the model would otherwise
// be sent with every later request. Over a limit the notebook refuses the edit with an
// error stating the limit (the model reads it as the tool's result); in the prompt,
// anything over its limit is cut with a line saying how much was cut.
const (
	// MaxNoteSection is the most bytes one section of the notes may hold.
	MaxNoteSection = notes.MaxSection
	// MaxNotes is the most bytes the whole notes may hold.
	MaxNotes = notes.MaxNotes
	// DefaultPromptBudget is the most characters a prompt may have when
	// Config.PromptBudget is zero: sized for a model with a 32k-token context (about
	// 3.5 characters a token, less room for the tool catalogue and the answer).
	DefaultPromptBudget = 100_000
	// minPromptBudget is the least budget honoured: below it the system prompt and the
	// observation alone would not fit.
	minPromptBudget = 8_000
	// maxArgsChars is the most characters of one call's arguments repeated in the
	// prompt's history; longer string values are cut (the call itself ran with them).
	maxArgsChars = 2_000
	// maxArgString is the most characters of one string value in repeated arguments.
	maxArgString = 400
)

// cutText cuts s to at most n characters, ending with a line that says how much was cut.
func cutText(s string, n int, what string) string {
	total := utf8.RuneCountInString(s)
	if total <= n {
		return s
	}
	rs := []rune(s)
	return string(rs[:n]) + fmt.Sprintf("\n[… %d more characters of %s cut: %d in all]", total-n, what, total)
}

// clipArgs returns arguments fit to repeat in the prompt's history: valid JSON of at
// most maxArgsChars characters. Long string values are cut, marked; if that is not
// enough, the arguments are replaced by a note of their size.
func clipArgs(args json.RawMessage) json.RawMessage {
	if utf8.RuneCount(args) <= maxArgsChars {
		return args
	}
	var v any
	if json.Unmarshal(args, &v) == nil {
		v = clipStrings(v)
		if out, err := json.Marshal(v); err == nil && utf8.RuneCount(out) <= maxArgsChars {
			return out
		}
	}
	out, _ := json.Marshal(map[string]string{
		"_cut": fmt.Sprintf("arguments of %d characters, too long to repeat here", utf8.RuneCount(args)),
	})
	return out
}

func clipStrings(v any) any {
	switch x := v.(type) {
	case string:
		if utf8.RuneCountInString(x) > maxArgString {
			return cutText(x, maxArgString, "this value")
		}
	case map[string]any:
		for k, e := range x {
			x[k] = clipStrings(e)
		}
	case []any:
		for i, e := range x {
			x[i] = clipStrings(e)
		}
	}
	return v
}

// fitBudget shrinks a prompt to at most budget characters: it drops the oldest verbatim
// steps first (msgs[first:last] are the history, oldest first, in units that start with
// an assistant or user message), then cuts the longest messages. It returns the
// messages and how many history messages it dropped.
func fitBudget(msgs []Message, budget, first, last int) ([]Message, int) {
	return fitMeasured(msgs, budget, first, last, promptChars)
}

// fitMeasured is fitBudget with the prompt's size measured by measure.
func fitMeasured(msgs []Message, budget, first, last int, measure func([]Message) int) ([]Message, int) {
	dropped := 0
	for measure(msgs) > budget && first < last {
		// Drop one unit: a message and the tool answers that follow it.
		end := first + 1
		for end < last && msgs[end].Role == RoleTool {
			end++
		}
		n := end - first
		msgs = append(msgs[:first:first], msgs[end:]...)
		last -= n
		dropped += n
	}
	for over := measure(msgs) - budget; over > 0; over = measure(msgs) - budget {
		// Cut the longest message by what is over (and a little for the note).
		i := 0
		for j := range msgs {
			if utf8.RuneCountInString(msgs[j].Content) > utf8.RuneCountInString(msgs[i].Content) {
				i = j
			}
		}
		n := utf8.RuneCountInString(msgs[i].Content)
		keep := max(n-over-80, 0)
		if keep >= n || n <= 100 {
			break // nothing left worth cutting
		}
		msgs[i].Content = cutText(msgs[i].Content, keep, "this message")
	}
	return msgs, dropped
}
