package arena

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Scenarios: a named, deterministic starting situation (--scenario NAME) for tests and
// demos. Every scenario starts from the same roster (Ember: Mara, who leads, Oren,
// Vesna, Tomas; Tide: Ilka, Bram, Sefa, Juno; Thorn: Pell, Rhea, Dov, Wren; trust 10 and
// loyalty 70 each, no shared history), with Kestrel in Ember, and sets what the agent
// holds, who has which history, the messages and battles at the start and at known game
// minutes later, and the market's prices. Until its quiet minute the world does nothing
// else: no member writes of their own accord, no other battle is announced, and prices
// are the scenario's. Members still answer what the agent writes, battles still run, and
// work still pays. Afterwards the world lives on as any other.

// ScenarioNames returns the scenarios' names.
func ScenarioNames() []string {
	var names []string
	for _, sc := range scenarios {
		names = append(names, sc.name)
	}
	return names
}

// scenario is a starting situation, as data.
type scenario struct {
	name         string
	energy, gold int
	inventory    map[string]int
	members      []memberSetup  // changes to the roster's defaults
	events       []scriptEvent  // at minute 0: the starting situation; later: what happens then
	prices       map[string]int // the market's prices from the start (others: the seed's first)
	moves        []priceMove    // and how they change
	quiet        int64          // the game minute until which nothing else happens
}

// memberSetup changes a member of the roster.
type memberSetup struct {
	name           string
	trust, loyalty int
	memories       []memory
}

// scriptState is what a scenario leaves in the world: its quiet time, its prices and the
// events still to come. It is saved with the world.
type scriptState struct {
	Name   string         `json:"name"`
	Quiet  int64          `json:"quiet"`  // the game minute until which the world is quiet
	Prices map[string]int `json:"prices"` // the prices from minute 0
	Moves  []priceMove    `json:"moves,omitempty"`
	Events []scriptEvent  `json:"events,omitempty"` // what is still to happen, in order
}

// priceMove is a scripted price: item costs price from game minute at on.
type priceMove struct {
	At    int64  `json:"at"`
	Item  string `json:"item"`
	Price int    `json:"price"`
}

// scriptEvent is something that happens at a game minute: a message is posted (a
// message.received trigger when it is to the agent or names it) or a battle announced
// (its leader's call, and a battle.announced trigger).
type scriptEvent struct {
	At      int64    `json:"at"`
	Message *message `json:"message,omitempty"`
	Battle  *battle  `json:"battle,omitempty"`
}

// say is a scripted message at minute at.
func say(at int64, from, to, kind, text string) scriptEvent {
	return scriptEvent{At: at, Message: &message{From: from, To: to, Kind: kind, Text: text}}
}

// fight is a scripted battle between Ember and Tide, announced at minute at, with its
// deadline, start and end minutes and the members' commitments ("Mara 25 @2": Mara
// commits 25 energy at minute 2).
func fight(num int, at, deadline, start, end int64, plan ...string) scriptEvent {
	b := &battle{ID: fmt.Sprintf("battle-%d", num), Num: num, Sides: []string{"Ember", "Tide"},
		Announced: timeOf(at), Deadline: timeOf(deadline), Start: timeOf(start), End: timeOf(end)}
	for _, p := range plan {
		var f fighter
		var minute int64
		if _, err := fmt.Sscanf(p, "%s %d @%d", &f.Name, &f.Energy, &minute); err != nil {
			panic(fmt.Sprintf("arena: scenario battle plan %q: %v", p, err))
		}
		f.At = timeOf(minute)
		f.Side = "Ember"
		if i := slices.Index(memberNames, f.Name); i >= 4 {
			f.Side = Communities[i/4]
		}
		b.Plan = append(b.Plan, f)
	}
	return scriptEvent{At: at, Battle: b}
}

// scenarios are the named starting situations. Message ids follow from the events: the
// first message posted is #1.
var scenarios = []scenario{
	{
		// Oren says hi to Kestrel (#1): a greeting to answer, nothing else going on.
		name:   "hello",
		energy: 70, gold: 40, inventory: map[string]int{"bread": 2},
		events: []scriptEvent{say(0, "Oren", AgentName, kindHi, "hi Kestrel! good to see you around")},
		quiet:  60,
	},
	{
		// Vesna, who remembers Kestrel fleeing battle-38 (trust -25), asks for help (#1,
		// due in 10 minutes).
		name:   "bad-history",
		energy: 70, gold: 40, inventory: map[string]int{"bread": 3},
		members: []memberSetup{{name: "Vesna", trust: -25, loyalty: 70, memories: []memory{
			{Time: Epoch.Add(-30 * time.Hour), Text: "you fled battle-38 and left me alone"}}}},
		events: []scriptEvent{say(0, "Vesna", AgentName, kindHelp, "Kestrel, I'm out of food. Could you help me?")},
		quiet:  60,
	},
	{
		// Mara calls Ember to battle-456 (#1; join by 08:45) while Kestrel has 30 energy,
		// no food and no gold; bread costs 6 gold, then 7 from 08:10 (no trigger: a move
		// of 1 gold is not news).
		name:   "no-food",
		energy: 30,
		events: []scriptEvent{fight(456, 0, 45, 48, 56, "Mara 25 @2", "Oren 20 @3", "Ilka 30 @2", "Bram 25 @4")},
		prices: map[string]int{"apple": 3, "bread": 6, "stew": 14, "herbs": 9, "iron": 20},
		moves:  []priceMove{{At: 10, Item: "bread", Price: 7}},
		quiet:  90,
	},
	{
		// Oren asks Kestrel for two apples (#1); at 08:05 Mara calls Ember to battle-456
		// (#2; join by 08:25).
		name:   "mid-plan",
		energy: 70, gold: 30,
		events: []scriptEvent{
			say(0, "Oren", AgentName, kindChat, "Kestrel, could you buy me two apples at the market?"),
			fight(456, 5, 25, 27, 35, "Mara 25 @7", "Tomas 15 @8", "Ilka 30 @6", "Sefa 20 @9"),
		},
		prices: map[string]int{"apple": 3, "bread": 6, "stew": 14, "herbs": 9, "iron": 20},
		quiet:  60,
	},
	{
		// Mara has called Ember to battle-456 (#1), which starts at 08:04 and takes
		// fighters until 08:09; Kestrel has 60 energy, Mara's loyalty is 85.
		name:   "battle-starts",
		energy: 60, gold: 30, inventory: map[string]int{"bread": 1},
		members: []memberSetup{{name: "Mara", trust: 30, loyalty: 85}},
		events:  []scriptEvent{fight(456, 0, 9, 4, 14, "Mara 25 @1", "Oren 20 @2", "Ilka 30 @1", "Bram 20 @3")},
		prices:  map[string]int{"apple": 3, "bread": 6, "stew": 14, "herbs": 9, "iron": 20},
		quiet:   60,
	},
}

// scenarioNamed returns the scenario called name.
func scenarioNamed(name string) (scenario, bool) {
	i := slices.IndexFunc(scenarios, func(sc scenario) bool { return sc.name == name })
	if i < 0 {
		return scenario{}, false
	}
	return scenarios[i], true
}

// apply sets s, a new world, up as the scenario starts: the roster, the agent, the
// prices, and the events of minute 0, which are the starting situation (no trigger
// says them). Later events wait in s.Script.
func (sc scenario) apply(s *state) {
	s.Members = nil
	for i, name := range memberNames {
		s.Members = append(s.Members, &member{Name: name, Community: Communities[i/4], Leader: i%4 == 0, Trust: 10, Loyalty: 70})
	}
	w := &world{s: s}
	for _, ms := range sc.members {
		m, _ := w.memberNamed(ms.name)
		m.Trust, m.Loyalty, m.Memories = ms.trust, ms.loyalty, slices.Clone(ms.memories)
	}
	s.Agent = agentState{Name: AgentName, Community: "Ember", Standing: 10, Energy: sc.energy, Gold: sc.gold,
		Inventory: maps.Clone(sc.inventory)}
	if s.Agent.Inventory == nil {
		s.Agent.Inventory = map[string]int{}
	}
	s.Script = &scriptState{Name: sc.name, Quiet: sc.quiet, Prices: map[string]int{}, Moves: slices.Clone(sc.moves)}
	for _, it := range Items() {
		s.Script.Prices[it.Name] = s.Prices[it.Name]
		if p, ok := sc.prices[it.Name]; ok {
			s.Script.Prices[it.Name] = p
		}
	}
	maps.Copy(s.Prices, s.Script.Prices)
	s.NextBattle = sc.quiet + 2
	for _, e := range sc.events {
		s.Script.Events = append(s.Script.Events, e.clone())
	}
	w.scriptTick(0)
	w.take() // the starting situation is not news
}

// clone copies an event, so that a world never changes the scenarios' data.
func (e scriptEvent) clone() scriptEvent {
	if e.Message != nil {
		m := *e.Message
		e.Message = &m
	}
	if e.Battle != nil {
		b := *e.Battle
		b.Sides, b.Plan = slices.Clone(b.Sides), slices.Clone(b.Plan)
		e.Battle = &b
	}
	return e
}

// quiet reports whether minute m is in a scenario's quiet time.
func (w *world) quiet(m int64) bool { return w.s.Script != nil && m < w.s.Script.Quiet }

// scriptTick makes a scenario's events of minute m (and any missed before it) happen.
// A message at minute 0 is part of the starting situation and sends no trigger.
func (w *world) scriptTick(m int64) {
	sc := w.s.Script
	if sc == nil {
		return
	}
	for len(sc.Events) > 0 && sc.Events[0].At <= m {
		e := sc.Events[0]
		sc.Events = sc.Events[1:]
		switch {
		case e.Message != nil:
			w.post(e.Message, m == 0)
			if e.Message.Kind == kindHelp {
				e.Message.Due = w.s.Now.Add(helpDue)
			}
		case e.Battle != nil:
			w.open(e.Battle)
		}
	}
	if len(sc.Events) == 0 && m >= sc.Quiet {
		w.s.Script = nil // the scenario is over: the world lives on by itself
	}
}

// priceAt is an item's price in market period p: the scenario's during its quiet time,
// else the seed's.
func (w *world) priceAt(it Item, p int64) int {
	sc, m := w.s.Script, p*marketPeriod
	if sc == nil || m >= sc.Quiet {
		return price(w.s.Seed, it, p)
	}
	v := sc.Prices[it.Name]
	for _, mv := range sc.Moves {
		if mv.Item == it.Name && mv.At <= m {
			v = mv.Price
		}
	}
	return v
}

// scriptNext is the next game minute after now at which a scenario has something
// happen, or -1.
func (w *world) scriptNext(now int64) int64 {
	if sc := w.s.Script; sc != nil {
		for _, e := range sc.Events {
			if e.At > now {
				return e.At
			}
		}
	}
	return -1
}

// scenarioList words the scenarios for a refusal: "hello, bad-history, ...".
func scenarioList() string { return strings.Join(ScenarioNames(), ", ") }
