package game

import (
	"sort"
	"strings"
)

// Closest returns up to max candidates that look like a mistyped s: the same word in
// another case, a few letters off, or one containing the other ("ship" for
// "shipSymbol"). Closest first; nil when nothing is close enough to be worth saying.
// Games use it for "did you mean" on values their schemas leave open.
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
			found = append(found, scored{c, 1 + abs(len(lc)-len(ls))/4})
		default:
			d := levenshtein(ls, lc)
			limit := max2(2, len(ls)/3)
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

// levenshtein is the edit distance between a and b, by bytes.
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
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
