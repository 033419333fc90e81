package autopilot

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/coplayhq/coplay/agent/brain"
	st "github.com/coplayhq/coplay/game/spacetraders"
)

// notebook remembers what the autopilot last wrote, so it writes only what changed.
type notebook struct {
	sections map[string]string
	planID   string
	status   map[int]string
}

// noteSections is the order sections are written in.
var noteSections = []string{"Situation", "Strategy", "Next", "Waiting on", "Advice"}

// update returns the notebook calls that bring the notes and plan up to date.
func (n *notebook) update(w *world, mem *memory, dec decision) []action {
	var out []action
	text := map[string]string{
		"Situation":  situationText(w),
		"Strategy":   strategyText(w, mem),
		"Next":       nextText(w),
		"Waiting on": waitingText(dec),
		"Advice":     adviceText(mem),
	}
	for _, sec := range noteSections {
		if text[sec] == "" || n.sections[sec] == text[sec] {
			continue
		}
		n.sections[sec] = text[sec]
		out = append(out, call(brain.ToolUpdateNotes, map[string]any{"section": sec, "text": text[sec]},
			"Notes: %s updated.", sec))
	}
	return append(out, n.plan(w)...)
}

func situationText(w *world) string {
	var b strings.Builder
	k := w.activeContract()
	switch {
	case k != nil:
		fmt.Fprintf(&b, "Contract %s (accepted): %s; %s delivered; pays %d on fulfilment.\n",
			k.ID, describeTerms(k), delivered(k), k.Terms.Payment.OnFulfilled)
	case w.offeredContract() != nil:
		o := w.offeredContract()
		fmt.Fprintf(&b, "Contract %s offered: %s; pays %d + %d.\n", o.ID, describeTerms(o),
			o.Terms.Payment.OnAccepted, o.Terms.Payment.OnFulfilled)
	default:
		b.WriteString("No contract open.\n")
	}
	for _, s := range w.ships {
		role := "hauler and miner"
		if s.Cargo.Capacity == 0 {
			role = "scout"
		}
		fmt.Fprintf(&b, "- %s (%s) at %s\n", s.Symbol, role, s.Nav.WaypointSymbol)
	}
	return strings.TrimSpace(b.String())
}

func delivered(k *st.Contract) string {
	var parts []string
	for _, t := range k.Terms.Deliver {
		parts = append(parts, fmt.Sprintf("%d/%d", t.UnitsFulfilled, t.UnitsRequired))
	}
	return strings.Join(parts, ", ")
}

func strategyText(w *world, mem *memory) string {
	good := "the contract's good"
	if k := planContract(w); k != nil && len(k.Terms.Deliver) > 0 {
		good = k.Terms.Deliver[0].TradeSymbol
	}
	first := fmt.Sprintf("Buy %s where a market sells it for at most %d%% of what the contract pays per unit (keeping %d credits back); otherwise mine it at the nearest asteroid that yields it, surveying first.", good, int(mem.t.margin*100), mem.t.reserve)
	if mem.preferMine {
		first = fmt.Sprintf("Mine %s at the nearest asteroid that yields it, surveying first (the person prefers mining); buy only where nothing yields it.", good)
	}
	fly := "- Top up fuel at fuel markets when under 3/4; BURN when the tank stays half full, else CRUISE, else DRIFT."
	if mem.t.noBurn {
		fly = "- Top up fuel at fuel markets when under 3/4; CRUISE (never BURN: I am careful), else DRIFT."
	}
	if mem.modes.any() {
		fly += " The person asked to " + mem.modes.says() + "."
	}
	return strings.Join([]string{
		"- " + first,
		"- Sell other ore where the market buys it; jettison it when the hold needs the room.",
		"- Deliver when the hold carries what is owed or is full; fulfil when all is delivered; then negotiate the next contract.",
		fly,
		"- The probe visits markets not seen yet, to read their prices.",
	}, "\n")
}

func nextText(w *world) string {
	k := w.activeContract()
	if k == nil {
		if o := w.offeredContract(); o != nil {
			return "Accept contract " + o.ID + "."
		}
		return "Negotiate a new contract at a faction waypoint."
	}
	t := openTerm(k)
	if t == nil {
		return "Fulfil contract " + k.ID + "."
	}
	carried := 0
	for _, s := range w.ships {
		carried += s.Cargo.Count(t.TradeSymbol)
	}
	owed := t.UnitsRequired - t.UnitsFulfilled
	if carried >= owed {
		return fmt.Sprintf("Fly the %s to %s and deliver it.", t.TradeSymbol, t.DestinationSymbol)
	}
	return fmt.Sprintf("Get %d more %s, then deliver at %s.", owed-carried, t.TradeSymbol, t.DestinationSymbol)
}

func waitingText(dec decision) string {
	var lines []string
	for _, wt := range dec.waits {
		if strings.Contains(wt.why, "waits for you") {
			lines = append(lines, "- "+wt.why)
		}
	}
	if len(lines) == 0 {
		return "Nothing from the person."
	}
	return strings.Join(lines, "\n")
}

func adviceText(mem *memory) string {
	if len(mem.advice) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("I am rule-based and cannot understand language: I keep your advice here word for word and act only on a preference for mining or buying; veto or edit my calls to steer me.\n")
	from := max(0, len(mem.advice)-10)
	for _, a := range mem.advice[from:] {
		fmt.Fprintf(&b, "- %s\n", strings.ReplaceAll(a, "\n", " "))
	}
	return strings.TrimSpace(b.String())
}

// planContract is the contract the plan is about: the one being worked, else the offer,
// else the last one.
func planContract(w *world) *st.Contract {
	if k := w.activeContract(); k != nil {
		return k
	}
	if k := w.offeredContract(); k != nil {
		return k
	}
	if n := len(w.contracts); n > 0 {
		return &w.contracts[n-1]
	}
	return nil
}

// plan sets a plan per contract and moves its steps along as the contract progresses.
func (n *notebook) plan(w *world) []action {
	k := planContract(w)
	if k == nil || len(k.Terms.Deliver) == 0 {
		return nil
	}
	t := k.Terms.Deliver[0]
	var out []action
	if n.planID != k.ID {
		steps := []any{
			fmt.Sprintf("Accept contract %s (%d %s to %s)", k.ID, t.UnitsRequired, t.TradeSymbol, t.DestinationSymbol),
			fmt.Sprintf("Get %d %s: buy where cheap, else mine", t.UnitsRequired, t.TradeSymbol),
			fmt.Sprintf("Deliver %d %s at %s", t.UnitsRequired, t.TradeSymbol, t.DestinationSymbol),
			fmt.Sprintf("Fulfil contract %s", k.ID),
			"Negotiate the next contract",
		}
		out = append(out, call(brain.ToolSetPlan, map[string]any{"steps": steps}, "Plan: set for contract %s.", k.ID))
		n.planID, n.status = k.ID, map[int]string{1: "todo", 2: "todo", 3: "todo", 4: "todo", 5: "todo"}
	}
	carried := 0
	for _, s := range w.ships {
		carried += s.Cargo.Count(t.TradeSymbol)
	}
	got := t.UnitsFulfilled+carried >= t.UnitsRequired
	all := t.UnitsFulfilled >= t.UnitsRequired
	want := map[int]string{
		1: pick(k.Accepted, "done", "doing"),
		2: pick(got || all, "done", pick(k.Accepted, "doing", "todo")),
		3: pick(all, "done", pick(got || t.UnitsFulfilled > 0, "doing", "todo")),
		4: pick(k.Fulfilled, "done", pick(all, "doing", "todo")),
		5: pick(k.Fulfilled, "doing", "todo"),
	}
	for _, id := range slices.Sorted(maps.Keys(want)) {
		if n.status[id] != want[id] {
			n.status[id] = want[id]
			out = append(out, call(brain.ToolUpdateStep, map[string]any{"id": id, "status": want[id]},
				"Plan: step %d is %s.", id, want[id]))
		}
	}
	return out
}

func pick(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}
