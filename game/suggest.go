package game

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// Closest returns up to max candidates that look like a mistyped s: the same word in
// another case, a few letters off (a third of its letters, at least one: "sped" is
// "speed", "tcsh" is neither bash nor fish), one containing the other ("ship" for
// "shipSymbol"), or one sharing most of its start (a word cut short or with another
// ending: "complete" for "completion"). Closest first, then in the candidates' order;
// nil when nothing is close enough to be worth saying. It is coplay's one "did you
// mean": for the values games' schemas leave open, tool names, the command line and
// the config file.
func Closest(s string, candidates []string, max int) []string {
	type scored struct {
		name  string
		score int
	}
	ls := strings.ToLower(s)
	var found []scored
	for _, c := range candidates {
		lc := strings.ToLower(c)
		switch {
		case lc == ls:
			found = append(found, scored{c, 0})
		case len(ls) >= 3 && (strings.Contains(lc, ls) || strings.Contains(ls, lc)):
			found = append(found, scored{c, 1 + abs(len(lc)-len(ls))/2})
		default:
			limit := max2(1, len(ls)/3)
			d := 1 // a word cut short or with another ending (lc != ls, so at least one edit)
			if n := commonPrefix(ls, lc); n < 5 || 3*n < 2*min(len(ls), len(lc)) {
				// The distance is at least the difference in length, so a string far
				// longer than every name (a model's 1 MB argument, a pasted line) is
				// never aligned: the alignment costs the product of the lengths.
				if abs(utf8.RuneCountInString(ls)-utf8.RuneCountInString(lc)) > limit {
					continue
				}
				d = EditDistance(ls, lc)
			}
			if d <= limit {
				found = append(found, scored{c, 1 + d})
			}
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].score < found[j].score })
	if len(found) > max {
		found = found[:max]
	}
	out := make([]string, len(found))
	for i, f := range found {
		out[i] = f.name
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// commonPrefix is the length in bytes of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// EditDistance is the optimal string alignment distance between a and b, by runes:
// an insertion, a deletion, a substitution or a swap of neighbours each cost one, so
// "apporve" is one edit from "approve". It is coplay's one measure of "did you mean".
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rows of the alignment table, not the whole table: the swap looks two rows
	// back, and memory stays the length of b, whatever the length of a.
	prev2, prev, cur := make([]int, len(rb)+1), make([]int, len(rb)+1), make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func max2(a, b int) int {
	if a > b {
		return a
	}
	return b
}
