package game

import (
	"strings"
	"testing"
)

func TestClipCutsOnACharacterBoundary(t *testing.T) {
	if got := Clip(strings.Repeat("é", 10), 5); got != "éé…" {
		t.Errorf("Clip cut inside a character: %q", got)
	}
	if got := Clip("short", 5); got != "short" {
		t.Errorf("Clip changed what fits: %q", got)
	}
	if got := CutBytes("aé", 2); got != "a" {
		t.Errorf("CutBytes cut inside a character: %q", got)
	}
}
