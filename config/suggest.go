package config

import "github.com/coplayhq/coplay/game"

// suggest returns the candidate closest to s when it is close enough to be a typo, else
// "": coplay's one "did you mean", game.Closest.
func suggest(s string, candidates []string) string {
	if near := game.Closest(s, candidates, 1); len(near) > 0 && near[0] != s {
		return near[0]
	}
	return ""
}
