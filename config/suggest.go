package config

import "strings"

// suggest returns the candidate closest to s when it is close enough to be a typo
// (edit distance at most a third of its length and at most 3, or sharing most of the
// shorter one's start), else "".
func suggest(s string, candidates []string) string {
	best, bestD := "", 1<<30
	ls := strings.ToLower(s)
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := distance(ls, lc)
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

// distance is the Damerau-Levenshtein (optimal string alignment) distance, so a
// swapped pair of letters counts as one edit.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range rb {
		d[0][j+1] = j + 1
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

// commonPrefix is the length in bytes of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
