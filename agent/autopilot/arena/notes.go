package arena

import (
	"fmt"
	"strings"

	"github.com/coplayhq/coplay/agent/brain"
	arenagame "github.com/coplayhq/coplay/game/arena"
)

// notebook remembers what the autopilot last wrote, so that it writes only what changed.
type notebook struct {
	sections map[string]string
	plan     string
}

// noteSections is the order sections are written in.
var noteSections = []string{"Situation", "Strategy", "Advice"}

// update returns the notebook calls that bring the notes and the plan up to date.
func (n *notebook) update(v arenagame.View, mem *memory) []action {
	text := map[string]string{
		"Situation": situationText(v),
		"Strategy":  strategyText(mem),
		"Advice":    adviceText(mem),
	}
	var out []action
	for _, sec := range noteSections {
		if text[sec] == "" || n.sections[sec] == text[sec] {
			continue
		}
		n.sections[sec] = text[sec]
		out = append(out, call("notes "+sec, brain.ToolUpdateNotes, map[string]any{"section": sec, "text": text[sec]}, "Notes: %s updated.", sec))
	}
	steps := planSteps(mem)
	if key := strings.Join(steps, "\n"); key != n.plan {
		n.plan = key
		list := make([]any, len(steps))
		for i, s := range steps {
			list[i] = s
		}
		out = append(out, call("plan", brain.ToolSetPlan, map[string]any{"steps": list}, "Plan: set."))
	}
	return out
}

// situationText is what changes slowly: community, standing, battles won, who is wary.
func situationText(v arenagame.View) string {
	a := v.Agent
	var b strings.Builder
	if a.Community == "" {
		b.WriteString("In no community.\n")
	} else {
		fmt.Fprintf(&b, "In %s (leader %s). Battles won: %d.\n", a.Community, a.Leader, a.BattlesWon)
	}
	var wary []string
	for _, m := range v.Members {
		if m.BadHistory || m.Trust < 0 {
			wary = append(wary, m.Name)
		}
	}
	if len(wary) > 0 {
		fmt.Fprintf(&b, "Bad history with: %s.", strings.Join(wary, ", "))
	}
	return strings.TrimSpace(b.String())
}

func strategyText(mem *memory) string {
	t := mem.t
	share := "half my energy"
	if t.commitAll {
		share = "all my energy"
	}
	fight := fmt.Sprintf("- Fight when my community's battle is open: %s (5 to %d, keeping %d), eating first if low; then report to the leader.", share, t.maxCommit, t.keepEnergy)
	if mem.noFight {
		fight = "- Stay out of battles (the person asked); tell the leader so when called."
	}
	return strings.Join([]string{
		fight,
		"- Answer who writes to or about me within 30 minutes; read the history of anyone with a bad one first.",
		fmt.Sprintf("- Below %d energy: eat, else buy the food with most energy per gold (max_price: today's), else work a farm shift.", t.hungry),
		fmt.Sprintf("- Holding no food with %d gold or more: buy two.", t.stockUpGold),
		fmt.Sprintf("- From %d energy, with no battle to join: work a shift of the best-paying job that leaves %d.", t.workMin, t.workKeep),
	}, "\n")
}

func adviceText(mem *memory) string {
	if len(mem.advice) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("I am rule-based: I keep your advice here word for word and act only on whether to fight; veto or edit my calls to steer me.\n")
	for _, a := range mem.advice[max(0, len(mem.advice)-10):] {
		fmt.Fprintf(&b, "- %s\n", strings.ReplaceAll(a, "\n", " "))
	}
	return strings.TrimSpace(b.String())
}

func planSteps(mem *memory) []string {
	fight := "Fight in my community's battles and report to the leader"
	if mem.noFight {
		fight = "Stay out of battles, as the person asked"
	}
	return []string{
		"Answer the members who write to me (history first with the wary)",
		fight,
		"Keep energy up: eat, buy food, work",
		"Earn gold by work when nothing else is due",
	}
}
