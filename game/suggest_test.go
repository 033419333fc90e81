package game

import (
	"slices"
	"testing"
)

// Closest is coplay's one "did you mean": a typo, a transposition, a word cut short or
// with another ending is suggested; a word only as near as any other short word is not.
func TestClosest(t *testing.T) {
	for _, c := range []struct {
		s          string
		candidates []string
		want       []string
	}{
		{"sped", []string{"seat", "seed", "spec", "speed", "game"}, []string{"seed", "spec", "speed"}},
		{"apporve", []string{"approve", "approval"}, []string{"approve"}},
		{"tcsh", []string{"bash", "zsh", "fish"}, nil},
		{"complete", []string{"prompt", "completion", "cached_prompt"}, []string{"completion"}},
		{"complet", []string{"completion", "config"}, []string{"completion"}},
		{"tool_budgte", []string{"tools", "tool_budget"}, []string{"tool_budget"}},
		{"op_07", []string{"op_000", "op_001", "op_007"}, []string{"op_007"}},
		{"Nort", []string{"north", "south"}, []string{"north"}},
		{"CRUISE", []string{"cruise"}, []string{"cruise"}},
		{"ses", []string{"sessions", "serve-universe", "eval"}, []string{"sessions"}},
		{"colour", []string{"config", "catalog"}, nil},
	} {
		if got := Closest(c.s, c.candidates, 3); !slices.Equal(got, c.want) {
			t.Errorf("Closest(%q, %q) = %q, want %q", c.s, c.candidates, got, c.want)
		}
	}
}
