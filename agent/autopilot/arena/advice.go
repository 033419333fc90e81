package arena

import (
	"regexp"
	"strings"

	"github.com/coplayhq/coplay/agent/brain"
)

// The arena autopilot understands one thing in advice: whether the person wants it to
// fight ("fight in the battles", "join battle-456") or not ("don't fight", "stay out of
// battles", "no more battles"). Everything else it keeps word for word in the notes.

var (
	adviceWords  = regexp.MustCompile(`[a-z]+(?:'[a-z]+)?|[,;.!?]`)
	fightWords   = set("fight", "fighting", "battle", "battles", "war", "combat")
	negationWord = set("not", "no", "never", "don't", "dont", "stop", "avoid", "skip", "quit", "without", "out", "enough", "cease")
	clauseBreak  = set(",", ";", ".", "!", "?", "but", "and", "then", "so", "instead")
)

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// fightPreference reads advice for a wish about fighting: fight=true to fight, false to
// stay out; ok=false when the advice says nothing about it, or both ways.
func fightPreference(advice string) (fight, ok bool) {
	text := strings.NewReplacer("’", "'", "‘", "'").Replace(strings.ToLower(advice))
	toks := adviceWords.FindAllString(text, -1)
	var yes, no int
	for i, w := range toks {
		if !fightWords[w] {
			continue
		}
		neg := false
		for j := i - 1; j >= 0 && j >= i-3 && !clauseBreak[toks[j]]; j-- {
			if negationWord[toks[j]] {
				neg = !neg
			}
		}
		if neg {
			no++
		} else {
			yes++
		}
	}
	switch {
	case yes == no:
		return false, false
	case yes > no:
		return true, true
	}
	return false, true
}

// newAdvice returns the advice given for this step (brain.AdviceOf).
func newAdvice(msgs []brain.Message) []string { return brain.AdviceOf(msgs) }
