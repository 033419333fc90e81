package arena

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/coplayhq/coplay/game"
)

// paneWidth is the width the summary is written for: the narrow world pane.
const paneWidth = 60

// maxUnreadShown is how many unread messages the summary shows.
const maxUnreadShown = 5

// summary is the world for the model and the world pane, every line at most paneWidth
// columns and each naming what it is about, so that changes read line by line. It is
// markdown (the world pane renders it so): a line of its own is a list item, or it would
// be joined to the line before.
func (w *world) summary() string {
	a := &w.s.Agent
	var b strings.Builder
	home := "no community"
	if a.Community != "" {
		home = fmt.Sprintf("%s · standing %d", a.Community, a.Standing)
	}
	fmt.Fprintf(&b, "%s · %s · %s\n\n", a.Name, home, stamp(w.s.Now))
	food, gain := w.food()
	fmt.Fprintf(&b, "- energy %s %3d/%d\n", bar(a.Energy, MaxEnergy), a.Energy, MaxEnergy)
	fmt.Fprintf(&b, "- food   %s %3d (+%d energy)\n", bar(food, 10), food, gain)
	fmt.Fprintf(&b, "- gold   %s %3d\n", bar(a.Gold, 100), a.Gold)
	if a.Work != nil {
		fmt.Fprintf(&b, "- working: %s until %s (in %s)\n", a.Work.Job, clock(a.Work.End), until(w.s.Now, a.Work.End))
	}
	w.peerLines(&b)
	w.unreadLines(&b)
	w.battleLines(&b)
	w.marketLines(&b)
	return strings.TrimRight(b.String(), "\n")
}

// unreadLines shows up to maxUnreadShown unread messages, those to or about the agent
// first, and how many more there are.
func (w *world) unreadLines(b *strings.Builder) {
	var first, rest []*message
	for _, m := range w.s.Messages {
		switch {
		case m.Read:
		case w.mentionsAgent(m) && !w.answered(m.ID):
			first = append(first, m)
		default:
			rest = append(rest, m)
		}
	}
	all := append(first, rest...)
	if len(all) == 0 {
		b.WriteString("\nNo unread messages.\n")
		return
	}
	fmt.Fprintf(b, "\nUnread messages: %d\n", len(all))
	for _, m := range all[:min(len(all), maxUnreadShown)] {
		to := "you"
		if m.To != w.me() {
			to = m.To
		}
		line := fmt.Sprintf("- #%d %s → %s: %s", m.ID, m.From, to, m.Text)
		b.WriteString(cut(line, paneWidth) + "\n")
	}
	if n := len(all) - maxUnreadShown; n > 0 {
		fmt.Fprintf(b, "- +%d more (messages)\n", n)
	}
}

// battleLines shows the battles not over, with their countdowns, and the last result.
func (w *world) battleLines(b *strings.Builder) {
	now := w.s.Now
	var lines []string
	var last *battle
	for _, bt := range w.s.Battles {
		if bt.Over {
			last = bt
			continue
		}
		head := fmt.Sprintf("- %s %s vs %s", bt.ID, bt.Sides[0], bt.Sides[1])
		parts := []string{w.score(bt)}
		if side := w.agentSide(bt); side != "" {
			parts = append(parts, fmt.Sprintf("you %d for %s", w.agentEnergy(bt), side))
		}
		switch {
		case bt.Started:
			head += fmt.Sprintf(": under way, ends in %s (%s)", until(now, bt.End), clock(bt.End))
			if w.joinable(bt) == "" {
				parts = append([]string{fmt.Sprintf("join by %s (in %s)", clock(bt.Deadline), until(now, bt.Deadline))}, parts...)
			}
		case bt.Closed:
			head += fmt.Sprintf(": starts in %s (%s)", until(now, bt.Start), clock(bt.Start))
			parts = append([]string{"closed to joining"}, parts...)
		default:
			head += fmt.Sprintf(": starts in %s (%s)", until(now, bt.Start), clock(bt.Start))
			parts = append([]string{fmt.Sprintf("join by %s (in %s)", clock(bt.Deadline), until(now, bt.Deadline))}, parts...)
		}
		lines = append(lines, head)
		lines = append(lines, wrapParts(parts, "  ", paneWidth)...)
	}
	if last != nil {
		res := fmt.Sprintf("- %s: %s won", last.ID, last.Winner)
		if side := w.agentSide(last); side != "" && last.Reward > 0 {
			res += fmt.Sprintf(" (you +%d gold)", last.Reward)
		} else if side != "" {
			res += " (you lost)"
		}
		lines = append(lines, res)
	}
	if len(lines) == 0 {
		return
	}
	b.WriteString("\nBattles:\n")
	for _, l := range lines {
		b.WriteString(cut(l, paneWidth) + "\n")
	}
}

// wrapParts joins parts with " · " into indented lines of at most width columns.
func wrapParts(parts []string, indent string, width int) []string {
	var lines []string
	cur := ""
	for _, p := range parts {
		switch {
		case cur == "":
			cur = indent + p
		case len([]rune(cur))+3+len([]rune(p)) <= width:
			cur += " · " + p
		default:
			lines = append(lines, cur)
			cur = indent + p
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// marketLines shows prices on two lines: food, then goods.
func (w *world) marketLines(b *strings.Builder) {
	var food, goods []string
	for _, it := range Items() {
		p := fmt.Sprintf("%s %d%s", it.Name, w.s.Prices[it.Name], w.trend(it))
		if it.Food > 0 {
			food = append(food, p)
		} else {
			goods = append(goods, p)
		}
	}
	fmt.Fprintf(b, "\nMarket:\n- food: %s\n", strings.Join(food, " · "))
	fmt.Fprintf(b, "- goods: %s\n", strings.Join(goods, " · "))
}

// metrics are the numbers the chart plots.
func (w *world) metrics() []game.Metric {
	a := &w.s.Agent
	return []game.Metric{
		{Name: "gold", Value: float64(a.Gold), Unit: "gold"},
		{Name: "energy", Value: float64(a.Energy), Unit: "energy"},
		{Name: "standing", Value: float64(a.Standing)},
		{Name: "battles_won", Value: float64(a.BattlesWon), Unit: "battles"},
		{Name: ScoreMetric, Value: w.scoreValue()},
	}
}

// ScoreMetric is the name of the observation's metric that says how well the agent
// does (see Game.Score).
const ScoreMetric = "score"

// scoreValue is gold, plus 25 for every battle won, plus standing.
func (w *world) scoreValue() float64 {
	a := &w.s.Agent
	return float64(a.Gold + 25*a.BattlesWon + a.Standing)
}

// timer is something that ends at a known game time.
type timer struct {
	label      string
	start, end time.Time
}

// timers are the battles' starts and ends, the join deadlines the agent was called to,
// and work under way, in game time.
func (w *world) timers() []timer {
	var out []timer
	for _, b := range w.s.Battles {
		if b.Over {
			continue
		}
		if w.joinable(b) == "" && w.calledAgent(b) && w.agentSide(b) == "" {
			out = append(out, timer{"join " + b.ID + " by", b.Announced, b.Deadline})
		}
		if b.Started {
			out = append(out, timer{b.ID + " ends", b.Start, b.End})
		} else {
			out = append(out, timer{b.ID + " starts", b.Announced, b.Start})
		}
	}
	if job := w.s.Agent.Work; job != nil {
		out = append(out, timer{"work: " + job.Job, job.Start, job.End})
	}
	return out
}

// idle returns the game time until which the agent can do nothing useful, and why; zero
// when there is something to do: a message to answer, a battle to join, food to eat or
// buy, work to take.
func (w *world) idle() (time.Time, string) {
	a := &w.s.Agent
	for _, m := range w.s.Messages {
		if !m.Read && w.mentionsAgent(m) && !w.answered(m.ID) {
			return time.Time{}, ""
		}
	}
	cheapest := w.cheapestFood()
	food, _ := w.food()
	canEat := food > 0 || (cheapest > 0 && a.Gold >= cheapest)
	switch {
	case a.Energy < 40 && canEat:
		return time.Time{}, ""
	case a.Work == nil && a.Energy >= Jobs()[0].Energy:
		return time.Time{}, ""
	case a.Work == nil && a.Energy >= MinCommit && w.openToAgent():
		return time.Time{}, ""
	}
	reason := "out of energy, food and gold: resting"
	if a.Work != nil {
		reason = fmt.Sprintf("working (%s) until %s", a.Work.Job, clock(a.Work.End))
	}
	return w.nextEvent(), reason
}

// openToAgent reports whether some battle can still be joined.
func (w *world) openToAgent() bool {
	return slices.ContainsFunc(w.s.Battles, func(b *battle) bool { return w.joinable(b) == "" })
}

// cheapestFood is the lowest food price, 0 if the market has none in stock.
func (w *world) cheapestFood() int {
	best := 0
	for _, it := range Items() {
		if p := w.s.Prices[it.Name]; it.Food > 0 && w.s.Stock[it.Name] > 0 && (best == 0 || p < best) {
			best = p
		}
	}
	return best
}

// nextEvent is the next game time something is known to happen: work ends, a battle's
// deadline, start or end, the next battle, prices move, a member answers, a scenario's
// event, or the world speaks up.
func (w *world) nextEvent() time.Time {
	now := w.s.Now
	next := timeOf(w.s.LastWake + wakeEvery)
	if w.quiet(w.s.Tick) {
		next = timeOf(max(w.s.LastWake+wakeEvery, w.s.Script.Quiet)) // nobody speaks up before
	}
	consider := func(t time.Time) {
		if t.After(now) && t.Before(next) {
			next = t
		}
	}
	if m := w.scriptNext(w.s.Tick); m >= 0 {
		consider(timeOf(m))
	}
	consider(timeOf(w.s.NextBattle))
	consider(timeOf((w.s.Period + 1) * marketPeriod))
	if job := w.s.Agent.Work; job != nil {
		consider(job.End)
	}
	for _, b := range w.s.Battles {
		if !b.Over {
			consider(b.Deadline)
			consider(b.Start)
			consider(b.End)
		}
	}
	for _, p := range w.s.Pending {
		consider(p.At)
	}
	if !next.After(now) {
		next = timeOf(w.s.Tick + 1)
	}
	return next
}
