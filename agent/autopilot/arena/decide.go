package arena

import (
	"fmt"
	"slices"
	"strings"
	"time"

	arenagame "github.com/coplayhq/coplay/game/arena"
)

// The autopilot's thresholds.
const (
	hungry      = 35               // below this energy it eats, buys food or works for it
	fightMin    = 25               // the least energy it fights with (after eating)
	keepEnergy  = 15               // what it keeps back when it commits to a battle
	maxCommit   = 40               // the most it commits to one battle
	workMin     = 40               // the least energy it starts work with
	workKeep    = 30               // the energy it keeps when it works
	stockUpGold = 30               // with this much gold and no food, it buys some
	replyAge    = 30 * time.Minute // older messages are left unanswered
	maxReplies  = 2                // answers a step
	readAfter   = 3                // unread messages that need no answer before it reads them
)

// decision is what the autopilot does this step, and what it waits for.
type decision struct {
	calls []action
	waits []string
}

// decider applies the rules to one view of the world.
type decider struct {
	v   arenagame.View
	mem *memory
	dec decision
}

func (d *decider) propose(a action) bool {
	if why := d.mem.blocked(a.key); why != "" {
		d.dec.waits = append(d.dec.waits, "not "+a.key+" again yet ("+why+")")
		return false
	}
	d.dec.calls = append(d.dec.calls, a)
	return true
}

// decide returns this step's calls, by the rules in order: fight when called, report,
// answer who wrote, keep energy up, read the rest, work.
func decide(v arenagame.View, mem *memory) decision {
	d := &decider{v: v, mem: mem}
	if d.v.Agent.Community == "" {
		d.rejoin()
	}
	fought := d.fight()
	d.report()
	d.reply()
	if !fought {
		d.eat()
	}
	d.read()
	if len(d.dec.calls) == 0 {
		d.work()
	}
	if len(d.dec.calls) == 0 {
		d.waitReasons()
	}
	return d.dec
}

// fight joins the first battle the agent's community fights in that can still be
// joined, eating first when energy is low, committing half its energy (5 to 40, keeping
// 15 back).
func (d *decider) fight() bool {
	a := d.v.Agent
	if d.mem.noFight || a.Working || a.Community == "" {
		return false
	}
	for _, b := range d.v.Battles {
		if !b.Joinable || b.Side != "" || !slices.Contains(b.Sides, a.Community) {
			continue
		}
		energy := a.Energy
		var eat *action
		t := d.mem.t
		if energy < t.fightMin+t.keepEnergy {
			if food, gain := bestFood(a); food != "" {
				e := call("eat", arenagame.ToolConsume, map[string]any{"item": food}, "Eat %s (+%d energy) before %s.", food, gain, b.ID)
				eat, energy = &e, min(arenagame.MaxEnergy, energy+gain)
			}
		}
		if energy < t.fightMin {
			d.dec.waits = append(d.dec.waits, fmt.Sprintf("too tired to fight in %s (energy %d)", b.ID, energy))
			return false
		}
		commit := max(arenagame.MinCommit, t.commit(energy))
		if eat != nil && !d.propose(*eat) {
			return false
		}
		return d.propose(call("join "+b.ID, arenagame.ToolJoinBattle, map[string]any{"battle": b.ID, "energy": commit},
			"Fight for %s in %s with %d energy (%s called; join by %s).", a.Community, b.ID, commit, a.Leader, b.Deadline.Format("15:04")))
	}
	return false
}

// report tells the leader the agent joined, answering the call when there was one.
func (d *decider) report() {
	a := d.v.Agent
	if a.Leader == "" {
		return
	}
	for _, b := range d.v.Battles {
		if b.Over || b.Reported || b.Side != a.Community {
			continue
		}
		if l, ok := d.v.Member(a.Leader); ok && d.needsHistory(l) {
			d.readHistory(l)
			return
		}
		args := map[string]any{"to": a.Leader, "text": fmt.Sprintf("I'm in %s for %s with %d energy.", b.ID, b.Side, b.Energy)}
		if b.Called && b.Call > 0 {
			args["reply_to"] = b.Call
		}
		d.propose(call("report "+b.ID, arenagame.ToolSendMessage, args, "Tell %s I joined %s.", a.Leader, b.ID))
		return
	}
}

// reply answers recent messages to or about the agent, oldest first, a few a step;
// before answering someone with a bad history it reads their history (member) first.
func (d *decider) reply() {
	mine := map[int]bool{}
	for _, m := range d.v.Messages {
		if m.From == d.v.Agent.Name {
			mine[m.ID] = true
		}
	}
	n := 0
	for _, msg := range d.v.Messages {
		if n >= maxReplies {
			return
		}
		if !msg.Mentions || msg.Answered || mine[msg.ReplyTo] || d.v.Now.Sub(msg.Time) > replyAge || d.callToFight(msg) {
			continue
		}
		who, ok := d.v.Member(msg.From)
		if !ok {
			continue
		}
		if d.needsHistory(who) {
			d.readHistory(who)
			n++
			continue
		}
		to := msg.From
		if strings.HasPrefix(msg.To, "#") {
			to = "channel"
		}
		if d.propose(call(fmt.Sprintf("reply #%d", msg.ID), arenagame.ToolSendMessage,
			map[string]any{"to": to, "text": d.replyText(msg, who), "reply_to": msg.ID},
			"Answer %s's message #%d.", msg.From, msg.ID)) {
			n++
		}
	}
}

// needsHistory reports whether who has a bad shared history (or distrusts the agent)
// that the autopilot has not read since it last grew.
func (d *decider) needsHistory(who arenagame.MemberView) bool {
	return (who.BadHistory || who.Trust < 0) && d.mem.checked[who.Name] <= who.BadMemories
}

// readHistory proposes reading a member's history (the member tool) before answering.
func (d *decider) readHistory(who arenagame.MemberView) {
	if d.propose(call("member "+who.Name, arenagame.ToolMember, map[string]any{"name": who.Name},
		"Read %s's history with me before answering (trust %d).", who.Name, who.Trust)) {
		d.mem.checked[who.Name] = who.BadMemories + 1
	}
}

// callToFight reports whether msg is a leader's call to a battle the autopilot will
// answer by joining (and reporting) rather than with words.
func (d *decider) callToFight(msg arenagame.MessageView) bool {
	if msg.Battle == "" || d.mem.noFight {
		return false
	}
	for _, b := range d.v.Battles {
		if b.ID == msg.Battle && b.Call == msg.ID {
			return true
		}
	}
	return false
}

// replyText words an answer, by who wrote and what they asked.
func (d *decider) replyText(msg arenagame.MessageView, who arenagame.MemberView) string {
	name, lower := msg.From, strings.ToLower(msg.Text)
	switch {
	case msg.Battle != "" && d.mem.noFight:
		return fmt.Sprintf("Sorry %s, I'm staying out of %s.", name, msg.Battle)
	case strings.Contains(lower, "thanks for nothing"):
		return fmt.Sprintf("I'm sorry, %s. I missed your call; it won't happen again.", name)
	case who.BadHistory || who.Trust < 0:
		return fmt.Sprintf("%s, I know things went wrong between us. I'd like to make it right.", name)
	case strings.Contains(lower, "help") || strings.Contains(lower, "need"):
		return fmt.Sprintf("I'm here, %s. Tell me what you need and I'll help.", name)
	case strings.Contains(lower, "battle") || strings.Contains(lower, "fight"):
		if d.mem.noFight {
			return fmt.Sprintf("Not this time, %s: I'm staying out of battles for now.", name)
		}
		if who.Leader {
			return fmt.Sprintf("Count me in, %s: call and I'll fight.", name)
		}
		return fmt.Sprintf("Count me in, %s: I'll fight when %s calls.", name, d.v.Agent.Leader)
	case strings.HasSuffix(strings.TrimSpace(lower), "?"):
		return fmt.Sprintf("All good here, %s. Thanks for asking!", name)
	}
	return fmt.Sprintf("Hi %s! Good to hear from you.", name)
}

// eat keeps energy up: below hungry, eat food held, else buy the food that restores most
// energy per gold, else work a farm shift (it pays an apple). With no food and gold to
// spare it stocks up.
func (d *decider) eat() {
	a, t := d.v.Agent, d.mem.t
	if a.Energy >= t.hungry {
		if food, _ := bestFood(a); food == "" && a.Gold >= t.stockUpGold {
			if item, price := d.bestBuy(); item != "" {
				d.propose(call("buy "+item, arenagame.ToolBuy, map[string]any{"item": item, "quantity": 2, "max_price": price},
					"Buy 2 %s at %d gold each: I hold no food.", item, price))
			}
		}
		return
	}
	if food, gain := bestFood(a); food != "" {
		d.propose(call("eat", arenagame.ToolConsume, map[string]any{"item": food}, "Eat %s: energy %d is low (+%d).", food, a.Energy, gain))
		return
	}
	if item, price := d.bestBuy(); item != "" {
		n := min(2, a.Gold/price)
		d.propose(call("buy "+item, arenagame.ToolBuy, map[string]any{"item": item, "quantity": n, "max_price": price},
			"Buy %d %s at %d gold each: energy %d is low and I hold no food.", n, item, price, a.Energy))
		return
	}
	if !a.Working && a.Energy >= 10 {
		d.propose(call("work", arenagame.ToolWork, map[string]any{"job": "farm", "shifts": 1},
			"Work a farm shift: no food and %d gold; it pays gold and an apple.", a.Gold))
	}
}

// bestFood returns the food held that restores the most energy without wasting any (or
// the smallest, when all would overflow), and what it restores.
func bestFood(a arenagame.AgentView) (string, int) {
	best, gain := "", 0
	for _, it := range arenagame.Items() {
		if it.Food == 0 || a.Inventory[it.Name] == 0 {
			continue
		}
		fits := a.Energy+it.Food <= arenagame.MaxEnergy
		if best == "" || (fits && it.Food > gain) {
			best, gain = it.Name, it.Food
		}
	}
	return best, gain
}

// bestBuy returns the food in stock with the most energy per gold that the agent can
// afford, and its price.
func (d *decider) bestBuy() (string, int) {
	best, price, value := "", 0, 0.0
	for _, it := range arenagame.Items() {
		p := d.v.Prices[it.Name]
		if it.Food == 0 || p <= 0 || p > d.v.Agent.Gold || d.v.Stock[it.Name] == 0 {
			continue
		}
		if v := float64(it.Food) / float64(p); v > value {
			best, price, value = it.Name, p, v
		}
	}
	return best, price
}

// read reads the messages that need no answer once a few have piled up.
func (d *decider) read() {
	n := 0
	for _, m := range d.v.Messages {
		if !m.Read && (!m.Mentions || m.Answered) {
			n++
		}
	}
	if n >= readAfter {
		d.propose(call("read", arenagame.ToolMessages, map[string]any{"unread_only": true, "limit": 20},
			"Read the %d unread messages that need no answer.", n))
	}
}

// work takes a shift of the best-paying job the energy allows, keeping workKeep back,
// when no battle of the agent's community is open to join.
func (d *decider) work() {
	a, t := d.v.Agent, d.mem.t
	if a.Working || a.Energy < t.workMin {
		return
	}
	for _, b := range d.v.Battles {
		if b.Joinable && b.Side == "" && slices.Contains(b.Sides, a.Community) && !d.mem.noFight {
			return
		}
	}
	jobs := arenagame.Jobs()
	for i := len(jobs) - 1; i >= 0; i-- {
		j := jobs[i]
		if a.Energy-j.Energy >= t.workKeep {
			d.propose(call("work", arenagame.ToolWork, map[string]any{"job": j.Name, "shifts": 1},
				"Work a %s shift: %d gold for %d energy (energy %d).", j.Name, j.Gold, j.Energy, a.Energy))
			return
		}
	}
}

// rejoin joins the community whose leader trusts the agent most, when it is in none.
func (d *decider) rejoin() {
	best, trust := "", -31
	for _, m := range d.v.Members {
		if m.Leader && m.Trust > trust {
			best, trust = m.Community, m.Trust
		}
	}
	if best != "" {
		d.propose(call("join "+best, arenagame.ToolJoinCommunity, map[string]any{"community": best},
			"Join %s: I belong to no community, and its leader trusts me most (%d).", best, trust))
	}
}

// waitReasons says what the autopilot waits for when it has nothing to do.
func (d *decider) waitReasons() {
	a := d.v.Agent
	switch {
	case a.Working:
		d.dec.waits = append(d.dec.waits, "my work to end at "+a.WorkEnds.Format("15:04"))
	case a.Energy < d.mem.t.workMin:
		d.dec.waits = append(d.dec.waits, fmt.Sprintf("a battle call or a need to eat (energy %d is too low to work, not low enough to eat)", a.Energy))
	}
	d.dec.waits = append(d.dec.waits, "the next message or battle call")
}
