package autopilot

import "slices"

// These are facts of the game, not of any one universe: what a deposit trait yields and
// which waypoint types can be mined (SpaceTraders v2; the offline universe follows them).

// depositYields lists what mining a waypoint with the trait brings up.
var depositYields = map[string][]string{
	"COMMON_METAL_DEPOSITS":   {"IRON_ORE", "COPPER_ORE", "ALUMINUM_ORE", "QUARTZ_SAND", "SILICON_CRYSTALS", "ICE_WATER"},
	"MINERAL_DEPOSITS":        {"QUARTZ_SAND", "SILICON_CRYSTALS", "PRECIOUS_STONES", "ICE_WATER", "AMMONIA_ICE", "IRON_ORE"},
	"PRECIOUS_METAL_DEPOSITS": {"SILVER_ORE", "GOLD_ORE", "PLATINUM_ORE", "QUARTZ_SAND"},
	"RARE_METAL_DEPOSITS":     {"URANITE_ORE", "MERITIUM_ORE", "DIAMONDS", "QUARTZ_SAND"},
}

var minableTypes = []string{"ASTEROID", "ASTEROID_FIELD", "ENGINEERED_ASTEROID"}

// yields reports whether mining a waypoint of type typ with traits can bring up good.
func yields(typ string, traits []string, good string) bool {
	if !slices.Contains(minableTypes, typ) {
		return false
	}
	for _, t := range traits {
		if slices.Contains(depositYields[t], good) {
			return true
		}
	}
	return false
}
