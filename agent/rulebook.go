package agent

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/coplayhq/coplay/agent/rules"
	"github.com/coplayhq/coplay/game"
)

// FixedRule is an approval rule from outside the session (config.toml, a profile): it
// applies to every call of the run and is never written into the session, and
// commands cannot remove it.
type FixedRule struct {
	Line string // the rule as written
	From string // where it comes from, for messages: "config.toml", "profile looker/fast"
}

// ruleBook is the runner's approval rules: the fixed ones and the session's. It is
// the policy's (policy.go), changed on the Run goroutine after New; only Commands
// change it (never the model, the game or the notebook). unreadable is also read by
// Send's check, under policy.mu.
type ruleBook struct {
	fixed   []rules.Rule
	fixedBy []string // fixedBy[i] is where fixed[i] comes from
	session []rules.Rule
	// stored[i] is every line the notebook holds for session[i]: its canonical form,
	// and an older form an earlier version wrote (removing the rule removes them all).
	stored [][]string
	// unreadable are the session's stored rule lines that do not read back. While there
	// is one the run fails safe (failSafe): what it said is unknown, and a deny or ask
	// that is lost must not let a call run that the person held back.
	unreadable []unreadableRule
	warnings   []string // what the start reports about the stored rules
}

// unreadableRule is a stored session rule line that does not parse, and what can be
// told of it.
type unreadableRule struct {
	line   string
	err    error
	action rules.Action // rules.Salvage's reading: "" unknown
	tool   string       // "" unknown: it could have covered any tool
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

// failSafe reports whether a call of this tool and kind must wait for the person
// because a stored rule could not be read: every Act call (the lost rule may have
// been a deny or an ask, and --approve all or an allow rule would otherwise run it),
// and a Read or Note call that the lost rule may have denied (its tool reads as one
// matching, or does not read at all; a lost allow never held a call back).
func (b *ruleBook) failSafe(tool string, kind game.Kind) bool {
	if len(b.unreadable) == 0 {
		return false
	}
	if kind == game.Act {
		return true
	}
	for _, u := range b.unreadable {
		if u.action == rules.Allow {
			continue
		}
		if u.tool == "" {
			return true
		}
		if m, _ := path.Match(u.tool, tool); m {
			return true
		}
	}
	return false
}

// failSafeText says why calls ask while a stored rule cannot be read, naming the rules
// and the way out; "" when every stored rule reads.
func (b *ruleBook) failSafeText() string {
	if len(b.unreadable) == 0 {
		return ""
	}
	names := make([]string, len(b.unreadable))
	for i, u := range b.unreadable {
		names[i] = strconv.Quote(u.line)
	}
	return fmt.Sprintf("the session's rule %s cannot be read, so every Act call asks, even under --approve all, until you remove it (unrule with the rule as shown) or add it again",
		strings.Join(names, ", "))
}

// unreadableIndex returns the index of the unreadable stored line that text names, or
// -1: the line itself, or as shown in messages (quoted, with Go's escapes, the quotes
// left off or not).
func (b *ruleBook) unreadableIndex(text string) int {
	for i, u := range b.unreadable {
		shown := strconv.Quote(u.line)
		if text == u.line || text == shown || text == shown[1:len(shown)-1] {
			return i
		}
	}
	return -1
}

// readRule is the one reading of a stored session rule line: nil error for a rule that
// parses. A rule that parses but no longer fits the catalogue (its tool is gone, an
// argument renamed) still applies as written: it means what the person set, and the
// warning says it may never match.
func readRule(line string, tools []game.Tool) (rules.Rule, string, error) {
	rule, err := rules.Parse(line)
	if err != nil {
		return rule, "", err
	}
	if tool := rule.Tool; tool == rules.Elicitation || tool == rules.Sampling {
		tools = rules.HostTools
	}
	if err := rule.CheckEffects(tools); err != nil {
		// A condition on a number the dry run never predicts: an earlier version took
		// it, yet it can never apply, and a deny or ask it meant would be lost. The run
		// fails safe, as for a line that does not read, until the person fixes it.
		return rule, "", err
	}
	if err := rule.Check(tools); err != nil {
		return rule, fmt.Sprintf("the session's rule %q still applies as written, but may never match: %v", line, err), nil
	}
	return rule, "", nil
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
