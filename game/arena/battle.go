package arena

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// battleTick announces the next battle when its minute comes, lets the members commit
// their energy as planned, closes joining at the deadline, starts and resolves.
func (w *world) battleTick(m int64) {
	if m >= w.s.NextBattle {
		w.announce(m)
		w.s.NextBattle = m + int64(between(w.s.Seed, 18, 30, "next-battle", m))
	}
	for _, b := range w.s.Battles {
		if b.Over {
			continue
		}
		w.commitPlanned(b)
		switch {
		case !b.Closed && w.s.Now.Equal(b.Deadline.Add(-2*time.Minute)) && w.calledAgent(b) && w.agentSide(b) == "":
			w.emit("schedule", b.ID, fmt.Sprintf("%s: join by %s (in 2m); %s", b.ID, clock(b.Deadline), w.score(b)))
		case !b.Closed && !w.s.Now.Before(b.Deadline):
			w.closeJoining(b)
		}
		if !b.Started && !w.s.Now.Before(b.Start) {
			b.Started = true
			text := fmt.Sprintf("%s has begun: %s; ends %s", b.ID, w.score(b), clock(b.End))
			if w.joinable(b) == "" {
				text += "; join by " + clock(b.Deadline)
			}
			w.emit("battle.started", b.ID, text)
		}
		if b.Started && !w.s.Now.Before(b.End) {
			w.resolve(b)
		}
	}
}

// announce opens a battle: usually the agent's community against another, starting in
// 8–12 minutes, joinable until a minute or two before. Each side's members plan what
// they commit, and its leader calls the community to fight.
func (w *world) announce(m int64) {
	s := w.s
	s.BattleNum += between(s.Seed, 1, 9, "battle-step", m)
	b := &battle{ID: fmt.Sprintf("battle-%d", s.BattleNum), Num: s.BattleNum, Announced: s.Now}
	first := Communities[below(s.Seed, len(Communities), "side-a", m)]
	if s.Agent.Community != "" && unit(s.Seed, "side-home", m) < 0.75 {
		first = s.Agent.Community
	}
	var others []string
	for _, c := range Communities {
		if c != first {
			others = append(others, c)
		}
	}
	b.Sides = []string{first, others[below(s.Seed, len(others), "side-b", m)]}
	b.Start = s.Now.Add(time.Duration(between(s.Seed, 8, 12, "start", m)) * time.Minute)
	b.Deadline = b.Start.Add(-time.Duration(between(s.Seed, 1, 2, "deadline", m)) * time.Minute)
	b.End = b.Start.Add(time.Duration(between(s.Seed, 6, 10, "length", m)) * time.Minute)
	for si, side := range b.Sides {
		for i, mem := range w.membersOf(side) {
			k := int64(s.BattleNum*100 + si*10 + i)
			if unit(s.Seed, "fights", k) >= 0.35+float64(mem.Loyalty)/200 {
				continue
			}
			window := max(1, int(b.Deadline.Sub(s.Now)/time.Minute)-1)
			at := s.Now.Add(time.Duration(between(s.Seed, 1, window, "commit-at", k)) * time.Minute)
			b.Plan = append(b.Plan, fighter{Name: mem.Name, Side: side, Energy: between(s.Seed, 10, 40, "commit", k), At: at})
		}
	}
	w.open(b)
}

// open adds an announced battle to the world: the leader of the agent's community, when
// it fights, calls everyone on the channel, and a battle.announced trigger says so.
func (w *world) open(b *battle) {
	s := w.s
	b.Committed, b.Calls = map[string]int{}, map[string]int{}
	for _, side := range b.Sides {
		b.Committed[side] = 0
	}
	s.BattleNum = max(s.BattleNum, b.Num)
	s.Battles = append(s.Battles, b)
	text := fmt.Sprintf("%s vs %s: starts %s, join by %s", b.Sides[0], b.Sides[1], clock(b.Start), clock(b.Deadline))
	if side := s.Agent.Community; slices.Contains(b.Sides, side) {
		if l := w.leaderOf(side); l != nil {
			call := w.post(&message{From: l.Name, To: channelOf(side), Kind: kindCall, Battle: b.ID,
				Text: fmt.Sprintf("Everyone fight in %s! Join by %s.", b.ID, clock(b.Deadline))}, true)
			b.Calls[side] = call.ID
			text = fmt.Sprintf("%s: %s (%s)", l.Name, call.Text, text)
		}
	}
	w.emit("battle.announced", b.ID, text)
}

// commitPlanned adds the members' commitments that are due.
func (w *world) commitPlanned(b *battle) {
	kept := b.Plan[:0]
	for _, f := range b.Plan {
		if w.s.Now.Before(f.At) {
			kept = append(kept, f)
			continue
		}
		b.Fighters = append(b.Fighters, f)
		b.Committed[f.Side] += f.Energy
	}
	b.Plan = kept
}

// calledAgent reports whether the agent's community fights in b and its leader called.
func (w *world) calledAgent(b *battle) bool {
	_, ok := b.Calls[w.s.Agent.Community]
	return ok
}

// agentSide returns the side the agent fights for in b, or "".
func (w *world) agentSide(b *battle) string {
	for _, f := range b.Fighters {
		if f.Name == w.me() {
			return f.Side
		}
	}
	return ""
}

// agentEnergy returns the energy the agent committed to b.
func (w *world) agentEnergy(b *battle) int {
	n := 0
	for _, f := range b.Fighters {
		if f.Name == w.me() {
			n += f.Energy
		}
	}
	return n
}

// closeJoining ends joining; an agent whose leader called and who did not come is
// remembered for it.
func (w *world) closeJoining(b *battle) {
	b.Closed = true
	b.Plan = nil // late commitments are lost
	if !w.calledAgent(b) || w.agentSide(b) != "" {
		return
	}
	if l := w.leaderOf(w.s.Agent.Community); l != nil {
		w.remember(l, -6, "you ignored my call to fight in "+b.ID)
		w.s.Agent.Standing = clamp(w.s.Agent.Standing-3, 0, 100)
	}
}

// score words the energy committed so far: "Ember 85 (4) vs Tide 60 (3)".
func (w *world) score(b *battle) string {
	var parts []string
	for _, side := range b.Sides {
		n := 0
		for _, f := range b.Fighters {
			if f.Side == side {
				n++
			}
		}
		parts = append(parts, fmt.Sprintf("%s %d (%d)", side, b.Committed[side], n))
	}
	return strings.Join(parts, " vs ")
}

// power is a side's strength: the energy it committed, give or take 15% of seeded luck.
func (w *world) power(b *battle, i int) int {
	luck := 0.85 + 0.3*unit(w.s.Seed, "luck", int64(b.Num), int64(i))
	return int(math.Round(float64(b.Committed[b.Sides[i]]) * luck))
}

// resolve ends a battle: the stronger side wins; the agent, if it fought, gains gold and
// standing when its side won, and its fellow fighters remember it.
func (w *world) resolve(b *battle) {
	b.Over = true
	b.Power = map[string]int{}
	best := 0
	for i, side := range b.Sides {
		b.Power[side] = w.power(b, i)
		if b.Power[side] > b.Power[b.Sides[best]] {
			best = i
		}
	}
	b.Winner = b.Sides[best]
	for _, mem := range w.s.Members {
		if slices.Contains(b.Sides, mem.Community) {
			if mem.Community == b.Winner {
				mem.Loyalty = clamp(mem.Loyalty+2, 0, 100)
			} else {
				mem.Loyalty = clamp(mem.Loyalty-1, 0, 100)
			}
		}
	}
	text := fmt.Sprintf("%s won %s (power %s)", b.Winner, b.ID, w.powers(b))
	if side := w.agentSide(b); side != "" {
		text += "; " + w.rewardAgent(b, side)
	}
	if home := w.s.Agent.Community; slices.Contains(b.Sides, home) {
		if l := w.leaderOf(home); l != nil {
			verdict := fmt.Sprintf("We won %s! Well fought.", b.ID)
			if b.Winner != home {
				verdict = fmt.Sprintf("We lost %s. Rest, and next time.", b.ID)
			}
			w.post(&message{From: l.Name, To: channelOf(home), Kind: kindResult, Battle: b.ID, Text: verdict}, true)
		}
	}
	w.emit("battle.ended", b.ID, text)
}

func (w *world) powers(b *battle) string {
	var parts []string
	for _, side := range b.Sides {
		parts = append(parts, fmt.Sprintf("%s %d", side, b.Power[side]))
	}
	return strings.Join(parts, " vs ")
}

// rewardAgent pays the agent for a battle it fought in and returns what it got.
func (w *world) rewardAgent(b *battle, side string) string {
	a := &w.s.Agent
	won := side == b.Winner
	home := side == a.Community
	got := "you lost"
	switch {
	case won:
		b.Reward = 10 + w.agentEnergy(b)*3/4
		a.Gold += b.Reward
		a.BattlesWon++
		got = fmt.Sprintf("you won %d gold", b.Reward)
		if home {
			a.Standing = clamp(a.Standing+5, 0, 100)
		}
	default:
		a.BattlesLost++
		if home {
			a.Standing = clamp(a.Standing+1, 0, 100)
		}
	}
	outcome := map[bool]string{true: "won", false: "lost"}[won]
	for _, f := range b.Fighters {
		m, err := w.memberNamed(f.Name)
		if err != nil || f.Name == w.me() {
			continue
		}
		if f.Side == side {
			w.remember(m, 3, fmt.Sprintf("fought beside you in %s (%s)", b.ID, outcome))
		} else if m.Community == a.Community {
			w.remember(m, -4, fmt.Sprintf("you fought against us in %s", b.ID))
		}
	}
	return got
}
