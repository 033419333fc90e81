package autopilot

import "github.com/coplayhq/coplay/agent/brain"

// temper is how much the autopilot risks on a contract's cargo: the credits it keeps
// back and the share of the contract's pay per unit it will pay for a unit. The
// balanced one is the package doc's; a profile picks another (temperament = "bold" or
// "careful"), so that two autopilots can be compared in an eval or a league with no
// model and no key.
type temper struct {
	reserve int64   // never spend below this on cargo: fuel must stay affordable
	margin  float64 // buy only if a unit costs at most this share of what the contract pays per unit
	noBurn  bool    // never fly BURN: slower, but it saves fuel
}

// tempers are the temperaments by name ("" is the balanced default).
var tempers = map[string]temper{
	"": {reserve: creditReserve, margin: buyMargin},
	// bold buys whenever the contract still pays for the unit, down to little cash.
	"bold": {reserve: 1_000, margin: 1.0},
	// careful keeps a large reserve, buys only at a wide margin (mining otherwise) and
	// never burns fuel for speed.
	"careful": {reserve: 40_000, margin: 0.3, noBurn: true},
}

// SetTemperament makes the autopilot play by the named temperament: "" is the balanced
// default, "bold" and "careful" the others. Call it before the first step.
func (b *Brain) SetTemperament(name string) error {
	t, err := brain.Temper(tempers, name)
	if err == nil {
		b.mu.Lock()
		b.mem.t, b.temperament = t, name
		b.mu.Unlock()
	}
	return err
}
