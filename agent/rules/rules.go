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
	"unicode"
	"unicode/utf8"
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
// A value that would not read back as one bare word, or that holds a character one
// cannot see (a newline, a NUL, a non-breaking space, a byte that is not UTF-8), is
// quoted with Go's escapes: deny say(text="a\nb").
func (r Rule) String() string { return r.format(quoteIfNeeded, formatNumber) }

// Forms returns the lines this rule may be stored as in a session: its canonical form,
// then the form coplay wrote before values with control characters were quoted and
// long numbers shortened (an older notebook may hold that form; it may not parse).
func (r Rule) Forms() []string {
	forms := []string{r.String()}
	if old := r.format(oldQuote, oldNumber); old != forms[0] {
		forms = append(forms, old)
	}
	return forms
}

func (r Rule) format(quote, number func(string) string) string {
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
			b.WriteString(quote(a.Glob))
		}
		b.WriteByte(')')
	}
	for i, c := range r.Conds {
		if i == 0 {
			b.WriteString(" if ")
		} else {
			b.WriteString(" and ")
		}
		fmt.Fprintf(&b, "%s %s %s", c.Effect, c.Op, number(strconv.FormatFloat(c.Value, 'f', -1, 64)))
	}
	if r.Reason != "" {
		b.WriteString(": ")
		b.WriteString(r.Reason)
	}
	return b.String()
}

// quoteIfNeeded quotes a glob that would not read back as one bare word, or that holds
// a character that is not printable (strconv.Quote escapes those).
func quoteIfNeeded(s string) string {
	if s == "" || strings.ContainsAny(s, " \t,()\"\\:=") || !printable(s) {
		return strconv.Quote(s)
	}
	return s
}

// printable reports whether s is valid UTF-8 of printable characters only.
func printable(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// formatNumber keeps a number as written in full (5000, 0.25) unless that is long
// (1e300 in full is 301 digits): then it is the shortest exponent form (1e+300).
// Either reads back as the same float64.
func formatNumber(full string) string {
	if len(full) <= 21 {
		return full
	}
	v, _ := strconv.ParseFloat(full, 64)
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// oldQuote and oldNumber are how coplay wrote values and numbers before they were
// quoted when unprintable and shortened when long (see Forms).
func oldQuote(s string) string {
	if s == "" || strings.ContainsAny(s, " \t,()\"\\:=") {
		return strconv.Quote(s)
	}
	return s
}

func oldNumber(full string) string { return full }
