package arena

import "time"

// AgentName is the player's agent: the one the model plays.
const AgentName = "Kestrel"

// Item is something sold at the market and held in the inventory.
type Item struct {
	Name  string // "bread"
	Food  int    // energy restored when consumed; 0 for what is not food
	Base  int    // the market's base price in gold; prices move around it
	Stock int    // units the market holds at the start of each market period
}

// Items returns what the market trades, food first.
func Items() []Item {
	return []Item{
		{Name: "apple", Food: 8, Base: 3, Stock: 30},
		{Name: "bread", Food: 15, Base: 6, Stock: 20},
		{Name: "stew", Food: 30, Base: 14, Stock: 8},
		{Name: "herbs", Base: 9, Stock: 10},
		{Name: "iron", Base: 20, Stock: 6},
	}
}

// ItemNamed returns the item called name.
func ItemNamed(name string) (Item, bool) {
	for _, it := range Items() {
		if it.Name == name {
			return it, true
		}
	}
	return Item{}, false
}

// Job is work the agent can do for gold, one shift after another.
type Job struct {
	Name     string // "forge"
	Energy   int    // energy one shift costs, paid when the work starts
	Gold     int    // gold one shift pays, when the work ends
	Apples   int    // apples one shift brings (farm)
	Standing int    // standing one shift brings in the agent's community (guard)
	About    string // for the model
}

// ShiftLength is one shift of work, in game time.
const ShiftLength = 10 * time.Minute

// MaxShifts is the most shifts one work call takes.
const MaxShifts = 4

// Jobs returns the work on offer.
func Jobs() []Job {
	return []Job{
		{Name: "farm", Energy: 10, Gold: 4, Apples: 1, About: "4 gold and an apple a shift, 10 energy"},
		{Name: "courier", Energy: 12, Gold: 7, About: "7 gold a shift, 12 energy"},
		{Name: "guard", Energy: 15, Gold: 8, Standing: 1, About: "8 gold and 1 standing a shift, 15 energy"},
		{Name: "forge", Energy: 25, Gold: 14, About: "14 gold a shift, 25 energy"},
	}
}

// JobNamed returns the job called name.
func JobNamed(name string) (Job, bool) {
	for _, j := range Jobs() {
		if j.Name == name {
			return j, true
		}
	}
	return Job{}, false
}

// Communities are the world's communities, each with a channel "#name".
var Communities = []string{"Ember", "Tide", "Thorn"}

// memberNames are the NPCs; the seed decides who belongs where and who leads.
var memberNames = []string{"Mara", "Oren", "Vesna", "Tomas", "Ilka", "Bram", "Sefa", "Juno", "Pell", "Rhea", "Dov", "Wren"}

// Rules of the world, shared by the tools, the dry runs and the NPCs.
const (
	MaxEnergy       = 100
	MinCommit       = 5                // least energy a battle takes
	MaxMessageChars = 280              // longest message
	helpDue         = 10 * time.Minute // a help request unanswered this long is ignored
	marketPeriod    = 5                // game minutes between price moves
	wakeEvery       = 6                // game minutes without a trigger before an NPC speaks up
	maxMessages     = 300              // messages kept
	maxOverBattles  = 20               // finished battles kept
	restLevel       = 25               // energy drifts toward this level
)
