package config

import (
	"strings"

	"github.com/coplayhq/coplay/game"
)

// didYouMean is config's wording of coplay's one "did you mean", game.Closest: " (did
// you mean X?)" when s looks like a mistyped X of known, else " (known: A, B, …)" when
// list, else "".
func didYouMean(s string, known []string, list bool) string {
	if near := game.Closest(s, known, 1); len(near) > 0 && near[0] != s {
		return " (did you mean " + near[0] + "?)"
	}
	if list {
		return " (known: " + strings.Join(known, ", ") + ")"
	}
	return ""
}
