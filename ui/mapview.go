package ui

import (
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/coplayhq/coplay/game"
)

// drawMap plots the points of m by their coordinates in a w×h area: a title line (with
// hint, the key to the legend of its symbols), the plot, and a line of where the ships
// are. Ships are drawn as "@".
func drawMap(st *styles, m *game.Map, hint string, w, h int) []string {
	if w < 10 || h < 4 {
		return nil
	}
	var ships []string
	for _, p := range m.Points {
		for _, mk := range p.Marks {
			ships = append(ships, mk+" @ "+shortLabel(p.Label))
		}
	}
	sort.Strings(ships)
	legend := ""
	if len(ships) > 0 {
		legend = "@ " + strings.Join(ships, ", ")
	}
	plotH := h - 1
	if legend != "" {
		plotH--
	}
	grid := make([][]rune, plotH)
	for i := range grid {
		grid[i] = []rune(strings.Repeat(" ", w))
	}
	minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, p := range m.Points {
		minX, maxX = math.Min(minX, p.X), math.Max(maxX, p.X)
		minY, maxY = math.Min(minY, p.Y), math.Max(maxY, p.Y)
	}
	// Leave room on the right for labels of the easternmost points.
	const labelRoom = 4
	plotW := max(w-labelRoom-1, 2)
	scale := func(v, lo, hi float64, n int) int {
		if hi <= lo {
			return n / 2
		}
		return int(math.Round((v - lo) / (hi - lo) * float64(n-1)))
	}
	type placed struct {
		x, y  int
		label string
	}
	var marks []placed
	// Ships last, so they are drawn over what shares their cell.
	pts := append([]game.Point(nil), m.Points...)
	sort.SliceStable(pts, func(i, j int) bool { return len(pts[i].Marks) < len(pts[j].Marks) })
	for _, p := range pts {
		x := scale(p.X, minX, maxX, plotW)
		y := plotH - 1 - scale(p.Y, minY, maxY, plotH) // north up
		g := kindGlyph(p.Kind)
		if len(p.Marks) > 0 {
			g = '@'
		}
		grid[y][x] = g
		marks = append(marks, placed{x, y, shortLabel(p.Label)})
	}
	// A label goes right of its point, else left of it, and only where the point and
	// its label stand alone between blank cells: "*oI1" or "#A1@B1" cannot be read, so
	// a point crowded by another stays unlabelled.
	blank := func(y, c int) bool { return c < 0 || c >= w || grid[y][c] == ' ' }
	fits := func(y, from, to int) bool { // cells from..to are on the map and blank
		if from < 0 || to >= w {
			return false
		}
		for c := from; c <= to; c++ {
			if grid[y][c] != ' ' {
				return false
			}
		}
		return true
	}
	// Ships' labels first: they matter most.
	for i := len(marks) - 1; i >= 0; i-- {
		mk := marks[i]
		lab := []rune(mk.label)
		n := len(lab)
		switch {
		case blank(mk.y, mk.x-1) && fits(mk.y, mk.x+1, mk.x+n) && blank(mk.y, mk.x+n+1):
			copy(grid[mk.y][mk.x+1:], lab)
		case blank(mk.y, mk.x+1) && fits(mk.y, mk.x-n, mk.x-1) && blank(mk.y, mk.x-n-1):
			copy(grid[mk.y][mk.x-n:], lab)
		}
	}
	title := m.Title
	if hint != "" && widthOf(title)+widthOf(hint)+3 <= w {
		title += "   " + hint
	}
	lines := []string{st.muted.Render(title)}
	for _, row := range grid {
		s := string(row)
		s = strings.ReplaceAll(s, "@", st.warn.Render("@"))
		lines = append(lines, s)
	}
	if legend != "" {
		lines = append(lines, st.warn.Render(legend))
	}
	return lines
}

// shortLabel drops the system prefix of a waypoint symbol: X1-DF55-A2 → A2.
func shortLabel(s string) string {
	if i := strings.LastIndexByte(s, '-'); i >= 0 && i < len(s)-1 {
		return s[i+1:]
	}
	return s
}

// mapGlyph is a map symbol, what it is, and the waypoint types drawn with it.
type mapGlyph struct {
	glyph rune
	name  string
	kinds []string
}

// mapGlyphs are the map's symbols for waypoint types (SpaceTraders names), with what the
// legend calls them; any other type is ".".
var mapGlyphs = []mapGlyph{
	{'O', "planet", []string{"PLANET"}},
	{'G', "gas giant", []string{"GAS_GIANT"}},
	{'o', "moon", []string{"MOON"}},
	{'#', "orbital station", []string{"ORBITAL_STATION"}},
	{'X', "jump gate", []string{"JUMP_GATE"}},
	{'*', "asteroid", []string{"ASTEROID", "ASTEROID_FIELD", "ENGINEERED_ASTEROID", "ASTEROID_BASE"}},
	{'f', "fuel station", []string{"FUEL_STATION"}},
}

// kindGlyph is the map symbol for a waypoint type (SpaceTraders names; others get ".").
func kindGlyph(k string) rune {
	for _, g := range mapGlyphs {
		if slices.Contains(g.kinds, strings.ToUpper(k)) {
			return g.glyph
		}
	}
	return '.'
}
