// Package rules is coplay's approval rules: one line each, over a tool, its arguments
// and the outcome its dry run predicts.
//
//	allow|ask|deny TOOL[(FIELD=GLOB, ...)] [if EFFECT OP NUMBER [and ...]] [: REASON]
//
//	allow orbit_ship
//	allow set_flight_mode(flightMode=CRUISE)
//	allow navigate_ship if fuel <= 100
//	allow purchase_cargo if cost <= 5000
//	deny jettison_cargo: never throw cargo away
//
// Precedence does not depend on order: deny beats ask beats allow. A rule with
// conditions applies only when the call's dry run predicts success and reports every
// effect it names; otherwise it does not apply and the call asks. Rules come only from
// the person (the screen, headless commands, config.toml, profiles): nothing a model or
// a game says reaches this package.
package rules

import (
	"fmt"
	"strconv"
	"strings"
)

// Action is what a rule does with the calls it matches.
type Action string

// Actions, weakest first.
const (
	Allow Action = "allow"
	Ask   Action = "ask"
	Deny  Action = "deny"
)

// strength orders actions for precedence: deny beats ask beats allow.
func (a Action) strength() int {
	switch a {
	case Deny:
		return 3
	case Ask:
		return 2
	case Allow:
		return 1
	}
	return 0
}

// Op compares a predicted effect with a number.
type Op string

// Comparison operators.
const (
	LT Op = "<"
	LE Op = "<="
	GT Op = ">"
	GE Op = ">="
	EQ Op = "="
	NE Op = "!="
)

func (o Op) holds(a, b float64) bool {
	switch o {
	case LT:
		return a < b
	case LE:
		return a <= b
	case GT:
		return a > b
	case GE:
		return a >= b
	case EQ:
		return a == b
	case NE:
		return a != b
	}
	return false
}

// ArgMatch requires an argument (FIELD, a dotted path into nested objects) to match a
// glob (path.Match syntax: *, ?, [...]).
type ArgMatch struct {
	Field string
	Glob  string
}

// Cond is a condition over one predicted effect.
type Cond struct {
	Effect string
	Op     Op
	Value  float64
}

// Rule is one parsed rule line.
type Rule struct {
	Action Action
	Tool   string // a tool name, or a glob over names ("*" for every tool)
	Args   []ArgMatch
	Conds  []Cond
	Reason string
}

// String returns the rule in its canonical one-line form; parsing it gives the same rule.
func (r Rule) String() string {
	var b strings.Builder
	b.WriteString(string(r.Action))
	b.WriteByte(' ')
	b.WriteString(r.Tool)
	if len(r.Args) > 0 {
		b.WriteByte('(')
		for i, a := range r.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(a.Field)
			b.WriteByte('=')
			b.WriteString(quoteIfNeeded(a.Glob))
		}
		b.WriteByte(')')
	}
	for i, c := range r.Conds {
		if i == 0 {
			b.WriteString(" if ")
		} else {
			b.WriteString(" and ")
		}
		fmt.Fprintf(&b, "%s %s %s", c.Effect, c.Op, strconv.FormatFloat(c.Value, 'f', -1, 64))
	}
	if r.Reason != "" {
		b.WriteString(": ")
		b.WriteString(r.Reason)
	}
	return b.String()
}

// quoteIfNeeded quotes a glob that would not read back as one bare word.
func quoteIfNeeded(s string) string {
	if s == "" || strings.ContainsAny(s, " \t,()\"\\:=") {
		return strconv.Quote(s)
	}
	return s
}
