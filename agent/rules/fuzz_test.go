package rules

import (
	"reflect"
	"testing"
)

// FuzzParse: any line either fails with a ParseError or parses into a rule whose
// canonical form parses back to the same rule (the form a session stores and reads on
// resume), and Salvage never panics on it.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"allow orbit_ship", "allow set_flight_mode(flightMode=CRUISE)",
		"allow navigate_ship if fuel <= 100", "deny jettison_cargo: never throw cargo away",
		`ask purchase_cargo(symbol="A, B", units=1?) if cost > 1e3 and x != -2: hm`, "alow x", "allow x(y=[)",
		// Escapes and characters one cannot see: the canonical form must quote them.
		`deny say(text="a\tb", to="\u00e9\"")`, "allow x(y=\u00a0)", `allow x(y="\xff")`,
		// Numbers whose full form is long.
		"allow x if cost < 1e300 and fuel > -1e-300"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		Salvage(line)
		r, err := Parse(line)
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("Parse(%q): error of type %T: %v", line, err, err)
			}
			return
		}
		again, err := Parse(r.String())
		if err != nil {
			t.Fatalf("Parse(%q) = %s, which does not parse: %v", line, r, err)
		}
		if !reflect.DeepEqual(again, r) {
			t.Fatalf("round trip: %q -> %#v -> %s -> %#v", line, r, r, again)
		}
		if again.String() != r.String() {
			t.Fatalf("round trip: %q -> %s -> %s", line, r, again)
		}
		if forms := r.Forms(); forms[0] != r.String() {
			t.Fatalf("Forms(%s)[0] = %q, not the canonical form", r, forms[0])
		}
	})
}
