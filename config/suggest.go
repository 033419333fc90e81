package config

import (
	"slices"
	"strings"

	"github.com/coplayhq/coplay/game"
)

// didYouMean is config's one "did you mean": " (did you mean X?)" when s looks like a
// mistyped X of known, else " (known: A, B, …)" when list, else "".
//
// What is close enough is game.Closest's call, so that config and the games agree: the
// same word in another case, one containing the other, or at most max(2, len/3) edits
// apart. A key has one more kind of typo, a word with another ending ("complete" for
// completion): the two share a start of at least 4 bytes and two thirds of the shorter,
// and count as one edit apart. Of the close ones, the fewest edits away wins, then the
// one sharing the longer start: hidden_tools is hide_tools, not tools, and tool_budgte
// is tool_budget.
func didYouMean(s string, known []string, list bool) string {
	ls := strings.ToLower(s)
	closest := game.Closest(s, known, len(known))
	near, bestD, bestN := "", 0, 0
	for _, k := range known {
		lk := strings.ToLower(k)
		d, n := game.EditDistance(ls, lk), commonPrefix(ls, lk)
		if n >= 4 && 3*n >= 2*min(len(ls), len(lk)) {
			d = min(d, 1)
		} else if !slices.Contains(closest, k) {
			continue
		}
		if k != s && (near == "" || d < bestD || d == bestD && n > bestN) {
			near, bestD, bestN = k, d, n
		}
	}
	switch {
	case near != "":
		return " (did you mean " + near + "?)"
	case list:
		return " (known: " + strings.Join(known, ", ") + ")"
	}
	return ""
}

// commonPrefix is the length in bytes of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
