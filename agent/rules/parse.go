package rules

import (
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/coplayhq/coplay/game"
)

// MaxLen is the longest rule line accepted, in bytes.
const MaxLen = 1000

// ParseError says where a rule line stops making sense and what was expected there.
type ParseError struct {
	Line     string // the rule as given
	Col      int    // 1-based column (in characters) where the problem starts
	Expected string // what would have been understood there
	Got      string // what was there ("end of rule" at the end)
	Hint     string // e.g. "did you mean allow?"
}

// Error returns "rule: column N: expected E, got G (HINT)".
func (e *ParseError) Error() string {
	s := fmt.Sprintf("rule: column %d: expected %s, got %s", e.Col, e.Expected, e.Got)
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// Parse reads one rule line.
func Parse(line string) (Rule, error) {
	p := &parser{src: line}
	r, err := p.rule()
	if err != nil {
		return Rule{}, err
	}
	// The canonical form is what a session keeps and reads back: it must parse too.
	// Quoting and spacing can make it longer than the line as typed.
	if n := len(r.String()); n > MaxLen {
		return Rule{}, &ParseError{Line: line, Col: 1,
			Expected: fmt.Sprintf("a rule of at most %d characters once written out (values quoted, spaces around operators)", MaxLen),
			Got:      fmt.Sprintf("%d", n), Hint: "shorten it, or split it into several rules"}
	}
	return r, nil
}

type parser struct {
	src string
	pos int // byte offset
}

func (p *parser) fail(expected, hint string) *ParseError {
	got := "end of rule"
	if p.pos < len(p.src) {
		w := p.src[p.pos:]
		if i := strings.IndexFunc(w, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune("(),:", r) }); i > 0 {
			w = w[:i]
		} else if i == 0 {
			w = w[:1]
		}
		if len(w) > 40 {
			w = w[:40] + "…"
		}
		got = strconv.Quote(w)
	}
	return &ParseError{Line: p.src, Col: utf8.RuneCountInString(p.src[:p.pos]) + 1, Expected: expected, Got: got, Hint: hint}
}

func (p *parser) spaces() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t') {
		p.pos++
	}
}

// word reads a run of characters allowed by ok.
func (p *parser) word(ok func(byte) bool) string {
	start := p.pos
	for p.pos < len(p.src) && ok(p.src[p.pos]) {
		p.pos++
	}
	return p.src[start:p.pos]
}

func isName(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isToolChar(c byte) bool { return isName(c) || c == '*' || c == '?' || c == '[' || c == ']' }

func isIdent(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func (p *parser) peek(s string) bool { return strings.HasPrefix(p.src[p.pos:], s) }

func (p *parser) rule() (Rule, error) {
	var r Rule
	if len(p.src) > MaxLen {
		return r, &ParseError{Line: p.src[:40] + "…", Col: MaxLen + 1, Expected: fmt.Sprintf("a rule of at most %d characters", MaxLen), Got: fmt.Sprintf("%d", len(p.src))}
	}
	if i := strings.IndexFunc(p.src, func(r rune) bool { return unicode.IsControl(r) && r != '\t' }); i >= 0 {
		p.pos = i
		return r, p.fail("one line of printable text", "")
	}
	p.spaces()
	start := p.pos
	act := p.word(isIdent)
	switch Action(act) {
	case Allow, Ask, Deny:
		r.Action = Action(act)
	default:
		p.pos = start
		hint := ""
		if near := game.Closest(act, []string{"allow", "ask", "deny"}, 1); len(near) > 0 && act != "" {
			hint = "did you mean " + near[0] + "?"
		}
		return r, p.fail("allow, ask or deny", hint)
	}
	if p.pos < len(p.src) && p.src[p.pos] != ' ' && p.src[p.pos] != '\t' {
		return r, p.fail("a space after "+act, "")
	}
	p.spaces()
	start = p.pos
	r.Tool = p.word(isToolChar)
	if r.Tool == "" {
		return r, p.fail("a tool name", "")
	}
	if _, err := path.Match(r.Tool, ""); err != nil {
		p.pos = start
		return r, p.fail("a tool name or a valid glob", "")
	}
	if p.peek("(") {
		p.pos++
		for {
			p.spaces()
			a, err := p.arg()
			if err != nil {
				return r, err
			}
			r.Args = append(r.Args, a)
			p.spaces()
			if p.peek(",") {
				p.pos++
				continue
			}
			if p.peek(")") {
				p.pos++
				break
			}
			return r, p.fail(", or )", "")
		}
	}
	p.spaces()
	if p.peekWord("if") {
		p.pos += 2
		for {
			p.spaces()
			c, err := p.cond()
			if err != nil {
				return r, err
			}
			r.Conds = append(r.Conds, c)
			p.spaces()
			if p.peekWord("and") {
				p.pos += 3
				continue
			}
			break
		}
	}
	p.spaces()
	if p.peek(":") {
		p.pos++
		r.Reason = strings.TrimSpace(p.src[p.pos:])
		if r.Reason == "" {
			return r, p.fail("a reason after :", "")
		}
		p.pos = len(p.src)
	}
	p.spaces()
	if p.pos < len(p.src) {
		exp := "if, : or the end of the rule"
		if len(r.Conds) > 0 {
			exp = "and, : or the end of the rule"
		} else if len(r.Args) == 0 && p.peek("{") {
			return r, p.fail("( for argument patterns", "arguments go in parentheses: TOOL(field=value)")
		}
		return r, p.fail(exp, "")
	}
	return r, nil
}

// peekWord reports whether w stands next as a whole word.
func (p *parser) peekWord(w string) bool {
	if !p.peek(w) {
		return false
	}
	end := p.pos + len(w)
	return end == len(p.src) || !isIdent(p.src[end])
}

func (p *parser) arg() (ArgMatch, error) {
	var a ArgMatch
	a.Field = p.word(isName)
	if a.Field == "" {
		return a, p.fail("an argument name", "")
	}
	p.spaces()
	if !p.peek("=") || p.peek("==") {
		return a, p.fail("= after "+a.Field, "")
	}
	p.pos++
	p.spaces()
	valStart := p.pos
	if p.peek(`"`) {
		q, err := strconv.QuotedPrefix(p.src[p.pos:])
		if err != nil {
			return a, p.fail("a quoted value with its closing quote", "")
		}
		a.Glob, _ = strconv.Unquote(q)
		p.pos += len(q)
	} else {
		a.Glob = p.word(func(c byte) bool { return c > ' ' && c != ',' && c != ')' && c != '(' && c != '"' })
		if a.Glob == "" {
			return a, p.fail("a value or pattern for "+a.Field, `quote a value with spaces or commas: field="a, b"`)
		}
	}
	if _, err := path.Match(a.Glob, ""); err != nil {
		p.pos = valStart
		return a, p.fail("a valid pattern for "+a.Field, "* matches anything, ? one character, [abc] a set")
	}
	return a, nil
}

func (p *parser) cond() (Cond, error) {
	var c Cond
	c.Effect = p.word(isIdent)
	if c.Effect == "" {
		return c, p.fail("an effect name (cost, income, fuel, seconds, ...)", "")
	}
	p.spaces()
	opStart := p.pos
	for _, op := range []Op{LE, GE, NE, LT, GT, EQ} {
		if p.peek(string(op)) {
			c.Op = op
			p.pos += len(op)
			break
		}
	}
	if c.Op == "" || p.peek("=") || p.peek("<") || p.peek(">") {
		hint := ""
		switch {
		case strings.HasPrefix(p.src[opStart:], "=="):
			hint = "equality is a single ="
		case strings.HasPrefix(p.src[opStart:], "=<"), strings.HasPrefix(p.src[opStart:], "=>"):
			hint = "write <= or >="
		}
		p.pos = opStart
		return c, p.fail("one of < <= > >= = !=", hint)
	}
	p.spaces()
	num := p.word(func(c byte) bool {
		return c == '-' || c == '+' || c == '.' || c == '_' || c >= '0' && c <= '9' || c == 'e' || c == 'E'
	})
	v, err := strconv.ParseFloat(strings.ReplaceAll(num, "_", ""), 64)
	if num == "" || err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		p.pos -= len(num)
		return c, p.fail("a number", "")
	}
	c.Value = v
	return c, nil
}

// Salvage reads what it can of a line that does not parse: its action and its tool (or
// glob over tools), so that a caller can tell what a rule it cannot read could have
// covered. action is "" when the first word is not allow, ask or deny; tool is "" when
// the second word does not read as a whole tool name or glob (the rule could then have
// covered any tool).
func Salvage(line string) (action Action, tool string) {
	p := &parser{src: line}
	p.spaces()
	switch a := Action(p.word(isIdent)); a {
	case Allow, Ask, Deny:
		action = a
	default:
		return "", ""
	}
	if !p.peek(" ") && !p.peek("\t") {
		return action, ""
	}
	p.spaces()
	tool = p.word(isToolChar)
	if _, err := path.Match(tool, ""); err != nil || tool == "" {
		return action, ""
	}
	if p.pos < len(p.src) && !strings.ContainsRune("( \t:", rune(p.src[p.pos])) {
		return action, "" // the name runs into something else: it may be cut short
	}
	return action, tool
}
