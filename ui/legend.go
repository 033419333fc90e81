package ui

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/keymap"
)

// legendView says what the map's symbols mean ("XL1" is the jump gate L1, "@A3" a ship at
// A3), over the panes, one key away from the first screen. It holds the map it was
// opened on and its own scroll.
type legendView struct {
	st     *styles
	km     *keymap.KeyMap
	mp     *game.Map // nil: the game has drawn no map
	scroll paneScroll
}

func (l *legendView) kind() dialogKind { return legendDialog }
func (l *legendView) scrollBy(n int)   { l.scroll.by(n) }

func (l *legendView) hint() (string, []key.Binding) {
	return "the map's legend:", []key.Binding{one(l.km.Down, "scroll"), one(l.km.Cancel, "close")}
}

// update handles a key: scroll, or close.
func (l *legendView) update(msg tea.Msg) (tea.Cmd, action) {
	k, ok := msg.(tea.KeyPressMsg)
	switch {
	case !ok:
	case key.Matches(k, l.km.Cancel, l.km.Legend, l.km.Quit):
		return nil, actClose
	default:
		scrollKey(&l.scroll, l.km, k)
	}
	return nil, nil
}

// text is the legend: how a waypoint is drawn, every symbol with what it is (those on
// this map marked), and where the ships are.
func (l *legendView) text() []string {
	if l.mp == nil || len(l.mp.Points) == 0 {
		return []string{"This game has drawn no map yet."}
	}
	on := map[rune]bool{}
	var ships []string
	example := ""
	for _, p := range l.mp.Points {
		on[kindGlyph(p.Kind)] = true
		for _, mk := range p.Marks {
			if ship, ok := strings.CutPrefix(mk, "→"); ok {
				ships = append(ships, ship+" on its way to "+p.Label)
				continue
			}
			ships = append(ships, mk+" at "+p.Label)
		}
		if example == "" && kindGlyph(p.Kind) != '.' && shortLabel(p.Label) != p.Label {
			example = fmt.Sprintf("%c%s is %s, %s.", kindGlyph(p.Kind), shortLabel(p.Label), withArticle(glyphName(kindGlyph(p.Kind))), p.Label)
		}
	}
	out := []string{"A waypoint is its symbol, then its name without the system's part: " + example, ""}
	for _, g := range mapGlyphs {
		mark := "  "
		if on[g.glyph] {
			mark = "• "
		}
		out = append(out, fmt.Sprintf("%s%c  %s", mark, g.glyph, g.name))
	}
	out = append(out, fmt.Sprintf("%s.  anything else", map[bool]string{true: "• ", false: "  "}[on['.']]),
		"• @  a ship is there (drawn over the waypoint's symbol)", "", "• marks the symbols on this map.")
	if len(ships) > 0 {
		sort.Strings(ships)
		out = append(out, "", "Ships: "+strings.Join(ships, ", ")+".")
	}
	return append(out, "", "North is up and the distances are to scale. A label is left out where "+
		"points crowd each other; the World pane's text names every waypoint.")
}

// glyphName is what the legend calls symbol g.
func glyphName(g rune) string {
	if i := slices.IndexFunc(mapGlyphs, func(m mapGlyph) bool { return m.glyph == g }); i >= 0 {
		return mapGlyphs[i].name
	}
	return "a waypoint"
}

func withArticle(name string) string {
	if strings.HasPrefix(name, "a ") || name == "" {
		return name
	}
	if strings.ContainsRune("aeiou", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}

// view draws the legend as a box over the panes, w×h at most.
func (l *legendView) view(w, h int) []string {
	st, km := l.st, l.km
	dw := min(w, 72)
	var body []string
	for _, line := range l.text() {
		body = append(body, wrapStyled(line, dw-2, st.text, "")...)
	}
	foot := helpLine(st, []key.Binding{withDesc(km.Down, "scroll"), withDesc(km.Cancel, "close")}, dw-2)
	return scrolledBox(st, "Map legend", body, foot, &l.scroll, dw, h)
}
