package arena

import (
	"fmt"
	"slices"
	"strings"

	"github.com/coplayhq/coplay/game"
)

// battleNamed returns the battle with id ("battle-456"; "456" will do), or a refusal
// that says which battles there are.
func (w *world) battleNamed(id string) (*battle, *game.Error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if !strings.HasPrefix(id, "battle-") {
		id = "battle-" + strings.TrimPrefix(strings.TrimPrefix(id, "battle"), " ")
	}
	var ids []string
	for _, b := range w.s.Battles {
		if b.ID == id {
			return b, nil
		}
		ids = append(ids, b.ID)
	}
	if len(ids) == 0 {
		return nil, refuse(CodeUnknown, "no battle %q: none announced yet", id)
	}
	msg := fmt.Sprintf("no battle %q", id)
	if near := game.Closest(id, ids, 1); len(near) > 0 {
		msg += fmt.Sprintf(": did you mean %q?", near[0])
	} else {
		msg += " (battles: " + strings.Join(ids, ", ") + ")"
	}
	return nil, refuse(CodeUnknown, "%s", msg)
}

// joinable says why b can no longer be joined, or "" when it can: until its deadline,
// which is usually before its start (a scenario's battle may take fighters after).
func (w *world) joinable(b *battle) string {
	switch {
	case b.Over:
		return fmt.Sprintf("%s is over (%s won)", b.ID, b.Winner)
	case !b.Closed && w.s.Now.Before(b.Deadline):
		return "" // a battle whose deadline is after its start takes fighters late
	case b.Started:
		return fmt.Sprintf("%s already started at %s (joining closed at %s)", b.ID, clock(b.Start), clock(b.Deadline))
	}
	return fmt.Sprintf("%s closed for joining at %s (it starts %s)", b.ID, clock(b.Deadline), clock(b.Start))
}

// planJoinBattle decides committing energy to a side of a battle (the agent's
// community's side when none is given).
func (w *world) planJoinBattle(a joinBattleArgs) (outcome, *game.Error) {
	s := &w.s.Agent
	b, err := w.battleNamed(a.Battle)
	if err != nil {
		return outcome{}, err
	}
	if why := w.joinable(b); why != "" {
		return outcome{}, refuse(CodeConflict, "%s", why)
	}
	if s.Work != nil {
		return outcome{}, refuse(CodeConflict, "you are working (%s) until %s: you cannot fight before then", s.Work.Job, clock(s.Work.End))
	}
	side := string(a.Side)
	switch {
	case side == "" && slices.Contains(b.Sides, s.Community):
		side = s.Community
	case side == "":
		return outcome{}, refuse(CodeBadRequest, "your community does not fight in %s: say which side (%s)", b.ID, strings.Join(b.Sides, " or "))
	case !slices.Contains(b.Sides, side):
		return outcome{}, refuse(CodeBadRequest, "%s does not fight in %s (%s)", side, b.ID, strings.Join(b.Sides, " vs "))
	}
	if was := w.agentSide(b); was != "" && was != side {
		return outcome{}, refuse(CodeConflict, "you already fight for %s in %s", was, b.ID)
	}
	if a.Energy < MinCommit {
		return outcome{}, refuse(CodeBadRequest, "commit at least %d energy, not %d", MinCommit, a.Energy)
	}
	if a.Energy > s.Energy {
		return outcome{}, refuse(CodeNotEnough, "not enough energy: you have %d, asked to commit %d", s.Energy, a.Energy)
	}
	o := outcome{
		summary: fmt.Sprintf("commits %d energy to %s in %s (%s so far): energy %d → %d; starts %s (in %s), can be joined until %s",
			a.Energy, side, b.ID, w.score(b), s.Energy, s.Energy-a.Energy, clock(b.Start), until(w.s.Now, b.Start), clock(b.Deadline)),
		effects: map[string]float64{EffectEnergy: float64(a.Energy), EffectEnergyAfter: float64(s.Energy - a.Energy)},
	}
	switch {
	case s.Community != "" && side != s.Community && slices.Contains(b.Sides, s.Community):
		o.warning = fmt.Sprintf("you would fight against your own community, %s", s.Community)
	case s.Energy-a.Energy < 10:
		o.warning = fmt.Sprintf("leaves you %d energy", s.Energy-a.Energy)
	}
	o.apply = func() string {
		s.Energy -= a.Energy
		b.Fighters = append(b.Fighters, fighter{Name: w.me(), Side: side, Energy: a.Energy, At: w.s.Now})
		b.Committed[side] += a.Energy
		w.tellPeers(letter{From: w.me(), Battle: b.ID, Side: side, Energy: a.Energy})
		if o.warning != "" && strings.HasPrefix(o.warning, "you would fight against") {
			if l := w.leaderOf(s.Community); l != nil {
				w.remember(l, -10, "you fought against us in "+b.ID)
			}
		}
		return fmt.Sprintf("You fight for %s in %s with %d energy (%s). It starts %s and ends %s. Energy %d.",
			side, b.ID, w.agentEnergy(b), w.score(b), clock(b.Start), clock(b.End), s.Energy)
	}
	return o, nil
}
