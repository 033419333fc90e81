package config

import (
	"strings"

	"github.com/coplayhq/coplay/game"
)

// suggest returns the candidate closest to s when it is close enough to be a typo
// (edit distance at most a third of its length and at most 3, or sharing most of the
// shorter one's start), else "".
func suggest(s string, candidates []string) string {
	best, bestD := "", 1<<30
	ls := strings.ToLower(s)
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := game.EditDistance(ls, lc)
		// A word cut short or with a different ending ("complete" for "completion") is a
		// typo too.
		if n := commonPrefix(ls, lc); n >= 4 && 3*n >= 2*min(len(ls), len(lc)) {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = c, d
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
