package arena

import (
	"fmt"
	"slices"
	"strings"

	"github.com/coplayhq/coplay/game"
)

// planLeave decides leaving the agent's community: its members take it badly.
func (w *world) planLeave() (outcome, *game.Error) {
	s := &w.s.Agent
	if s.Community == "" {
		return outcome{}, refuse(CodeConflict, "you are in no community (join_community to join one)")
	}
	home := s.Community
	o := outcome{
		summary: fmt.Sprintf("leaves %s: standing %d → 0, and its members' trust falls", home, s.Standing),
		warning: fmt.Sprintf("%s's members will remember that you left", home),
		effects: map[string]float64{EffectStandingLost: float64(s.Standing)},
	}
	o.apply = func() string {
		for _, m := range w.membersOf(home) {
			hit := -15
			if m.Leader {
				hit = -20
			}
			w.remember(m, hit, "you left "+home)
		}
		s.Community, s.Standing = "", 0
		return fmt.Sprintf("You left %s. You see its channel no more; join_community to join another.", home)
	}
	return o, nil
}

// planJoinCommunity decides joining a community: its leader must not distrust the agent.
func (w *world) planJoinCommunity(a joinCommunityArgs) (outcome, *game.Error) {
	s, c := &w.s.Agent, string(a.Community)
	if !slices.Contains(Communities, c) {
		return outcome{}, refuse(CodeBadRequest, "no community %q (communities: %s)", c, strings.Join(Communities, ", "))
	}
	if s.Community != "" {
		return outcome{}, refuse(CodeConflict, "you are in %s: leave_community first", s.Community)
	}
	l := w.leaderOf(c)
	if l != nil && l.Trust < -30 {
		return outcome{}, refuse(CodeNotAllowed, "%s, %s's leader, does not trust you (trust %d): they will not have you", l.Name, c, l.Trust)
	}
	o := outcome{
		summary: fmt.Sprintf("joins %s (leader %s): standing 5, its channel %s", c, l.Name, channelOf(c)),
		effects: map[string]float64{EffectStandingLost: 0},
	}
	o.apply = func() string {
		s.Community, s.Standing = c, 5
		w.remember(l, 2, "you joined "+c)
		return fmt.Sprintf("You joined %s. Its leader is %s; its channel is %s.", c, l.Name, channelOf(c))
	}
	return o, nil
}
