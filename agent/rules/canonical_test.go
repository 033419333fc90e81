package rules

import (
	"slices"
	"strings"
	"testing"
)

// TestCanonicalFormQuotesWhatCannotBeSeen: a value holding a control character, a
// character one cannot see or a byte that is not UTF-8 is written quoted with Go's
// escapes (the way a person types it), so that it reads back; printable text and
// escapes that need no quoting stay as they are. Issue 34's rules among them.
func TestCanonicalFormQuotesWhatCannotBeSeen(t *testing.T) {
	for line, want := range map[string]string{
		`deny orbit_ship(shipSymbol="a\nb")`:      `deny orbit_ship(shipSymbol="a\nb")`,
		`ask 0(0="\000")`:                         `ask 0(0="\x00")`,
		`deny x(y="\a0")`:                         `deny x(y="\a0")`,
		`allow x(y="\t")`:                         `allow x(y="\t")`,
		`allow x(y="\"")`:                         `allow x(y="\"")`,
		`allow x(y="\u00e9")`:                     `allow x(y=é)`,
		"allow x(y=a\u00a0b)":                     `allow x(y="a\u00a0b")`,
		"allow x(y=\xff)":                         `allow x(y="\xff")`,
		"allow x if cost < 1e300":                 "allow x if cost < 1e+300",
		"allow x if cost < 123456789012345678901": "allow x if cost < 123456789012345680000", // as float64 holds it
		"allow x if cost < 1e-7":                  "allow x if cost < 0.0000001",
	} {
		r, err := Parse(line)
		if err != nil {
			t.Errorf("Parse(%q): %v", line, err)
			continue
		}
		if r.String() != want {
			t.Errorf("Parse(%q).String() = %q, want %q", line, r.String(), want)
		}
		again, err := Parse(r.String())
		if err != nil || again.String() != want {
			t.Errorf("%q does not read back: %v, %v", r.String(), again, err)
		}
	}
}

// TestARuleTooLongWrittenOutIsRefused: quoting and spacing make the canonical form
// longer than the line typed; a rule whose canonical form would not fit MaxLen is
// refused when it is written, not lost when it is read back.
func TestARuleTooLongWrittenOutIsRefused(t *testing.T) {
	line := "allow x(" + strings.Repeat("a=b,", 240) + "a=b)"
	if len(line) > MaxLen {
		t.Fatalf("the line itself is %d long", len(line))
	}
	_, err := Parse(line)
	if err == nil || !strings.Contains(err.Error(), "at most 1000 characters once written out") {
		t.Fatalf("Parse of a line of %d that writes out longer: %v", len(line), err)
	}
}

// TestFormsHoldTheOlderForm: Forms lists the canonical form first, then the form
// earlier versions stored (a control character raw, a long number in full), which
// is how a session's unreadable line is recognised when the rule is added again.
func TestFormsHoldTheOlderForm(t *testing.T) {
	r, err := Parse(`deny orbit_ship(shipSymbol="a\nb") if fuel > 1e22`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`deny orbit_ship(shipSymbol="a\nb") if fuel > 1e+22`, "deny orbit_ship(shipSymbol=a\nb) if fuel > 10000000000000000000000"}
	if got := r.Forms(); !slices.Equal(got, want) {
		t.Fatalf("Forms = %q, want %q", got, want)
	}
	plain, _ := Parse("allow orbit_ship")
	if got := plain.Forms(); !slices.Equal(got, []string{"allow orbit_ship"}) {
		t.Fatalf("Forms of a plain rule = %q", got)
	}
}

// TestSalvage reads the action and tool of lines that do not parse, and nothing it
// cannot be sure of.
func TestSalvage(t *testing.T) {
	for line, want := range map[string][2]string{
		"deny orbit_ship(shipSymbol=a\nb)": {"deny", "orbit_ship"},
		"ask *_ship if fuel >":             {"ask", "*_ship"},
		"allow dock\x00_ship":              {"allow", ""}, // the name runs into a NUL: cut short
		"deny":                             {"deny", ""},
		"deny [":                           {"deny", ""},
		"dney x":                           {"", ""},
		"":                                 {"", ""},
	} {
		a, tool := Salvage(line)
		if string(a) != want[0] || tool != want[1] {
			t.Errorf("Salvage(%q) = %q, %q; want %q, %q", line, a, tool, want[0], want[1])
		}
	}
}
