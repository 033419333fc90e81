package game

import (
	"slices"
	"strings"
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

// A string far longer than every candidate (a model's 1 MB argument, a pasted line) is
// never aligned with them: the alignment would cost the product of the lengths, in time
// and, before, in memory. Counted in allocations, which do not depend on the machine.
func TestClosestIgnoresAHugeString(t *testing.T) {
	huge := strings.Repeat("xq", 1<<19) // 1 MB, near no name
	names := []string{"approve", "veto", "edit", "advise", "pause", "resume", "stop"}
	var got []string
	allocs := testing.AllocsPerRun(1, func() { got = Closest(huge, names, 3) })
	if got != nil {
		t.Errorf("Closest(1 MB, %q) = %q, want nothing", names, got)
	}
	if allocs > 10 {
		t.Errorf("Closest(1 MB, …) made %.0f allocations; a string that long is never aligned", allocs)
	}
}

// EditDistance keeps three rows of the table; it agrees with the whole table.
func TestEditDistanceMatchesTheWholeTable(t *testing.T) {
	words := []string{"", "a", "ab", "ba", "approve", "apporve", "approval", "speed", "sped", "ça va", "çava", "shipSymbol", "symbol", "tcsh", "fish"}
	for _, a := range words {
		for _, b := range words {
			if got, want := EditDistance(a, b), wholeTable(a, b); got != want {
				t.Errorf("EditDistance(%q, %q) = %d, the whole table says %d", a, b, got, want)
			}
		}
	}
}

// wholeTable is the optimal string alignment distance by the textbook's whole table.
func wholeTable(a, b string) int {
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
