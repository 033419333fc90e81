package autopilot

import (
	"strings"
	"testing"
	"time"

	st "github.com/coplayhq/coplay/game/spacetraders"
)

// The temperaments decide differently on the same world: the contract pays 100 a unit;
// ore at 42 is bought by the balanced autopilot and mined by the careful one (it buys at
// 30 at most), ore at 95 is bought by the bold one only; careful never flies BURN and
// says so in its notes. An unknown temperament is refused.
func TestTemperamentsDecideDifferently(t *testing.T) {
	t.Parallel()
	at := func(temperament string, price int64) (string, string) {
		f := newFake()
		f.oreAtB1(st.InOrbit, price, price-4)
		b := newBrain(f, func() time.Time { return t0 })
		if err := b.SetTemperament(temperament); err != nil {
			t.Fatal(err)
		}
		reply, calls := step(t, b, nil)
		return tools(calls), reply.Text
	}
	buys := func(got string) bool { return strings.HasSuffix(got, "purchase_cargo") }
	if got, _ := at("", 42); !buys(got) {
		t.Errorf("balanced at 42: %s, want to buy", got)
	}
	if got, text := at("careful", 42); buys(got) || !strings.Contains(text, "(careful)") {
		t.Errorf("careful at 42: %s (%q), want to mine, saying it is careful", got, text)
	}
	if got, _ := at("", 95); buys(got) {
		t.Errorf("balanced at 95: %s, want to mine", got)
	}
	if got, _ := at("bold", 95); !buys(got) {
		t.Errorf("bold at 95: %s, want to buy", got)
	}

	f := newFake() // at HQ, B1 50 away, a full tank: the balanced autopilot burns
	b := newBrain(f, func() time.Time { return t0 })
	if err := b.SetTemperament("careful"); err != nil {
		t.Fatal(err)
	}
	reply, calls := step(t, b, nil)
	for _, c := range calls {
		if c.Tool == "set_flight_mode" && args(t, c)["flightMode"] == "BURN" {
			t.Errorf("careful sets BURN: %s", tools(calls))
		}
	}
	notes := ""
	for _, c := range reply.Calls {
		notes += string(c.Args)
	}
	if !strings.Contains(notes, "never BURN") {
		t.Errorf("careful's notes do not say it never burns: %s", notes)
	}
	if err := b.SetTemperament("reckless"); err == nil || !strings.Contains(err.Error(), "bold or careful") {
		t.Errorf("SetTemperament(reckless) = %v", err)
	}
}
