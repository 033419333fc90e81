package arena

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/coplayhq/coplay/game"
)

// statusText is what status shows: the agent, its community and what it holds.
func (w *world) statusText() string {
	a := &w.s.Agent
	var b strings.Builder
	fmt.Fprintf(&b, "%s · %s · %s\n", a.Name, w.homeLine(), stamp(w.s.Now))
	food, gain := w.food()
	fmt.Fprintf(&b, "energy %d/%d · gold %d · food %d (%s) worth +%d energy\n", a.Energy, MaxEnergy, a.Gold, food, w.foodList(), gain)
	fmt.Fprintf(&b, "inventory: %s\n", w.inventoryList())
	fmt.Fprintf(&b, "battles: won %d, lost %d\n", a.BattlesWon, a.BattlesLost)
	if a.Work != nil {
		j, _ := JobNamed(a.Work.Job)
		fmt.Fprintf(&b, "working: %s until %s (+%d gold then)\n", a.Work.Job, clock(a.Work.End), j.Gold*a.Work.Shifts)
	}
	return strings.TrimSpace(b.String())
}

// homeLine says where the agent belongs: "Ember (leader Mara) · standing 12".
func (w *world) homeLine() string {
	a := &w.s.Agent
	if a.Community == "" {
		return "no community"
	}
	lead := ""
	if l := w.leaderOf(a.Community); l != nil {
		lead = " (leader " + l.Name + ")"
	}
	return fmt.Sprintf("%s%s · standing %d", a.Community, lead, a.Standing)
}

// food returns how many food items the agent holds and the energy they would restore.
func (w *world) food() (n, energy int) {
	for _, it := range Items() {
		if it.Food > 0 {
			n += w.s.Agent.Inventory[it.Name]
			energy += it.Food * w.s.Agent.Inventory[it.Name]
		}
	}
	return n, energy
}

func (w *world) foodList() string { return w.itemList(true) }

func (w *world) inventoryList() string { return w.itemList(false) }

// itemList writes what the agent holds, in the market's order: "2 bread, 1 apple".
func (w *world) itemList(foodOnly bool) string {
	var parts []string
	for _, it := range Items() {
		if n := w.s.Agent.Inventory[it.Name]; n > 0 && (!foodOnly || it.Food > 0) {
			parts = append(parts, plural(n, it.Name))
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// messageLine writes one message: "#13 08:14 Mara → you (re #9): hi Kestrel! [unread]".
func messageLine(m *message, me string, width int) string {
	to := m.To
	if to == me {
		to = "you"
	}
	from := m.From
	if from == me {
		from = "you"
	}
	head := fmt.Sprintf("#%d %s %s → %s", m.ID, clock(m.Time), from, to)
	if m.ReplyTo != 0 {
		head += fmt.Sprintf(" (re #%d)", m.ReplyTo)
	}
	tail := ""
	if !m.Read {
		tail = " [unread]"
	}
	text := m.Text
	if width > 0 {
		text = cut(text, max(10, width-len([]rune(head))-len([]rune(tail))-2))
	}
	return head + ": " + text + tail
}

// messagesText lists messages, unread first (oldest first), then the latest read ones,
// and marks those shown as read.
func (w *world) messagesText(a messagesArgs) (string, *game.Error) {
	var who *member
	if a.Member != "" {
		m, err := w.memberNamed(a.Member)
		if err != nil {
			return "", err
		}
		who = m
	}
	limit := a.Limit
	if limit <= 0 {
		limit = 10
	}
	var unread, read []*message
	for _, m := range w.s.Messages {
		isChannel := strings.HasPrefix(m.To, "#")
		switch {
		case who != nil && m.From != who.Name && m.To != who.Name,
			a.Channel == "direct" && isChannel,
			a.Channel == "community" && !isChannel,
			a.UnreadOnly && m.Read:
			continue
		}
		if m.Read {
			read = append(read, m)
		} else {
			unread = append(unread, m)
		}
	}
	total := len(unread) + len(read)
	shown := append([]*message(nil), unread...)
	if len(shown) > limit {
		shown = shown[:limit]
	}
	if room := limit - len(shown); room > 0 && len(read) > 0 {
		shown = append(shown, read[max(0, len(read)-room):]...)
	}
	if total == 0 {
		return "No messages" + map[bool]string{true: " matching that", false: " yet"}[a.Member != "" || a.Channel != "" || a.UnreadOnly] + ".", nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d unread, %d shown of %d (unread first):\n", len(unread), len(shown), total)
	for _, m := range shown {
		b.WriteString("- " + messageLine(m, w.me(), 0) + "\n")
		m.Read = true
	}
	return strings.TrimSpace(b.String()), nil
}

// memberText is a member's profile and their shared history with the agent.
func (w *world) memberText(a memberArgs) (string, *game.Error) {
	if strings.EqualFold(strings.TrimSpace(a.Name), w.me()) {
		return "", refuse(CodeBadRequest, "%s is you: status shows your own state", w.me())
	}
	m, err := w.memberNamed(a.Name)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	role := "member of " + m.Community
	if m.Leader {
		role = "leader of " + m.Community
	}
	fmt.Fprintf(&b, "%s — %s · trust in you %d (%s) · loyalty %d\n", m.Name, role, m.Trust, trustWord(m.Trust), m.Loyalty)
	b.WriteString("Shared history with you:\n")
	if len(m.Memories) == 0 {
		b.WriteString("- nothing yet\n")
	}
	for _, mem := range m.Memories {
		sign := "+"
		if !mem.Good {
			sign = "−"
		}
		fmt.Fprintf(&b, "- %s %s %s\n", stamp(mem.Time), sign, mem.Text)
	}
	var recent []string
	for _, msg := range slices.Backward(w.s.Messages) {
		if msg.From == m.Name || msg.To == m.Name {
			recent = append(recent, "- "+messageLine(msg, w.me(), 0))
			if len(recent) == 3 {
				break
			}
		}
	}
	if len(recent) > 0 {
		slices.Reverse(recent)
		b.WriteString("Latest messages between you:\n" + strings.Join(recent, "\n"))
	}
	return strings.TrimSpace(b.String()), nil
}

// battleText is one battle in full, or, without an id, the open battles and the latest
// results.
func (w *world) battleText(a battleArgs) (string, *game.Error) {
	if strings.TrimSpace(a.ID) != "" {
		b, err := w.battleNamed(a.ID)
		if err != nil {
			return "", err
		}
		return w.battleDetail(b), nil
	}
	var lines []string
	over := 0
	for _, b := range slices.Backward(w.s.Battles) {
		if b.Over {
			if over++; over > 3 {
				continue
			}
		}
		lines = append(lines, "- "+w.battleLine(b))
	}
	if len(lines) == 0 {
		return "No battles yet; one is announced every 20 to 30 game minutes.", nil
	}
	slices.Reverse(lines)
	return "Battles:\n" + strings.Join(lines, "\n"), nil
}

// battleLine is a battle in one line.
func (w *world) battleLine(b *battle) string {
	now := w.s.Now
	you := ""
	if side := w.agentSide(b); side != "" {
		you = fmt.Sprintf("; you: %d for %s", w.agentEnergy(b), side)
	}
	switch {
	case b.Over:
		return fmt.Sprintf("%s %s vs %s: %s won%s", b.ID, b.Sides[0], b.Sides[1], b.Winner, you)
	case b.Started:
		return fmt.Sprintf("%s %s under way, ends %s (in %s)%s", b.ID, w.score(b), clock(b.End), until(now, b.End), you)
	case b.Closed:
		return fmt.Sprintf("%s %s starts %s (in %s), closed to joining%s", b.ID, w.score(b), clock(b.Start), until(now, b.Start), you)
	}
	return fmt.Sprintf("%s %s starts %s (in %s), join by %s (in %s)%s", b.ID, w.score(b), clock(b.Start), until(now, b.Start), clock(b.Deadline), until(now, b.Deadline), you)
}

// battleDetail is a battle in full.
func (w *world) battleDetail(b *battle) string {
	var s strings.Builder
	fmt.Fprintf(&s, "%s: %s vs %s\n", b.ID, b.Sides[0], b.Sides[1])
	fmt.Fprintf(&s, "announced %s · join by %s · starts %s · ends %s (game time; now %s)\n",
		clock(b.Announced), clock(b.Deadline), clock(b.Start), clock(b.End), clock(w.s.Now))
	fmt.Fprintf(&s, "energy committed: %s\n", w.score(b))
	var names []string
	for _, f := range b.Fighters {
		names = append(names, fmt.Sprintf("%s %d (%s)", f.Name, f.Energy, f.Side))
	}
	sort.Strings(names)
	if len(names) > 0 {
		fmt.Fprintf(&s, "fighters: %s\n", strings.Join(names, ", "))
	}
	if why := w.joinable(b); why != "" {
		s.WriteString("cannot be joined: " + why + "\n")
	} else {
		fmt.Fprintf(&s, "open for joining: starts in %s, join within %s\n", until(w.s.Now, b.Start), until(w.s.Now, b.Deadline))
	}
	if side := w.agentSide(b); side != "" {
		fmt.Fprintf(&s, "you fight for %s with %d energy\n", side, w.agentEnergy(b))
	}
	if b.Over {
		fmt.Fprintf(&s, "result: %s won (power %s)", b.Winner, w.powers(b))
		if b.Reward > 0 {
			fmt.Fprintf(&s, "; you won %d gold", b.Reward)
		}
	}
	return strings.TrimSpace(s.String())
}

// marketText lists prices, what the market pays and its stock.
func (w *world) marketText() string {
	var b strings.Builder
	next := timeOf((w.s.Period + 1) * marketPeriod)
	fmt.Fprintf(&b, "Market (these prices hold until %s):\n", clock(next))
	for _, it := range Items() {
		p := w.s.Prices[it.Name]
		use := "not food"
		if it.Food > 0 {
			use = fmt.Sprintf("food +%d energy", it.Food)
		}
		fmt.Fprintf(&b, "- %-5s %3d gold%s (buys at %d) · stock %d · %s · you hold %d\n",
			it.Name, p, w.trend(it), sellPrice(p), w.s.Stock[it.Name], use, w.s.Agent.Inventory[it.Name])
	}
	return strings.TrimSpace(b.String())
}
