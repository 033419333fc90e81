package agent_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
)

// TestUnreadableStoredRuleFailsSafe: a session whose notebook holds a rule line that no
// longer parses (here the form earlier versions wrote for a deny whose value holds a
// newline) resumes failing safe: the start names the rule and says what happens; under
// --approve all, and with an allow rule covering it, every Act call waits for the
// person; a Read call the lost rule cannot have named runs; a deny still denies. The
// person's unrule, with the rule as shown, ends it and the next calls run by policy.
func TestUnreadableStoredRuleFailsSafe(t *testing.T) {
	t.Parallel()
	const lost = "deny orbit_ship(shipSymbol=S-1\nB)"
	g := newShipGame()
	sess := newSession(t)
	for _, l := range []string{lost, "allow dock_ship", "deny set_flight_mode: keep the mode"} {
		if err := sess.AddRuleLine(l); err != nil {
			t.Fatal(err)
		}
	}
	ship := `{"shipSymbol":"S-1"}`
	b := &scriptBrain{replies: []scripted{
		say("Go.", "view_ship", ship, "set_flight_mode", `{"shipSymbol":"S-1","flightMode":"BURN"}`, "orbit_ship", ship, "dock_ship", ship),
		say("Again.", "orbit_ship", ship),
	}}
	h := startGame(t, g, b, sess, func(c *agent.Config) { c.ApproveAll = true })
	warn := h.next("the warning", is(agent.EventError))
	for _, want := range []string{strconv.Quote(lost), "cannot be read", "every Act call asks, even under --approve all", "unrule"} {
		if !strings.Contains(warn.Text, want) {
			t.Fatalf("start warning %q does not say %q", warn.Text, want)
		}
	}
	if ev := h.next("rules", is(agent.EventRules)); !slices.Equal(ev.Rules, []string{"allow dock_ship", "deny set_flight_mode: keep the mode"}) {
		t.Fatalf("rules at start = %q", ev.Rules)
	}
	asked, decided := map[string]bool{}, map[string]string{}
	tools := map[string]string{} // call id -> tool
	st := h.next("deciding", func(ev agent.Event) bool {
		switch ev.Type {
		case agent.EventProposed:
			asked[ev.Call.Tool], tools[ev.Call.ID] = ev.Call.NeedsOK, ev.Call.Tool
		case agent.EventDecision:
			decided[tools[ev.Decision.CallID]] = string(ev.Decision.Decision) + " by " + ev.Decision.By
		}
		return ev.Type == agent.EventState && ev.State == agent.Deciding
	})
	if asked["view_ship"] || asked["set_flight_mode"] || !asked["orbit_ship"] || !asked["dock_ship"] {
		t.Fatalf("needs_ok: %v; want orbit_ship and dock_ship asking, nothing else", asked)
	}
	if decided["view_ship"] != "auto by policy" || decided["set_flight_mode"] != "veto by rule" || len(decided) != 2 {
		t.Fatalf("decisions %v; want the Read call by policy and the denied call by its rule, nothing else", decided)
	}
	if !strings.Contains(st.Text, strconv.Quote(lost)) || !strings.Contains(st.Text, "cannot be read") {
		t.Fatalf("waiting state %q does not say why", st.Text)
	}
	if got := g.callLog(); !slices.Equal(got, []string{"view_ship " + ship}) {
		t.Fatalf("the game received %v while the calls wait; want the Read call only", got)
	}

	// The rule as the warning shows it, quoted with its escape, removes it.
	h.send(agent.Command{Cmd: agent.CmdUnrule, Rule: strconv.Quote(lost)})
	if ev := h.next("removed", is(agent.EventRules)); !strings.Contains(ev.Text, "unreadable rule removed") || !strings.Contains(ev.Text, "decided by the rules again") {
		t.Fatalf("unrule said %q", ev.Text)
	}
	lines, err := sess.RuleLines()
	if err != nil || slices.Contains(lines, lost) {
		t.Fatalf("the notebook still holds the rule: %q %v", lines, err)
	}
	// The two calls that wait still wait for their decision; the next turn's runs by policy.
	for _, tool := range []string{"orbit_ship", "dock_ship"} {
		h.send(agent.Command{Cmd: agent.CmdDecide, CallID: idOf(t, h, tool), Decision: agent.Veto, Reason: "not now"})
	}
	h.send(agent.Command{Cmd: agent.CmdAdvise, Text: "again"})
	again := h.proposed("orbit_ship")
	if d := h.next("decision", is(agent.EventDecision)).Decision; again.NeedsOK || d.CallID != again.ID || d.By != "policy" || d.Decision != agent.Approve {
		t.Fatalf("after unrule: needs_ok %v, decision %+v; want approve by policy", again.NeedsOK, d)
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}

// idOf is the id of the first proposal of tool the harness has seen.
func idOf(t *testing.T, h *harness, tool string) string {
	t.Helper()
	for _, ev := range h.seen {
		if ev.Type == agent.EventProposed && ev.Call.Tool == tool {
			return ev.Call.ID
		}
	}
	t.Fatalf("no proposal of %s seen", tool)
	return ""
}

// TestReAddingAnUnreadableRuleInItsNewFormRestoresIt: the rule that an earlier version
// stored unreadably, added again as typed (its value quoted), takes its place: the
// notebook then holds the new form only, the rule denies, and calls are decided by the
// rules again. After a restart it still denies.
func TestReAddingAnUnreadableRuleInItsNewFormRestoresIt(t *testing.T) {
	t.Parallel()
	const old = "deny orbit_ship(shipSymbol=S-1\x00)"
	const typed = `deny orbit_ship(shipSymbol="S-1\000")`
	const canonical = `deny orbit_ship(shipSymbol="S-1\x00")`
	g := newShipGame()
	sess := newSession(t)
	if err := sess.AddRuleLine(old); err != nil {
		t.Fatal(err)
	}
	h := startGame(t, g, &scriptBrain{}, sess, func(c *agent.Config) { c.ApproveAll = true })
	h.next("the warning", is(agent.EventError))
	h.next("idle", isState(agent.Idle))
	h.send(agent.Command{Cmd: agent.CmdRule, Rule: typed})
	ev := h.next("added", is(agent.EventRules))
	if !slices.Equal(ev.Rules, []string{canonical}) || !strings.Contains(ev.Text, "in place of the unreadable") || !strings.Contains(ev.Text, "decided by the rules again") {
		t.Fatalf("rule added: %q %q", ev.Text, ev.Rules)
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
	if lines, err := sess.RuleLines(); err != nil || !slices.Equal(lines, []string{canonical}) {
		t.Fatalf("the notebook holds %q (%v), want the new form only", lines, err)
	}

	b := &scriptBrain{replies: []scripted{say("Go.", "orbit_ship", `{"shipSymbol":"S-1\u0000"}`, "dock_ship", `{"shipSymbol":"S-1"}`)}}
	h2 := startGame(t, g, b, sess, func(c *agent.Config) { c.ApproveAll = true })
	orbit := h2.proposed("orbit_ship")
	if d := h2.next("decision", is(agent.EventDecision)).Decision; d.CallID != orbit.ID || d.Decision != agent.Veto || d.Rule != canonical {
		t.Fatalf("after a restart, orbit_ship: %+v, want a veto by %s", d, canonical)
	}
	dock := h2.proposed("dock_ship")
	if d := h2.next("decision", is(agent.EventDecision)).Decision; d.CallID != dock.ID || d.Decision != agent.Approve || d.By != "policy" {
		t.Fatalf("after a restart, dock_ship: %+v, want approve by policy", d)
	}
	for _, ev := range h2.seen {
		if ev.Type == agent.EventError {
			t.Errorf("error at restart: %s", ev.Text)
		}
	}
	if err := h2.finish(); err != nil {
		t.Fatal(err)
	}
}

// TestUnruleRemovesTheFormTheNotebookHolds: a rule stored in the form an earlier
// version wrote (a long number in full) reads as the same rule; unrule, typed any way
// that parses to it, removes that stored line, so it does not come back on resume.
func TestUnruleRemovesTheFormTheNotebookHolds(t *testing.T) {
	t.Parallel()
	const stored = "allow navigate_ship if fuel <= 10000000000000000000000"
	sess := newSession(t)
	if err := sess.AddRuleLine(stored); err != nil {
		t.Fatal(err)
	}
	h := startGame(t, newShipGame(), &scriptBrain{}, sess, nil)
	if ev := h.next("rules", is(agent.EventRules)); !slices.Equal(ev.Rules, []string{"allow navigate_ship if fuel <= 1e+22"}) {
		t.Fatalf("rules at start = %q", ev.Rules)
	}
	h.send(agent.Command{Cmd: agent.CmdUnrule, Rule: "allow navigate_ship if fuel<=1e22"})
	if ev := h.next("removed", is(agent.EventRules)); ev.Text != "rule removed: allow navigate_ship if fuel <= 1e+22" || len(ev.Rules) != 0 {
		t.Fatalf("unrule: %q %q", ev.Text, ev.Rules)
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
	if lines, err := sess.RuleLines(); err != nil || len(lines) != 0 {
		t.Fatalf("the notebook still holds %q (%v)", lines, err)
	}
}

// TestARuleHoldingASecretIsRefused: rules are kept in the notebook, where a secret is
// stored redacted; a rule holding one would come back as another rule, so it is
// refused when added, naming the secret and not showing it.
func TestARuleHoldingASecretIsRefused(t *testing.T) {
	t.Parallel()
	const key = "sk-test-0123456789abcdef0123456789"
	h := startGame(t, newShipGame(), &scriptBrain{}, nil, func(c *agent.Config) { c.Secrets = []string{key} })
	h.next("idle", isState(agent.Idle))
	err := h.r.Send(agent.Command{Cmd: agent.CmdRule, Rule: "deny orbit_ship(shipSymbol=" + key + ")"})
	if err == nil || !strings.Contains(err.Error(), "holds the value of") || strings.Contains(err.Error(), key) {
		t.Fatalf("Send: %v", err)
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}

// TestStoredRuleOnAnUnknownEffectFailsSafe: a rule an earlier version stored, whose
// condition names a number the dry run never predicts ("fule"), could never apply; a
// deny it meant would be lost. The run fails safe as for a line that does not read:
// the start names the field and the nearest one, and under --approve all an Act call
// waits for the person.
func TestStoredRuleOnAnUnknownEffectFailsSafe(t *testing.T) {
	t.Parallel()
	const typo = "deny navigate_ship if fule > 100"
	sess := newSession(t)
	if err := sess.AddRuleLine(typo); err != nil {
		t.Fatal(err)
	}
	b := &scriptBrain{replies: []scripted{say("Go.", "orbit_ship", `{"shipSymbol":"S-1"}`)}}
	h := startGame(t, newShipGame(), b, sess, func(c *agent.Config) { c.ApproveAll = true })
	warn := h.next("the warning", is(agent.EventError))
	for _, want := range []string{strconv.Quote(typo), `predicts no "fule"; did you mean fuel?`, "every Act call asks"} {
		if !strings.Contains(warn.Text, want) {
			t.Fatalf("start warning %q does not say %q", warn.Text, want)
		}
	}
	if c := h.proposed("orbit_ship"); !c.NeedsOK {
		t.Fatal("an Act call ran by policy while a stored rule cannot apply")
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}
