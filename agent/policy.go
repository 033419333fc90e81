package agent

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/coplayhq/coplay/agent/rules"
	"github.com/coplayhq/coplay/game"
)

// RuleStore is where a session keeps its approval rules, one line each.
// *notes.Session satisfies it.
type RuleStore interface {
	RuleLines() ([]string, error)
	AddRuleLine(line string) error
	RemoveRuleLine(line string) (bool, error)
}

// policy is a seat's side of the gate: its approval rules (the fixed ones and the
// session's, kept in the RuleStore) and the approval mode, which decide a call before
// a person is asked. Changing the rules returns the events that say so; the Runner
// emits them. The Run goroutine owns it; Send reads the unreadable rules under mu.
type policy struct {
	mu         sync.Mutex
	book       ruleBook
	store      RuleStore
	approveAll bool   // --approve all: an Act call no rule covers runs without asking
	seat       string // where this runner's calls wait in the gate: the session's name
}

// newPolicy reads the fixed rules (checked against the catalogue: a bad one is an
// error) and the session's stored rule lines. A stored line that does not parse
// (damage, or a form an earlier version wrote) is not dropped quietly: it stays in the
// notebook, the start says so, and the run fails safe until the person removes it or
// adds it again (ruleBook.failSafe).
func newPolicy(store RuleStore, fixed []FixedRule, tools []game.Tool, approveAll bool, seat string) (*policy, error) {
	p := &policy{store: store, approveAll: approveAll, seat: seat}
	b := &p.book
	for _, f := range fixed {
		rule, err := rules.ParseChecked(f.Line, tools)
		if err != nil {
			return nil, fmt.Errorf("approval rule %q from %s: %w", f.Line, f.From, err)
		}
		b.fixed = append(b.fixed, rule)
		b.fixedBy = append(b.fixedBy, f.From)
	}
	lines, err := store.RuleLines()
	if err != nil {
		return nil, fmt.Errorf("reading the session's approval rules: %w", err)
	}
	for _, l := range lines {
		rule, warning, err := readRule(l, tools)
		if err != nil {
			action, tool := rules.Salvage(l)
			b.unreadable = append(b.unreadable, unreadableRule{line: l, err: err, action: action, tool: tool})
			continue
		}
		if warning != "" {
			b.warnings = append(b.warnings, warning)
		}
		if i := b.sessionIndex(rule.String()); i >= 0 {
			b.stored[i] = append(b.stored[i], l)
			continue
		}
		b.session = append(b.session, rule)
		b.stored = append(b.stored, []string{l})
	}
	for _, u := range b.unreadable {
		b.warnings = append(b.warnings, fmt.Sprintf(
			"the session's rule %q cannot be read (%v): every Act call asks, even under --approve all, until you remove it (unrule %s) or add it again",
			u.line, u.err, strconv.Quote(u.line)))
	}
	return p, nil
}

// start is what the run's start says of the rules: the warnings about stored rules,
// and the session's rules (a resumed screen or consumer learns them from it).
func (p *policy) start() (warnings, session []Event) {
	for _, w := range p.book.warnings {
		warnings = append(warnings, errorEvent("%s", w))
	}
	if len(p.book.session) > 0 {
		session = []Event{{Type: EventRules, Text: "the session's rules: " + strings.Join(p.book.lines(), "; "), Rules: p.book.lines()}}
	}
	return warnings, session
}

// decide returns the automatic decision for a valid call, or nil when a person decides.
// The rules decide first (deny beats ask beats allow; a rule with a condition applies
// only on the call's dry run when it predicts success); an Act call no rule covers runs
// under --approve all and otherwise asks; an ask rule asks even under --approve all.
// Read and Note calls run unless a deny rule covers them. While a stored rule cannot be
// read, calls it may have held back ask (ruleBook.failSafe).
func (p *policy) decide(call Call, kind game.Kind, args json.RawMessage) *Decision {
	rule, ok := p.book.set().Decide(rules.Call{Tool: call.Tool, Args: args, Sim: call.Simulation})
	if ok && rule.Action == rules.Deny {
		return ruleDecision(call.ID, rule)
	}
	if p.book.failSafe(call.Tool, kind) {
		return nil // a stored rule cannot be read: the person decides (rulebook.go)
	}
	if kind != game.Act {
		return &Decision{CallID: call.ID, Decision: Auto, By: "policy"}
	}
	if ok {
		return ruleDecision(call.ID, rule) // nil for ask
	}
	if p.approveAll {
		return &Decision{CallID: call.ID, Decision: Approve, By: "policy"}
	}
	return nil
}

// conditional reports whether a rule with conditions could cover the tool.
func (p *policy) conditional(tool string) bool { return p.book.conditional(tool) }

// failSafeText says why calls ask while a stored rule cannot be read; "" when none.
func (p *policy) failSafeText() string { return p.book.failSafeText() }

// unreadable reports whether text names an unreadable stored rule line (Send's check).
func (p *policy) unreadable(text string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.book.unreadableIndex(text) >= 0
}

// host returns the rule that decides a game's request of the host (rules.Elicitation
// or rules.Sampling) from server, whether one does, and whether the request waits for
// the person. Only rules naming the request exactly apply: "allow *" is about the
// model's calls, not about a server's questions. A rule decides (ask always waits;
// allow and deny never do), else the approval mode; while a stored rule cannot be read,
// everything but a deny waits: the lost rule may have named the request.
func (p *policy) host(kind, server, message string) (rule rules.Rule, ruled, needsOK bool) {
	if set := p.book.set().Host(kind); len(set) > 0 {
		args := map[string]string{"server": server}
		if kind == rules.Elicitation {
			args["message"] = message
		}
		raw, _ := json.Marshal(args)
		rule, ruled = set.Decide(rules.Call{Tool: kind, Args: raw})
	}
	switch {
	case ruled && rule.Action == rules.Deny:
		needsOK = false
	case p.book.failSafe("", game.Act):
		needsOK = true
	case ruled:
		needsOK = rule.Action == rules.Ask
	default:
		needsOK = !p.approveAll
	}
	return rule, ruled, needsOK
}

// add adds a session rule (checked by Send) and keeps it in the notebook. It applies to
// calls decided from now on. An unreadable stored line that is an older form of this
// rule is replaced by it.
func (p *policy) add(rule rules.Rule) []Event {
	b := &p.book
	line := rule.String()
	in := b.sessionIndex(line) >= 0
	if !in {
		if err := p.store.AddRuleLine(line); err != nil {
			return []Event{errorEvent("rule %s: saving it in the session: %v", line, err)}
		}
		b.session = append(b.session, rule)
		b.stored = append(b.stored, []string{line})
	}
	gone, evs := p.dropUnreadable(rule)
	switch {
	case len(gone) > 0:
		return append(evs, Event{Type: EventRules, Text: fmt.Sprintf("rule added: %s (in place of the unreadable %s%s)",
			line, strings.Join(gone, ", "), p.stillFailSafe()), Rules: b.lines()})
	case in:
		return append(evs, Event{Type: EventRules, Text: "rule already in force: " + line, Rules: b.lines()})
	}
	return append(evs, Event{Type: EventRules, Text: "rule added: " + line, Rules: b.lines()})
}

// dropUnreadable removes from the notebook the unreadable stored lines that are an
// older form of rule (rules.Rule.Forms), and returns them, quoted.
func (p *policy) dropUnreadable(rule rules.Rule) (gone []string, evs []Event) {
	for _, form := range rule.Forms() {
		i := slices.IndexFunc(p.book.unreadable, func(u unreadableRule) bool { return u.line == form })
		if i < 0 {
			continue
		}
		if _, err := p.store.RemoveRuleLine(form); err != nil {
			evs = append(evs, errorEvent("rule %s: removing its unreadable older form %q from the session: %v", rule, form, err))
			continue
		}
		p.mu.Lock()
		p.book.unreadable = slices.Delete(p.book.unreadable, i, i+1)
		p.mu.Unlock()
		gone = append(gone, strconv.Quote(form))
	}
	return gone, evs
}

// stillFailSafe tells, after an unreadable rule went, whether calls still ask for it.
func (p *policy) stillFailSafe() string {
	if len(p.book.unreadable) == 0 {
		return "; calls are decided by the rules again"
	}
	return fmt.Sprintf("; %d unreadable rule(s) left, every Act call still asks", len(p.book.unreadable))
}

// removeUnreadable removes the unreadable stored line that text names (see
// ruleBook.unreadableIndex).
func (p *policy) removeUnreadable(text string) []Event {
	p.mu.Lock()
	i := p.book.unreadableIndex(text)
	p.mu.Unlock()
	if i < 0 { // an add of its newer form removed it since Send checked
		return []Event{errorEvent("unrule %q: the session has no such rule (its rules: %v)", text, p.book.lines())}
	}
	line := p.book.unreadable[i].line
	if _, err := p.store.RemoveRuleLine(line); err != nil {
		return []Event{errorEvent("unrule %q: removing it from the session: %v", line, err)}
	}
	p.mu.Lock()
	p.book.unreadable = slices.Delete(p.book.unreadable, i, i+1)
	p.mu.Unlock()
	return []Event{{Type: EventRules, Text: fmt.Sprintf("unreadable rule removed: %q%s", line, p.stillFailSafe()), Rules: p.book.lines()}}
}

// remove removes a session rule, matched on its canonical form, with every line the
// notebook holds for it (an older form too), and an unreadable stored line that is an
// older form of it.
func (p *policy) remove(rule rules.Rule) []Event {
	b := &p.book
	line := rule.String()
	i := b.sessionIndex(line)
	if i >= 0 {
		for _, l := range b.stored[i] {
			if _, err := p.store.RemoveRuleLine(l); err != nil {
				return []Event{errorEvent("unrule %s: removing it from the session: %v", line, err)}
			}
		}
		b.session = slices.Delete(b.session, i, i+1)
		b.stored = slices.Delete(b.stored, i, i+1)
	}
	gone, evs := p.dropUnreadable(rule)
	switch {
	case len(gone) > 0:
		return append(evs, Event{Type: EventRules, Text: fmt.Sprintf("rule removed: %s (its unreadable form %s too%s)",
			line, strings.Join(gone, ", "), p.stillFailSafe()), Rules: b.lines()})
	case i >= 0:
		return append(evs, Event{Type: EventRules, Text: "rule removed: " + line, Rules: b.lines()})
	}
	if from := b.fixedFrom(line); from != "" {
		return append(evs, errorEvent("unrule %s: this rule comes from %s, not from the session; change it there", line, from))
	}
	return append(evs, errorEvent("unrule %s: the session has no such rule (its rules: %v)", line, b.lines()))
}

// errorEvent is a problem to tell the person, as an event a part returns.
func errorEvent(format string, args ...any) Event {
	return Event{Type: EventError, Text: fmt.Sprintf(format, args...)}
}
