package arena

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// price is an item's price in market period p: its base, moved by a slow swing (a
// period of an hour, a phase of its own) and by noise of the seed, never below 1.
func price(seed int64, it Item, p int64) int {
	phase := 2 * math.Pi * unit(seed, "phase", int64(len(it.Name)), int64(it.Base))
	swing := 0.25 * math.Sin(2*math.Pi*float64(p)/12+phase)
	noise := 0.16 * (unit(seed, "price", int64(it.Base), int64(len(it.Name)), p) - 0.5)
	return max(1, int(math.Round(float64(it.Base)*(1+swing+noise))))
}

// sellPrice is what the market pays for an item: 70% of its price, at least 1.
func sellPrice(buy int) int { return max(1, buy*7/10) }

// marketTick moves prices at the start of each market period and restocks. A move of
// more than 10% and at least 2 gold in any price is a market.changed trigger about the
// biggest mover.
func (w *world) marketTick(m int64) {
	if m%marketPeriod != 0 {
		return
	}
	p := m / marketPeriod
	type move struct {
		item     string
		old, new int
		share    float64
	}
	var moves []move
	for _, it := range Items() {
		old := w.s.Prices[it.Name]
		now := w.priceAt(it, p)
		w.s.Prices[it.Name] = now
		w.s.Stock[it.Name] = it.Stock
		if old > 0 {
			if share := float64(now-old) / float64(old); math.Abs(share) > 0.10 && abs(now-old) >= 2 {
				moves = append(moves, move{it.Name, old, now, share})
			}
		}
	}
	w.s.Period = p
	if len(moves) == 0 {
		return
	}
	sort.SliceStable(moves, func(i, j int) bool { return math.Abs(moves[i].share) > math.Abs(moves[j].share) })
	var parts []string
	for _, mv := range moves {
		parts = append(parts, fmt.Sprintf("%s %d → %d (%+.0f%%)", mv.item, mv.old, mv.new, 100*mv.share))
	}
	w.emit("market.changed", moves[0].item, strings.Join(parts, ", "))
}

// trend says how an item's price moved at the start of this period: "▲", "▼" or "".
func (w *world) trend(it Item) string {
	if w.s.Period == 0 {
		return ""
	}
	before := w.priceAt(it, w.s.Period-1)
	switch now := w.s.Prices[it.Name]; {
	case now > before:
		return "▲"
	case now < before:
		return "▼"
	}
	return ""
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
