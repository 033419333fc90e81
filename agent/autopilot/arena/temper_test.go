package arena

import (
	"strings"
	"testing"
)

// The temperaments play the same world differently: bold commits more energy, and more
// to each battle it joins, than careful does, and each says which it is
// (its greeting, its Strategy notes). An unknown temperament is refused.
func TestTemperamentsPlayDifferently(t *testing.T) {
	t.Parallel()
	type tally struct{ battles, energy, score int }
	play := func(seed int64, temperament string) tally {
		tb := newTable(t, seed)
		if err := tb.brain.SetTemperament(temperament); err != nil {
			t.Fatal(err)
		}
		first := tb.play(2, "")
		if temperament != "" && !strings.Contains(first.Text, "("+temperament+")") {
			t.Errorf("%s: the greeting does not say so: %q", temperament, first.Text)
		}
		for i := 0; i < 199; i++ {
			tb.play(2, "")
		}
		var out tally
		v := tb.g.View()
		for _, b := range v.Battles {
			if b.Side != "" {
				out.battles++
				out.energy += b.Energy
			}
		}
		out.score = v.Agent.Gold + 25*v.Agent.BattlesWon + v.Agent.Standing
		t.Logf("seed %d %-8s battles %d, energy committed %d, score %d; strategy: %s", seed, temperament, out.battles, out.energy, out.score,
			strings.SplitN(tb.notes["Strategy"], "\n", 2)[0])
		return out
	}
	var bold, careful tally
	for seed := int64(1); seed <= 3; seed++ {
		b, c := play(seed, "bold"), play(seed, "careful")
		bold.battles, bold.energy = bold.battles+b.battles, bold.energy+b.energy
		careful.battles, careful.energy = careful.battles+c.battles, careful.energy+c.energy
	}
	if bold.energy <= careful.energy {
		t.Errorf("careful committed as much energy as bold: bold %+v, careful %+v", bold, careful)
	}
	if per := func(x tally) float64 { return float64(x.energy) / float64(max(1, x.battles)) }; per(bold) <= per(careful) {
		t.Errorf("bold commits no more per battle than careful: bold %+v, careful %+v", bold, careful)
	}
	tb := newTable(t, 1)
	if err := tb.brain.SetTemperament("reckless"); err == nil || !strings.Contains(err.Error(), "bold or careful") {
		t.Errorf("SetTemperament(reckless) = %v", err)
	}
}
