package rules

import (
	"math"
	"path"
	"reflect"
	"strings"
	"testing"
	"unicode"
)

// FuzzCanonical builds rules from their parts rather than from a line, so that any
// value a rule can hold (a glob with a NUL, a newline, a byte that is not UTF-8, a huge
// number) is reached at once: the canonical form of every rule a person could write
// parses back to the same rule, or is refused for its length, never read as another.
// (FuzzParse reaches such values only through the parser's escapes, after millions of
// inputs; this target finds issue 34's lost rule within a few hundred.)
func FuzzCanonical(f *testing.F) {
	f.Add(uint8(2), "orbit_ship", "shipSymbol", "a b", "fuel", uint8(1), 100.0, "too far")
	f.Add(uint8(0), "*_ship", "flightMode", "[CD]*", "cost", uint8(4), 1e300, "")
	f.Add(uint8(1), "say", "text.body", `a"\`, "x", uint8(5), -0.5, "é: ok")
	f.Fuzz(func(t *testing.T, action uint8, tool, field, glob, effect string, op uint8, value float64, reason string) {
		r := Rule{Action: []Action{Allow, Ask, Deny}[action%3], Tool: tool, Args: []ArgMatch{{Field: field, Glob: glob}},
			Conds: []Cond{{Effect: effect, Op: []Op{LT, LE, GT, GE, EQ, NE}[op%6], Value: value}}, Reason: reason}
		if !writable(r) {
			return
		}
		line := r.String()
		got, err := Parse(line)
		if err != nil {
			if _, ok := err.(*ParseError); ok && len(line) > MaxLen && strings.Contains(err.Error(), "at most") {
				return // too long written out: refused, as it is when typed
			}
			t.Fatalf("%#v is written %q, which does not parse: %v", r, line, err)
		}
		if !reflect.DeepEqual(got, r) {
			t.Fatalf("%#v is written %q, which reads as %#v", r, line, got)
		}
	})
}

// writable reports whether a person could write each part of r in a rule line: the
// names in their alphabets, valid globs, a finite number, a reason of printable text
// without spaces around it (a value may hold anything: it can be quoted).
func writable(r Rule) bool {
	all := func(s string, ok func(byte) bool) bool {
		for i := 0; i < len(s); i++ {
			if !ok(s[i]) {
				return false
			}
		}
		return s != ""
	}
	if !all(r.Tool, isToolChar) || !validGlob(r.Tool) {
		return false
	}
	for _, a := range r.Args {
		if !all(a.Field, isName) || !validGlob(a.Glob) {
			return false
		}
	}
	for _, c := range r.Conds {
		if !all(c.Effect, isIdent) || math.IsInf(c.Value, 0) || math.IsNaN(c.Value) {
			return false
		}
	}
	if r.Reason != strings.TrimSpace(r.Reason) || strings.IndexFunc(r.Reason, unicode.IsControl) >= 0 {
		return false
	}
	return true
}

func validGlob(g string) bool { _, err := path.Match(g, ""); return err == nil }

// FuzzSameRule is what unrule and the session's rule list rely on: two lines that
// parse are the same rule exactly when their canonical forms are equal (unrule of one
// removes the other; adding one when the other is in force adds nothing), and no line
// a rule may be stored as (Forms) belongs to a different rule, so that replacing an
// unreadable older form never removes another rule.
func FuzzSameRule(f *testing.F) {
	f.Add("allow   navigate_ship if fuel<=100", "allow navigate_ship if fuel <= 100")
	f.Add(`deny x(y="a\nb")`, `deny x(y="a\x0ab")`)
	f.Add("allow x if a < 1e300", "allow x if a < 1000000000000000000000000000000")
	f.Add(`ask y(z="\u00e9")`, "ask y(z=é)")
	f.Fuzz(func(t *testing.T, a, b string) {
		ra, errA := Parse(a)
		rb, errB := Parse(b)
		if errA != nil || errB != nil {
			return
		}
		same := reflect.DeepEqual(ra, rb)
		if (ra.String() == rb.String()) != same {
			t.Fatalf("%q and %q: canonical forms %q, %q; same rule %v", a, b, ra, rb, same)
		}
		if same {
			return
		}
		for _, fa := range ra.Forms() {
			for _, fb := range rb.Forms() {
				if fa == fb {
					t.Fatalf("%q and %q are different rules that may both be stored as %q", a, b, fa)
				}
			}
		}
	})
}
