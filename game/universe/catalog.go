package universe

import "strings"

// This file holds the static facts of the game: trade goods, ship components and ship
// types, factions and trait descriptions. Symbols are the real SpaceTraders enums.

// good is a trade good and its base price in credits per unit.
type good struct {
	base   int
	volume int // trade volume: the most units one transaction may move
}

var goods = map[string]good{
	"IRON_ORE": {40, 60}, "COPPER_ORE": {50, 60}, "ALUMINUM_ORE": {55, 60},
	"SILVER_ORE": {90, 40}, "GOLD_ORE": {110, 40}, "PLATINUM_ORE": {140, 30},
	"URANITE_ORE": {160, 30}, "MERITIUM_ORE": {220, 20}, "DIAMONDS": {250, 20},
	"QUARTZ_SAND": {25, 60}, "SILICON_CRYSTALS": {35, 60}, "PRECIOUS_STONES": {70, 40},
	"ICE_WATER": {15, 60}, "AMMONIA_ICE": {30, 60},
	"IRON": {100, 40}, "COPPER": {120, 40}, "ALUMINUM": {130, 40},
	"FUEL": {72, 100}, "ANTIMATTER": {2500, 10},
	"FOOD": {80, 60}, "FERTILIZERS": {90, 60}, "FABRICS": {150, 40}, "CLOTHING": {300, 20},
	"MACHINERY": {400, 20}, "EQUIPMENT": {500, 20}, "ELECTRONICS": {600, 20},
	"PLASTICS": {200, 40}, "MEDICINE": {700, 20}, "MICROPROCESSORS": {900, 10},
	"HYDROCARBON": {60, 60}, "LIQUID_HYDROGEN": {45, 60}, "LIQUID_NITROGEN": {45, 60},
	"SHIP_PARTS": {1200, 10}, "SHIP_PLATING": {1000, 10}, "FIREARMS": {800, 10},
	"JEWELRY": {1500, 10}, "LAB_INSTRUMENTS": {1100, 10}, "EXPLOSIVES": {250, 20},
	"POLYNUCLEOTIDES": {350, 20},
}

// deposits lists what a deposit trait yields, most common first.
var deposits = map[string][]string{
	"COMMON_METAL_DEPOSITS":   {"IRON_ORE", "COPPER_ORE", "ALUMINUM_ORE", "QUARTZ_SAND", "SILICON_CRYSTALS", "ICE_WATER"},
	"MINERAL_DEPOSITS":        {"QUARTZ_SAND", "SILICON_CRYSTALS", "PRECIOUS_STONES", "ICE_WATER", "AMMONIA_ICE", "IRON_ORE"},
	"PRECIOUS_METAL_DEPOSITS": {"SILVER_ORE", "GOLD_ORE", "PLATINUM_ORE", "QUARTZ_SAND"},
	"RARE_METAL_DEPOSITS":     {"URANITE_ORE", "MERITIUM_ORE", "DIAMONDS", "QUARTZ_SAND"},
}

// minable says which waypoint types can be mined.
var minable = map[string]bool{"ASTEROID": true, "ASTEROID_FIELD": true, "ENGINEERED_ASTEROID": true}

type frameSpec struct {
	name                         string
	moduleSlots, mounts, fuelCap int
	power, crew                  int
}

var frames = map[string]frameSpec{
	"FRAME_PROBE":           {"Probe", 0, 0, 0, 1, 0},
	"FRAME_DRONE":           {"Drone", 2, 2, 100, 2, -3},
	"FRAME_FRIGATE":         {"Frigate", 8, 5, 400, 8, 25},
	"FRAME_MINER":           {"Miner", 7, 4, 400, 8, 20},
	"FRAME_LIGHT_FREIGHTER": {"Light Freighter", 8, 2, 1200, 8, 25},
	"FRAME_SHUTTLE":         {"Shuttle", 4, 1, 600, 6, 10},
	"FRAME_EXPLORER":        {"Explorer", 8, 2, 800, 10, 15},
}

type reactorSpec struct {
	name  string
	power int
}

var reactors = map[string]reactorSpec{
	"REACTOR_SOLAR_I":    {"Solar Reactor I", 3},
	"REACTOR_CHEMICAL_I": {"Chemical Reactor I", 15},
	"REACTOR_FISSION_I":  {"Fission Reactor I", 31},
	"REACTOR_FUSION_I":   {"Fusion Reactor I", 40},
}

type engineSpec struct {
	name  string
	speed int
	power int
}

var engines = map[string]engineSpec{
	"ENGINE_IMPULSE_DRIVE_I": {"Impulse Drive I", 3, 1},
	"ENGINE_ION_DRIVE_I":     {"Ion Drive I", 10, 6},
	"ENGINE_ION_DRIVE_II":    {"Ion Drive II", 30, 6},
	"ENGINE_HYPER_DRIVE_I":   {"Hyper Drive I", 60, 6},
}

type moduleSpec struct {
	name     string
	capacity int // cargo units for holds, crew for quarters
	power    int
	crew     int
}

var modules = map[string]moduleSpec{
	"MODULE_CARGO_HOLD_I":        {"Cargo Hold I", 15, 1, 0},
	"MODULE_CARGO_HOLD_II":       {"Cargo Hold II", 40, 2, 2},
	"MODULE_CARGO_HOLD_III":      {"Cargo Hold III", 75, 3, 4},
	"MODULE_CREW_QUARTERS_I":     {"Crew Quarters I", 40, 1, 2},
	"MODULE_MINERAL_PROCESSOR_I": {"Mineral Processor I", 0, 1, 0},
}

type mountSpec struct {
	name     string
	strength int
	deposits []string
	power    int
	crew     int
}

var laserDeposits = []string{"QUARTZ_SAND", "SILICON_CRYSTALS", "PRECIOUS_STONES", "ICE_WATER", "AMMONIA_ICE",
	"IRON_ORE", "COPPER_ORE", "SILVER_ORE", "ALUMINUM_ORE", "GOLD_ORE", "PLATINUM_ORE", "DIAMONDS",
	"URANITE_ORE", "MERITIUM_ORE"}

var mounts = map[string]mountSpec{
	"MOUNT_SENSOR_ARRAY_I":  {"Sensor Array I", 1, nil, 1, 0},
	"MOUNT_SENSOR_ARRAY_II": {"Sensor Array II", 4, nil, 2, 2},
	"MOUNT_MINING_LASER_I":  {"Mining Laser I", 5, nil, 1, 0},
	"MOUNT_MINING_LASER_II": {"Mining Laser II", 10, nil, 2, 2},
	"MOUNT_SURVEYOR_I":      {"Surveyor I", 1, laserDeposits[:9], 1, 2},
	"MOUNT_SURVEYOR_II":     {"Surveyor II", 2, laserDeposits, 2, 3},
}

// shipSpec is a ship type as a shipyard sells it.
type shipSpec struct {
	name, role             string
	frame, reactor, engine string
	modules, mounts        []string
	price                  int
	crewRequired, crewCap  int
}

var shipTypes = map[string]shipSpec{
	"SHIP_PROBE": {"Probe", "SATELLITE", "FRAME_PROBE", "REACTOR_SOLAR_I", "ENGINE_IMPULSE_DRIVE_I",
		nil, nil, 25000, 0, 0},
	"SHIP_MINING_DRONE": {"Mining Drone", "EXCAVATOR", "FRAME_DRONE", "REACTOR_SOLAR_I", "ENGINE_IMPULSE_DRIVE_I",
		[]string{"MODULE_CARGO_HOLD_I", "MODULE_MINERAL_PROCESSOR_I"}, []string{"MOUNT_MINING_LASER_I"}, 45000, 0, 0},
	"SHIP_SURVEYOR": {"Surveyor", "SURVEYOR", "FRAME_DRONE", "REACTOR_SOLAR_I", "ENGINE_IMPULSE_DRIVE_I",
		nil, []string{"MOUNT_SURVEYOR_I"}, 35000, 0, 0},
	"SHIP_LIGHT_SHUTTLE": {"Light Shuttle", "TRANSPORT", "FRAME_SHUTTLE", "REACTOR_CHEMICAL_I", "ENGINE_IMPULSE_DRIVE_I",
		[]string{"MODULE_CARGO_HOLD_II"}, nil, 60000, 1, 1},
	"SHIP_LIGHT_HAULER": {"Light Hauler", "HAULER", "FRAME_LIGHT_FREIGHTER", "REACTOR_CHEMICAL_I", "ENGINE_ION_DRIVE_I",
		[]string{"MODULE_CARGO_HOLD_II", "MODULE_CARGO_HOLD_II", "MODULE_CREW_QUARTERS_I"}, []string{"MOUNT_SENSOR_ARRAY_I"}, 90000, 21, 40},
	"SHIP_ORE_HOUND": {"Ore Hound", "EXCAVATOR", "FRAME_MINER", "REACTOR_FISSION_I", "ENGINE_ION_DRIVE_I",
		[]string{"MODULE_MINERAL_PROCESSOR_I", "MODULE_CARGO_HOLD_II", "MODULE_CREW_QUARTERS_I"}, []string{"MOUNT_MINING_LASER_II", "MOUNT_SURVEYOR_I"}, 160000, 22, 40},
	"SHIP_EXPLORER": {"Explorer", "EXPLORER", "FRAME_EXPLORER", "REACTOR_FUSION_I", "ENGINE_ION_DRIVE_II",
		[]string{"MODULE_CARGO_HOLD_I", "MODULE_CREW_QUARTERS_I"}, []string{"MOUNT_SENSOR_ARRAY_II"}, 250000, 20, 40},
	"SHIP_COMMAND_FRIGATE": {"Command Frigate", "COMMAND", "FRAME_FRIGATE", "REACTOR_FISSION_I", "ENGINE_ION_DRIVE_II",
		[]string{"MODULE_CARGO_HOLD_II", "MODULE_CREW_QUARTERS_I", "MODULE_MINERAL_PROCESSOR_I"},
		[]string{"MOUNT_SENSOR_ARRAY_I", "MOUNT_MINING_LASER_II", "MOUNT_SURVEYOR_I"}, 0, 57, 80},
}

// allShipTypes is the ShipType enum of the API: purchase-ship accepts any of them and
// answers 4245 for the ones a shipyard does not sell.
var allShipTypes = []string{"SHIP_PROBE", "SHIP_MINING_DRONE", "SHIP_SIPHON_DRONE", "SHIP_INTERCEPTOR",
	"SHIP_LIGHT_HAULER", "SHIP_COMMAND_FRIGATE", "SHIP_EXPLORER", "SHIP_HEAVY_FREIGHTER", "SHIP_LIGHT_SHUTTLE",
	"SHIP_ORE_HOUND", "SHIP_REFINING_FREIGHTER", "SHIP_SURVEYOR", "SHIP_BULK_FREIGHTER"}

type factionSpec struct {
	symbol, name, description string
	traits                    []string
	recruiting                bool
}

// factions are listed in a fixed order: the galaxy generator gives each one a home system.
var factions = []factionSpec{
	{"COSMIC", "Cosmic Engineers", "Innovators and engineers who shape the frontier.", []string{"INNOVATIVE", "BOLD", "VISIONARY", "CURIOUS"}, true},
	{"VOID", "Voidfarers", "Wanderers who dwell in the emptiness between the stars.", []string{"VISIONARY", "DARING", "EXPLORATORY", "RESOURCEFUL"}, true},
	{"GALACTIC", "Galactic Alliance", "A union of systems bound by trade and law.", []string{"COOPERATIVE", "UNITED", "STRATEGIC", "COMMERCIAL"}, true},
	{"QUANTUM", "Quantum Federation", "Scholars of the strange physics of deep space.", []string{"INTELLIGENT", "RESEARCH_FOCUSED", "COLLABORATIVE", "PROGRESSIVE"}, true},
	{"DOMINION", "Stellar Dominion", "A militaristic power that rules by strength.", []string{"MILITARISTIC", "AGGRESSIVE", "IMPERIALISTIC", "STRATEGIC"}, true},
	{"ASTRO", "Astro-Salvage Alliance", "Scavengers who profit from what others leave behind.", []string{"SCAVENGERS", "RESOURCEFUL", "FLEXIBLE", "INDUSTRIOUS"}, false},
	{"CORSAIRS", "Seventh Space Corsairs", "Raiders and smugglers of the outer rim.", []string{"PIRATES", "RAIDERS", "UNPREDICTABLE", "BRUTAL"}, false},
	{"OBSIDIAN", "Obsidian Syndicate", "A secretive cartel trading in what others will not.", []string{"SECRETIVE", "SMUGGLERS", "DISTRUSTFUL", "FREE_MARKETS"}, false},
}

func factionByID(symbol string) (factionSpec, bool) {
	for _, f := range factions {
		if f.symbol == symbol {
			return f, true
		}
	}
	return factionSpec{}, false
}

// traitDescriptions gives the traits the generator uses a sentence each.
var traitDescriptions = map[string]string{
	"MARKETPLACE":             "A thriving center of commerce where traders buy and sell goods.",
	"SHIPYARD":                "A bustling hub for the construction, repair and sale of ships.",
	"UNCHARTED":               "An unexplored region of space, full of potential discoveries.",
	"COMMON_METAL_DEPOSITS":   "Deposits of common metals such as iron, copper and aluminum.",
	"MINERAL_DEPOSITS":        "Deposits of minerals such as quartz, silicon and precious stones.",
	"PRECIOUS_METAL_DEPOSITS": "Deposits of precious metals such as silver, gold and platinum.",
	"RARE_METAL_DEPOSITS":     "Deposits of rare metals such as uranite and meritium.",
	"OUTPOST":                 "A small, remote settlement providing services to passing ships.",
	"SPRAWLING_CITIES":        "Vast, interconnected urban areas covering the surface.",
	"INDUSTRIAL":              "A hub of industrial activity and manufacturing.",
	"TRADING_HUB":             "A crossroads of trade routes, busy with merchants.",
	"TEMPERATE":               "A world with a mild, stable climate.",
	"BREATHABLE_ATMOSPHERE":   "An atmosphere people can breathe without assistance.",
	"ROCKY":                   "A rocky body with a solid surface.",
	"BARREN":                  "A lifeless, desolate surface.",
	"FROZEN":                  "A surface covered in ice and snow.",
	"VOLCANIC":                "A surface shaped by active volcanoes.",
	"JOVIAN":                  "A massive world of gas and storms.",
	"ICE_CRYSTALS":            "Fields of ice crystals glittering in the light.",
	"EXPLOSIVE_GASES":         "Pockets of volatile gases in the atmosphere.",
	"STRONG_MAGNETOSPHERE":    "A strong magnetic field that deflects radiation.",
	"HOLLOWED_INTERIOR":       "A body whose interior has been hollowed out.",
	"DEBRIS_CLUSTER":          "A cluster of drifting debris.",
	"SHALLOW_CRATERS":         "A surface pocked with shallow craters.",
	"DEEP_CRATERS":            "A surface scarred by deep craters.",
	"MILITARY_BASE":           "A fortified installation of the local faction.",
	"HIGH_TECH":               "A center of advanced technology and research.",
	"SCATTERED_SETTLEMENTS":   "Small settlements spread across the surface.",
}

// titleCase turns an enum symbol like IRON_ORE into a display name like "Iron Ore".
func titleCase(symbol string) string {
	parts := strings.Split(strings.ToLower(symbol), "_")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, " ")
}

func traitDescription(symbol string) string {
	if d, ok := traitDescriptions[symbol]; ok {
		return d
	}
	return titleCase(symbol) + "."
}

func goodDescription(symbol string) string {
	return "A unit of " + strings.ToLower(titleCase(symbol)) + ", traded across the galaxy."
}
