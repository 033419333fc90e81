package rules

import "testing"

// FuzzParse: any line either fails with a ParseError or parses into a rule whose
// canonical form parses back to itself.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"allow orbit_ship", "allow set_flight_mode(flightMode=CRUISE)",
		"allow navigate_ship if fuel <= 100", "deny jettison_cargo: never throw cargo away",
		`ask purchase_cargo(symbol="A, B", units=1?) if cost > 1e3 and x != -2: hm`, "alow x", "allow x(y=[)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
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
		if again.String() != r.String() {
			t.Fatalf("round trip: %q -> %s -> %s", line, r, again)
		}
	})
}
