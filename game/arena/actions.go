package arena

import (
	"fmt"
	"time"

	"github.com/coplayhq/coplay/game"
)

// Names of the effects a dry run that predicts success reports (game.Simulation.Effects),
// for approval rules ("allow buy if cost <= 50"):
//
//   - cost: gold spent now (buy)
//   - income: gold earned (sell now; work when it ends)
//   - energy: energy spent (join_battle, work)
//   - energy_gained: energy restored (consume)
//   - energy_after, gold_after: what is left afterwards (work: after its pay)
//   - units: items bought, sold or eaten
//   - price: the unit price paid or got
//   - minutes: game minutes the call keeps the agent busy (work)
//   - standing_lost: standing given up (leave_community)
//
// A dry run that predicts failure reports none.
const (
	EffectCost         = "cost"
	EffectIncome       = "income"
	EffectEnergy       = "energy"
	EffectEnergyGained = "energy_gained"
	EffectEnergyAfter  = "energy_after"
	EffectGoldAfter    = "gold_after"
	EffectUnits        = "units"
	EffectPrice        = "price"
	EffectMinutes      = "minutes"
	EffectStandingLost = "standing_lost"
)

// outcome is what an Act call will do, decided before anything changes: the dry run
// reports it, the call applies it. One function decides both, so they cannot differ.
type outcome struct {
	summary string             // "buys 3 bread for 18 gold: gold 40 → 22"
	warning string             // allowed, but probably not wanted
	effects map[string]float64 // see the Effect names
	apply   func() string      // makes the change; returns what the model reads
}

// planBuy decides a purchase at this period's price.
func (w *world) planBuy(a buyArgs) (outcome, *game.Error) {
	item, s := string(a.Item), &w.s.Agent
	if _, ok := ItemNamed(item); !ok {
		return outcome{}, refuse(CodeBadRequest, "the market sells no %q", item)
	}
	if a.Quantity < 1 {
		return outcome{}, refuse(CodeBadRequest, "quantity must be at least 1, not %d", a.Quantity)
	}
	p := w.s.Prices[item]
	if a.MaxPrice > 0 && p > a.MaxPrice {
		return outcome{}, refuse(CodePriceChanged, "price changed: %s is now %d gold, above your max_price %d", item, p, a.MaxPrice)
	}
	if st := w.s.Stock[item]; a.Quantity > st {
		return outcome{}, refuse(CodeNotEnough, "only %d %s in stock this period (restocks at %s)", st, item, clock(timeOf((w.s.Period+1)*marketPeriod)))
	}
	cost := p * a.Quantity
	if cost > s.Gold {
		return outcome{}, refuse(CodeNoGold, "not enough gold: %s cost %d (%d each), you have %d", plural(a.Quantity, item), cost, p, s.Gold)
	}
	o := outcome{
		summary: fmt.Sprintf("buys %s for %d gold (%d each): gold %d → %d", plural(a.Quantity, item), cost, p, s.Gold, s.Gold-cost),
		effects: map[string]float64{EffectCost: float64(cost), EffectUnits: float64(a.Quantity), EffectPrice: float64(p), EffectGoldAfter: float64(s.Gold - cost)},
	}
	o.apply = func() string {
		s.Gold -= cost
		w.s.Stock[item] -= a.Quantity
		w.addItem(item, a.Quantity)
		return fmt.Sprintf("Bought %s for %d gold. Gold %d; you hold %d %s.", plural(a.Quantity, item), cost, s.Gold, s.Inventory[item], item)
	}
	return o, nil
}

// planSell decides a sale at this period's price.
func (w *world) planSell(a sellArgs) (outcome, *game.Error) {
	item, s := string(a.Item), &w.s.Agent
	if a.Quantity < 1 {
		return outcome{}, refuse(CodeBadRequest, "quantity must be at least 1, not %d", a.Quantity)
	}
	if held := s.Inventory[item]; held < a.Quantity {
		return outcome{}, refuse(CodeNotEnough, "you hold %d %s, not %d", held, item, a.Quantity)
	}
	p := sellPrice(w.s.Prices[item])
	if a.MinPrice > 0 && p < a.MinPrice {
		return outcome{}, refuse(CodePriceChanged, "price changed: the market now pays %d gold for %s, below your min_price %d", p, item, a.MinPrice)
	}
	income := p * a.Quantity
	o := outcome{
		summary: fmt.Sprintf("sells %s for %d gold (%d each): gold %d → %d", plural(a.Quantity, item), income, p, s.Gold, s.Gold+income),
		effects: map[string]float64{EffectIncome: float64(income), EffectUnits: float64(a.Quantity), EffectPrice: float64(p), EffectGoldAfter: float64(s.Gold + income)},
	}
	o.apply = func() string {
		s.Gold += income
		w.s.Stock[item] += a.Quantity
		w.addItem(item, -a.Quantity)
		return fmt.Sprintf("Sold %s for %d gold. Gold %d.", plural(a.Quantity, item), income, s.Gold)
	}
	return o, nil
}

// planConsume decides eating food.
func (w *world) planConsume(a consumeArgs) (outcome, *game.Error) {
	item, s := string(a.Item), &w.s.Agent
	it, ok := ItemNamed(item)
	if !ok || it.Food == 0 {
		return outcome{}, refuse(CodeBadRequest, "%q is not food (food: apple, bread, stew)", item)
	}
	n := max(a.Quantity, 1)
	if held := s.Inventory[item]; held < n {
		return outcome{}, refuse(CodeNotEnough, "you hold %d %s, not %d: buy some at the market", held, item, n)
	}
	after := min(MaxEnergy, s.Energy+it.Food*n)
	o := outcome{
		summary: fmt.Sprintf("eats %s: energy %d → %d", plural(n, item), s.Energy, after),
		effects: map[string]float64{EffectEnergyGained: float64(after - s.Energy), EffectEnergyAfter: float64(after), EffectUnits: float64(n)},
	}
	if wasted := s.Energy + it.Food*n - after; wasted > 0 {
		o.warning = fmt.Sprintf("energy stops at %d: %d of it is wasted", MaxEnergy, wasted)
	}
	o.apply = func() string {
		s.Energy = after
		w.addItem(item, -n)
		return fmt.Sprintf("Ate %s. Energy %d/%d.", plural(n, item), s.Energy, MaxEnergy)
	}
	return o, nil
}

// planWork decides a stretch of work: its energy is spent now, its pay comes when it
// ends, and until then the agent cannot work again or join a battle.
func (w *world) planWork(a workArgs) (outcome, *game.Error) {
	s := &w.s.Agent
	j, ok := JobNamed(string(a.Job))
	if !ok {
		return outcome{}, refuse(CodeBadRequest, "no job %q (jobs: farm, courier, guard, forge)", a.Job)
	}
	if a.Shifts < 1 || a.Shifts > MaxShifts {
		return outcome{}, refuse(CodeBadRequest, "shifts must be 1 to %d, not %d", MaxShifts, a.Shifts)
	}
	if s.Work != nil {
		return outcome{}, refuse(CodeConflict, "you are already working (%s) until %s", s.Work.Job, clock(s.Work.End))
	}
	energy, pay := j.Energy*a.Shifts, j.Gold*a.Shifts
	if energy > s.Energy {
		return outcome{}, refuse(CodeNotEnough, "not enough energy: %d %s shift(s) take %d, you have %d", a.Shifts, j.Name, energy, s.Energy)
	}
	end := w.s.Now.Add(ShiftLength * time.Duration(a.Shifts))
	o := outcome{
		summary: fmt.Sprintf("works %d %s shift(s) until %s: energy %d → %d, +%d gold when done (gold %d → %d)",
			a.Shifts, j.Name, clock(end), s.Energy, s.Energy-energy, pay, s.Gold, s.Gold+pay),
		effects: map[string]float64{EffectEnergy: float64(energy), EffectIncome: float64(pay), EffectMinutes: float64(a.Shifts) * ShiftLength.Minutes(),
			EffectEnergyAfter: float64(s.Energy - energy), EffectGoldAfter: float64(s.Gold + pay)},
	}
	if b := w.missedBy(end); b != nil {
		o.warning = fmt.Sprintf("you cannot join %s while working (join by %s)", b.ID, clock(b.Deadline))
	}
	o.apply = func() string {
		s.Energy -= energy
		s.Work = &shift{Job: j.Name, Shifts: a.Shifts, Start: w.s.Now, End: end}
		return fmt.Sprintf("Working %d %s shift(s) until %s (game time); %d gold then. Energy %d.", a.Shifts, j.Name, clock(end), pay, s.Energy)
	}
	return o, nil
}

// missedBy returns a battle of the agent's community, not yet joined, whose joining
// closes before end.
func (w *world) missedBy(end time.Time) *battle {
	for _, b := range w.s.Battles {
		if !b.Closed && w.calledAgent(b) && w.agentSide(b) == "" && b.Deadline.Before(end) {
			return b
		}
	}
	return nil
}
