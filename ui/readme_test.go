package ui

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The README opens with a screen, and its map must be drawn with the symbols the screen
// uses (issue 41: it showed ◆ and ·, which the map never draws), so a newcomer reads the
// real thing; its title line names the legend's key, as the real one does.
func TestReadmeSampleUsesTheMapsSymbols(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Skip("README.md not found:", err)
	}
	text := string(data)
	start := strings.Index(text, "```\n")
	end := strings.Index(text[start+4:], "```\n") + start + 4
	sample := strings.Split(text[start+4:end], "\n")
	allowed := map[rune]bool{'@': true, '.': true}
	for _, g := range mapGlyphs {
		allowed[g.glyph] = true
	}
	label := regexp.MustCompile(`[A-Z][0-9]+`)
	inMap := false
	rows := 0
	for _, line := range sample {
		left, _, _ := strings.Cut(strings.TrimPrefix(line, "│"), "│")
		switch {
		case strings.HasPrefix(left, "System "):
			if !strings.Contains(left, "m: legend") {
				t.Errorf("the sample's map title does not name the legend key: %q", left)
			}
			inMap = true
			continue
		case strings.HasPrefix(left, "@ "), strings.HasPrefix(line, "╰"):
			inMap = false
		}
		if !inMap {
			continue
		}
		rows++
		for _, r := range label.ReplaceAllString(left, "") {
			if r != ' ' && !allowed[r] {
				t.Errorf("the sample's map draws %q, which the screen never does: %q", r, left)
			}
		}
	}
	if rows == 0 {
		t.Error("the README's first sample has no map")
	}
}
