package universe

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"
)

// galaxySize is the number of systems generated; the first len(factions) are faction homes.
const galaxySize = 30

var systemTypes = []string{"NEUTRON_STAR", "RED_STAR", "ORANGE_STAR", "BLUE_STAR", "YOUNG_STAR",
	"WHITE_DWARF", "BLACK_HOLE", "HYPERGIANT", "NEBULA", "UNSTABLE"}

var constellations = []string{"Orion", "Lyra", "Draco", "Cygnus", "Vela", "Carina", "Hydra", "Lupus", "Aquila", "Pavo"}

// marketTemplates describe what kinds of market the generator places.
var marketTemplates = map[string]struct{ exports, imports, exchange []string }{
	"capital":    {[]string{"FOOD", "FABRICS", "CLOTHING"}, []string{"MACHINERY", "FERTILIZERS", "ELECTRONICS", "MEDICINE"}, []string{"FUEL"}},
	"refinery":   {[]string{"IRON", "COPPER", "ALUMINUM"}, []string{"IRON_ORE", "COPPER_ORE", "ALUMINUM_ORE", "QUARTZ_SAND", "SILICON_CRYSTALS"}, []string{"FUEL"}},
	"station":    {[]string{"EQUIPMENT", "MACHINERY"}, []string{"SHIP_PARTS", "SHIP_PLATING", "FOOD"}, []string{"FUEL"}},
	"mine":       {nil, nil, []string{"IRON_ORE", "COPPER_ORE", "ALUMINUM_ORE", "QUARTZ_SAND", "SILICON_CRYSTALS", "ICE_WATER", "FUEL"}},
	"outpost":    {[]string{"ICE_WATER", "AMMONIA_ICE"}, []string{"FOOD", "MACHINERY", "EQUIPMENT"}, []string{"FUEL"}},
	"fuel":       {[]string{"HYDROCARBON", "LIQUID_HYDROGEN"}, nil, []string{"FUEL"}},
	"gate":       {nil, nil, []string{"ANTIMATTER", "FUEL"}},
	"industrial": {[]string{"MACHINERY", "ELECTRONICS", "EQUIPMENT"}, []string{"IRON", "COPPER", "ALUMINUM", "PLASTICS"}, []string{"FUEL"}},
	"tech":       {[]string{"LAB_INSTRUMENTS", "MEDICINE", "MICROPROCESSORS"}, []string{"ELECTRONICS", "SILICON_CRYSTALS", "POLYNUCLEOTIDES"}, []string{"FUEL"}},
	"metals":     {[]string{"SILVER_ORE", "GOLD_ORE", "PLATINUM_ORE"}, []string{"MACHINERY", "EXPLOSIVES", "FOOD"}, []string{"FUEL"}},
}

var wildMarkets = []string{"refinery", "outpost", "industrial", "tech", "metals", "capital"}

var depositTraits = []string{"COMMON_METAL_DEPOSITS", "MINERAL_DEPOSITS", "PRECIOUS_METAL_DEPOSITS", "RARE_METAL_DEPOSITS"}

// builder places the waypoints of one system.
type builder struct {
	u     *Universe
	s     *system
	group byte
}

func generateGalaxy(u *Universe) {
	r := u.rng
	used := map[string]bool{}
	for i := range galaxySize {
		var sym string
		for sym == "" || used[sym] {
			sym = fmt.Sprintf("X1-%c%c%d%d", 'A'+r.IntN(26), 'A'+r.IntN(26), r.IntN(10), r.IntN(10))
		}
		used[sym] = true
		s := &system{
			Symbol:        sym,
			Type:          systemTypes[r.IntN(len(systemTypes))],
			Constellation: constellations[r.IntN(len(constellations))],
			X:             r.IntN(1001) - 500,
			Y:             r.IntN(1001) - 500,
		}
		s.Name = fmt.Sprintf("%s %s", s.Constellation, roman(i%12+1))
		b := &builder{u: u, s: s, group: 'A'}
		if i < len(factions) {
			s.Faction = factions[i].symbol
			b.starter()
		} else {
			b.wild()
		}
		u.st.Systems = append(u.st.Systems, s)
	}
	connectGates(u.st.Systems)
}

func roman(n int) string {
	return []string{"", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"}[n]
}

// polar places a point at a distance from (x, y) in a random direction.
func (b *builder) polar(x, y int, dist float64) (int, int) {
	a := b.u.rng.Float64() * 2 * math.Pi
	return x + int(math.Round(dist*math.Cos(a))), y + int(math.Round(dist*math.Sin(a)))
}

// add places a top-level body in a new group; orbit places a body around parent.
func (b *builder) add(typ string, x, y int, traits ...string) *waypoint {
	w := &waypoint{
		Symbol: fmt.Sprintf("%s-%c1", b.s.Symbol, b.group),
		System: b.s.Symbol, Type: typ, X: x, Y: y, Traits: traits, Faction: b.s.Faction,
	}
	b.group++
	b.s.Waypoints = append(b.s.Waypoints, w)
	return w
}

func (b *builder) orbit(parent *waypoint, typ string, traits ...string) *waypoint {
	w := &waypoint{
		Symbol: fmt.Sprintf("%s%d", parent.Symbol[:len(parent.Symbol)-1], len(parent.Orbitals)+2),
		System: b.s.Symbol, Type: typ, X: parent.X, Y: parent.Y, Orbits: parent.Symbol,
		Traits: traits, Faction: b.s.Faction,
	}
	parent.Orbitals = append(parent.Orbitals, w.Symbol)
	b.s.Waypoints = append(b.s.Waypoints, w)
	return w
}

// starter lays out a faction home: HQ with market and shipyard, an engineered asteroid a
// short hop away whose ores are also sold nearby and bought by a refinery moon.
func (b *builder) starter() {
	r := b.u.rng
	hx, hy := b.polar(0, 0, 15+float64(r.IntN(15)))
	hq := b.add("PLANET", hx, hy, "MARKETPLACE", "SHIPYARD", "TEMPERATE", "BREATHABLE_ATMOSPHERE", "SPRAWLING_CITIES")
	b.market(hq, "capital")
	hq.Shipyard = []string{"SHIP_PROBE", "SHIP_MINING_DRONE", "SHIP_SURVEYOR", "SHIP_LIGHT_SHUTTLE", "SHIP_LIGHT_HAULER"}
	b.market(b.orbit(hq, "MOON", "MARKETPLACE", "ROCKY", "INDUSTRIAL"), "refinery")
	st := b.orbit(hq, "ORBITAL_STATION", "MARKETPLACE", "SHIPYARD", "MILITARY_BASE")
	b.market(st, "station")
	st.Shipyard = []string{"SHIP_PROBE", "SHIP_MINING_DRONE", "SHIP_ORE_HOUND", "SHIP_EXPLORER", "SHIP_LIGHT_HAULER"}

	ex, ey := b.polar(hx, hy, 10+float64(r.IntN(10)))
	b.market(b.add("ENGINEERED_ASTEROID", ex, ey, "COMMON_METAL_DEPOSITS", "MARKETPLACE", "HOLLOWED_INTERIOR"), "mine")

	for range 4 + r.IntN(3) {
		x, y := b.polar(0, 0, 50+float64(r.IntN(80)))
		dep := depositTraits[r.IntN(3)]
		b.add("ASTEROID", x, y, dep, []string{"SHALLOW_CRATERS", "DEEP_CRATERS"}[r.IntN(2)])
	}
	x, y := b.polar(0, 0, 40+float64(r.IntN(40)))
	b.market(b.add("ASTEROID_BASE", x, y, "MARKETPLACE", "HOLLOWED_INTERIOR", "OUTPOST"), "outpost")
	x, y = b.polar(0, 0, 60+float64(r.IntN(60)))
	gg := b.add("GAS_GIANT", x, y, "JOVIAN", "STRONG_MAGNETOSPHERE")
	b.market(b.orbit(gg, "MOON", "MARKETPLACE", "FROZEN", "ICE_CRYSTALS"), "industrial")
	x, y = b.polar(0, 0, 30+float64(r.IntN(40)))
	b.market(b.add("FUEL_STATION", x, y, "MARKETPLACE"), "fuel")
	x, y = b.polar(0, 0, 80+float64(r.IntN(40)))
	b.market(b.add("PLANET", x, y, "MARKETPLACE", "ROCKY", "HIGH_TECH"), "tech")
	b.gate()
}

// wild lays out an unclaimed system; some of its bodies are uncharted.
func (b *builder) wild() {
	r := b.u.rng
	for range 3 + r.IntN(5) {
		x, y := b.polar(0, 0, 10+float64(r.IntN(140)))
		var w *waypoint
		switch r.IntN(4) {
		case 0:
			w = b.add("PLANET", x, y, []string{"ROCKY", "BARREN", "FROZEN", "VOLCANIC"}[r.IntN(4)])
			if r.IntN(2) == 0 {
				b.wildBody(b.orbit(w, "MOON", "BARREN"))
			}
		case 1:
			w = b.add("GAS_GIANT", x, y, "JOVIAN", "EXPLOSIVE_GASES")
		case 2:
			w = b.add("ASTEROID_FIELD", x, y, depositTraits[r.IntN(len(depositTraits))], "DEBRIS_CLUSTER")
		default:
			w = b.add("ASTEROID", x, y, depositTraits[r.IntN(len(depositTraits))], "DEEP_CRATERS")
		}
		b.wildBody(w)
	}
	b.gate()
}

func (b *builder) wildBody(w *waypoint) {
	r := b.u.rng
	if r.IntN(2) == 0 {
		w.Uncharted = true
		return
	}
	if (w.Type == "PLANET" || w.Type == "MOON") && r.IntN(3) > 0 {
		w.Traits = append([]string{"MARKETPLACE"}, w.Traits...)
		b.market(w, wildMarkets[r.IntN(len(wildMarkets))])
	}
}

func (b *builder) gate() {
	x, y := b.polar(0, 0, 100+float64(b.u.rng.IntN(60)))
	g := b.add("JUMP_GATE", x, y, "MARKETPLACE")
	g.IsGate = true
	b.market(g, "gate")
}

func (b *builder) market(w *waypoint, template string) {
	r := b.u.rng
	t := marketTemplates[template]
	m := &market{}
	add := func(kind string, eq float64, syms []string) {
		for _, sym := range syms {
			g := &marketGood{Symbol: sym, Kind: kind, Equilibrium: eq, Updated: b.u.st.Created}
			if kind != "EXCHANGE" {
				g.Equilibrium += (r.Float64() - 0.5) * 0.6
				g.Activity = []string{"WEAK", "GROWING", "STRONG"}[r.IntN(3)]
			}
			g.Supply = g.Equilibrium
			m.Goods = append(m.Goods, g)
		}
	}
	add("EXPORT", 3, t.exports)
	add("IMPORT", 1, t.imports)
	add("EXCHANGE", 2, t.exchange)
	w.Market = m
}

// connectGates links every gate to the gates of its three nearest systems, both ways.
func connectGates(systems []*system) {
	gateOf := func(s *system) *waypoint {
		for _, w := range s.Waypoints {
			if w.IsGate {
				return w
			}
		}
		return nil
	}
	for _, s := range systems {
		others := slices.Clone(systems)
		others = slices.DeleteFunc(others, func(o *system) bool { return o == s })
		slices.SortStableFunc(others, func(a, b *system) int {
			return cmp.Compare(systemDistance(s, a), systemDistance(s, b))
		})
		g := gateOf(s)
		for _, o := range others[:3] {
			og := gateOf(o)
			if !slices.Contains(g.Gate, og.Symbol) {
				g.Gate = append(g.Gate, og.Symbol)
				og.Gate = append(og.Gate, g.Symbol)
			}
		}
	}
	for _, s := range systems {
		slices.Sort(gateOf(s).Gate)
	}
}

func systemDistance(a, b *system) float64 {
	return math.Hypot(float64(a.X-b.X), float64(a.Y-b.Y))
}

func distance(a, b *waypoint) int {
	return max(1, int(math.Round(math.Hypot(float64(a.X-b.X), float64(a.Y-b.Y)))))
}

// gameTime is a duration in game seconds, converted to wall-clock time by Universe.game.
func gameTime(seconds float64) time.Duration {
	return time.Duration(seconds * float64(time.Second))
}
