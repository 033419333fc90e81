package config

import (
	"strings"

	"github.com/coplayhq/coplay/game"
)

// suggest returns the candidate closest to s when it is close enough to be a typo
// (edit distance at most a third of its length and at most 3, or sharing most of the
// shorter one's start), else "". Of two as close, the one sharing the longer start wins.
func suggest(s string, candidates []string) string {
	best, bestD, bestN := "", 1<<30, 0
	ls := strings.ToLower(s)
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := game.EditDistance(ls, lc)
		// A word cut short or with a different ending ("complete" for "completion") is a
		// typo too.
		n := commonPrefix(ls, lc)
		if n >= 4 && 3*n >= 2*min(len(ls), len(lc)) {
			d = min(d, 1)
		}
		// Between two as close, the one sharing more of the start: tool_budgte is
		// tool_budget, not tools.
		if d < bestD || d == bestD && n > bestN {
			best, bestD, bestN = c, d, n
		}
	}
	limit := min(3, max(1, len(s)/3))
	if bestD == 0 || bestD > limit {
		return ""
	}
	return best
}

// commonPrefix is the length in bytes of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
