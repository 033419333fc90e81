package game

import (
	"sort"
	"strings"
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
			d := EditDistance(ls, lc)
			if n := commonPrefix(ls, lc); n >= 5 && 3*n >= 2*min(len(ls), len(lc)) {
				d = min(d, 1)
			}
			if d <= max2(1, len(ls)/3) {
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
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
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
