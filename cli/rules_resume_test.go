package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/llmtest"
	"github.com/coplayhq/coplay/notes"
)

// eventsOf returns the events of a type.
func eventsOf(evs []map[string]any, typ string) []map[string]any {
	var out []map[string]any
	for _, ev := range evs {
		if ev["type"] == typ {
			out = append(out, ev)
		}
	}
	return out
}

// TestDenyRuleWithANewlineSurvivesResume is issue 34 through the binary: a deny rule
// whose value holds a newline (a glob that matches every ship symbol without one) is
// added headless, and after --resume under --approve all it still denies the call. A
// session holding the form earlier versions stored for it (which does not parse)
// resumes asking for the Act call, even under --approve all, and says why.
func TestDenyRuleWithANewlineSurvivesResume(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "coplay.db")
	const rule = `deny orbit_ship(shipSymbol="[^\n]*"): stay docked`
	// Answers enough to outlast the rule's arrival: a script that is over ends the run.
	ready := make([]llmtest.Step, 30)
	for i := range ready {
		ready[i] = llmtest.Step{Text: "Ready."}
	}
	quiet := writeCassette(t, dir, llmtest.Cassette{Name: "quiet", Steps: ready})
	// The rule is sent once the run has started, and the run is stopped once it has
	// played its step and taken the rule: no step limit races stdin.
	var added []string
	sent, played, stopped := false, false, false
	headlessRun(t, []string{"--data", db, "--approve", "all", "--brain", "script:" + quiet}, func(ev agent.Event, send func(agent.Command)) {
		if !sent {
			sent = true
			send(agent.Command{Cmd: agent.CmdRule, Rule: rule})
		}
		if ev.Type == agent.EventRules && strings.HasPrefix(ev.Text, "rule added") {
			added = append(added, ev.Text)
		}
		if ev.Type == agent.EventError {
			t.Errorf("error: %s", ev.Text)
		}
		if ev.Type == agent.EventText {
			played = true // the step's answer is in (with --approve all, play goes on after it)
		}
		if !stopped && len(added) > 0 && played {
			stopped = true
			send(agent.Command{Cmd: agent.CmdStop})
		}
	})
	if len(added) != 1 || added[0] != "rule added: "+rule {
		t.Fatalf("rule command answered %v", added)
	}

	orbit := writeCassette(t, dir, llmtest.Cassette{Name: "orbit", Steps: []llmtest.Step{
		{Calls: []llmtest.Call{scall("orbit_ship", `{"shipSymbol":"`+relShip+`"}`)}}, {Text: "Done."}}})
	evs := headlessLines(t, "", "--data", db, "--resume", "--approve", "all", "--brain", "script:"+orbit, "--steps", "1")
	if errs := eventsOf(evs, "error"); len(errs) > 0 {
		t.Fatalf("resume reported %v", errs)
	}
	if rc := eventsOf(evs, "rules_changed"); len(rc) == 0 || !strings.Contains(rc[0]["text"].(string), rule) {
		t.Fatalf("resumed rules: %v", rc)
	}
	ds := eventsOf(evs, "decision")
	if len(ds) != 1 {
		t.Fatalf("decisions %v", ds)
	}
	if d := ds[0]["decision"].(map[string]any); d["decision"] != "veto" || d["by"] != "rule" || d["rule"] != rule {
		t.Fatalf("after --resume the orbit was decided %v, want a veto by %s", d, rule)
	}

	// The form an earlier version stored for the same rule: the newline written raw.
	old := strings.Replace(rule, `"[^\n]*"`, "[^\n]*", 1)
	book, err := notes.Open(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := book.Session("")
	if err == nil {
		if _, err = sess.RemoveRuleLine(rule); err == nil {
			err = sess.AddRuleLine(old)
		}
	}
	book.Close()
	if err != nil {
		t.Fatal(err)
	}
	evs = headlessLines(t, "", "--data", db, "--resume", "--approve", "all", "--brain", "script:"+orbit, "--steps", "1")
	errs := eventsOf(evs, "error")
	if len(errs) == 0 || !strings.Contains(errs[0]["text"].(string), jsonString(old)) ||
		!strings.Contains(errs[0]["text"].(string), "every Act call asks, even under --approve all") {
		t.Fatalf("resume with an unreadable rule reported %v", errs)
	}
	var asked bool
	for _, p := range eventsOf(evs, "tool_proposed") {
		if c := p["call"].(map[string]any); c["tool"] == "orbit_ship" {
			asked = c["needs_ok"] == true
		}
	}
	if !asked {
		t.Fatalf("the orbit did not wait for the person; decisions %v", eventsOf(evs, "decision"))
	}
	for _, ev := range eventsOf(evs, "tool_result") {
		if ev["call"].(map[string]any)["tool"] == "orbit_ship" {
			t.Fatalf("the orbit ran: %v", ev)
		}
	}
	var why string
	for _, st := range eventsOf(evs, "state") {
		if st["state"] == "waiting_for_decision" {
			why, _ = st["text"].(string)
		}
	}
	if !strings.Contains(why, "cannot be read") || !strings.Contains(why, jsonString(old)) {
		t.Fatalf("waiting state says %q, not why", why)
	}
}

// jsonString is s as a JSON (and Go) string literal.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
