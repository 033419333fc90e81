package arena

import "github.com/coplayhq/coplay/agent/brain"

// temper is how much the autopilot risks: the energy thresholds its rules read. The
// balanced one is the package doc's; a profile picks another (temperament = "bold" or
// "careful"), so that two autopilots can be compared in an eval or a league with no
// model and no key.
type temper struct {
	hungry      int  // below this energy it eats, buys food or works for it
	fightMin    int  // the least energy it fights with (after eating)
	keepEnergy  int  // what it keeps back when it commits to a battle
	maxCommit   int  // the most it commits to one battle
	commitAll   bool // commit all it does not keep back, not half its energy
	workMin     int  // the least energy it starts work with
	workKeep    int  // the energy it keeps when it works
	stockUpGold int  // with this much gold and no food, it buys some
}

// tempers are the temperaments by name ("" is the balanced default).
var tempers = map[string]temper{
	"": {hungry: hungry, fightMin: fightMin, keepEnergy: keepEnergy, maxCommit: maxCommit,
		workMin: workMin, workKeep: workKeep, stockUpGold: stockUpGold},
	// bold fights with nearly everything it has and works itself down to little.
	"bold": {hungry: 20, fightMin: 15, keepEnergy: 5, maxCommit: 80, commitAll: true,
		workMin: 25, workKeep: 10, stockUpGold: 60},
	// careful fights only when well fed, commits little, eats early and rests more.
	"careful": {hungry: 55, fightMin: 60, keepEnergy: 40, maxCommit: 15,
		workMin: 60, workKeep: 50, stockUpGold: 15},
}

// SetTemperament makes the autopilot play by the named temperament's thresholds: "" is
// the balanced default, "bold" and "careful" the others. Call it before the first step.
func (b *Brain) SetTemperament(name string) error {
	t, err := brain.Temper(tempers, name)
	if err == nil {
		b.mu.Lock()
		b.mem.t, b.temperament = t, name
		b.mu.Unlock()
	}
	return err
}

// commit is the energy committed to a battle with energy in hand.
func (t temper) commit(energy int) int {
	share := energy / 2
	if t.commitAll {
		share = energy
	}
	return min(t.maxCommit, share, energy-t.keepEnergy)
}
