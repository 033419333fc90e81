package agent

import (
	"fmt"
	"path"
	"slices"

	"github.com/coplayhq/coplay/agent/rules"
)

// FixedRule is an approval rule from outside the session (config.toml, a profile): it
// applies to every call of the run and is never written into the session, and
// commands cannot remove it.
type FixedRule struct {
	Line string // the rule as written
	From string // where it comes from, for messages: "config.toml", "profile looker/fast"
}

// ruleBook is the runner's approval rules: the fixed ones and the session's. It is
// owned by the Run goroutine after New; only Commands change it (never the model, the
// game or the notebook).
type ruleBook struct {
	fixed    []rules.Rule
	fixedBy  []string // fixedBy[i] is where fixed[i] comes from
	session  []rules.Rule
	warnings []string // session rules that could not be read back, reported at start
}

// set is every rule in force.
func (b *ruleBook) set() rules.Set {
	return append(slices.Clone(b.fixed), b.session...)
}

// lines is the session's rules in canonical form (what rules_changed lists).
func (b *ruleBook) lines() []string {
	out := make([]string, len(b.session))
	for i, r := range b.session {
		out[i] = r.String()
	}
	return out
}

// conditional reports whether a rule with conditions could cover the tool: such a
// call is decided on a dry run of the world as it is when the call is about to run.
func (b *ruleBook) conditional(tool string) bool {
	for _, r := range b.set() {
		if m, _ := path.Match(r.Tool, tool); m && len(r.Conds) > 0 {
			return true
		}
	}
	return false
}

// sessionIndex returns the index of the session rule with this canonical line, or -1.
func (b *ruleBook) sessionIndex(line string) int {
	for i, r := range b.session {
		if r.String() == line {
			return i
		}
	}
	return -1
}

// fixedFrom returns where a fixed rule with this canonical line comes from, or "".
func (b *ruleBook) fixedFrom(line string) string {
	for i, r := range b.fixed {
		if r.String() == line {
			return b.fixedBy[i]
		}
	}
	return ""
}

// loadRules reads the fixed rules (checked against the catalogue: a bad one stops New
// with its error) and the session's stored rule lines (one that no longer reads, say
// because its tool is gone, is left out with a warning; it stays in the notebook).
func (r *Runner) loadRules() error {
	tools := r.registry().Tools()
	for _, f := range r.cfg.Rules {
		rule, err := rules.ParseChecked(f.Line, tools)
		if err != nil {
			return fmt.Errorf("approval rule %q from %s: %w", f.Line, f.From, err)
		}
		r.rules.fixed = append(r.rules.fixed, rule)
		r.rules.fixedBy = append(r.rules.fixedBy, f.From)
	}
	lines, err := r.cfg.Session.RuleLines()
	if err != nil {
		return fmt.Errorf("reading the session's approval rules: %w", err)
	}
	for _, l := range lines {
		rule, err := rules.ParseChecked(l, tools)
		if err != nil {
			r.rules.warnings = append(r.rules.warnings, fmt.Sprintf("the session's rule %q is not applied: %v", l, err))
			continue
		}
		if r.rules.sessionIndex(rule.String()) < 0 {
			r.rules.session = append(r.rules.session, rule)
		}
	}
	return nil
}

// addRule adds a session rule (checked by Send), keeps it in the notebook and tells
// the reader. It applies to calls decided from now on.
func (r *Runner) addRule(rule rules.Rule) {
	line := rule.String()
	if r.rules.sessionIndex(line) >= 0 {
		r.emit(Event{Type: EventRules, Text: "rule already in force: " + line, Rules: r.rules.lines()})
		return
	}
	if err := r.cfg.Session.AddRuleLine(line); err != nil {
		r.emitError("rule %s: saving it in the session: %v", line, err)
		return
	}
	r.rules.session = append(r.rules.session, rule)
	r.emit(Event{Type: EventRules, Text: "rule added: " + line, Rules: r.rules.lines()})
}

// removeRule removes a session rule, matched on its canonical form.
func (r *Runner) removeRule(rule rules.Rule) {
	line := rule.String()
	i := r.rules.sessionIndex(line)
	if i < 0 {
		if from := r.rules.fixedFrom(line); from != "" {
			r.emitError("unrule %s: this rule comes from %s, not from the session; change it there", line, from)
			return
		}
		r.emitError("unrule %s: the session has no such rule (its rules: %v)", line, r.rules.lines())
		return
	}
	if _, err := r.cfg.Session.RemoveRuleLine(line); err != nil {
		r.emitError("unrule %s: removing it from the session: %v", line, err)
		return
	}
	r.rules.session = slices.Delete(r.rules.session, i, i+1)
	r.emit(Event{Type: EventRules, Text: "rule removed: " + line, Rules: r.rules.lines()})
}

// ruleDecision is the decision a rule makes about a call, or nil when no rule applies.
func ruleDecision(id string, rule rules.Rule) *Decision {
	d := &Decision{CallID: id, By: "rule", Rule: rule.String()}
	switch rule.Action {
	case rules.Deny:
		d.Decision = Veto
		d.Reason = rule.Reason
		if d.Reason == "" {
			d.Reason = rule.String()
		}
	case rules.Allow:
		d.Decision = Approve
	default:
		return nil // ask: the person decides
	}
	return d
}
