package arena

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Shared histories a new world starts with: some members remember the agent well, some
// badly. %d is an old battle's number.
var (
	goodPasts = []string{
		"fought beside you in battle-%d",
		"you shared your bread with me in the winter (battle-%d)",
		"you carried me off the field in battle-%d",
	}
	badPasts = []string{
		"you ignored my call for help in battle-%d",
		"you sold me rotten bread after battle-%d",
		"you fled battle-%d and left me alone",
	}
)

// newState makes the world of a seed: members shuffled into communities (the first of
// each leads), the agent in one of them, shared histories good and bad, the market's
// first prices and the first battle a few minutes away.
func newState(seed int64) *state {
	s := &state{
		Version: stateVersion, Seed: seed, Now: Epoch, Tick: 0,
		NextMessage: 1,
		BattleNum:   100 + below(seed, 800, "battle-num"),
		NextBattle:  int64(between(seed, 2, 4, "first-battle")),
	}
	names := slices.Clone(memberNames)
	for i := len(names) - 1; i > 0; i-- { // Fisher–Yates, seeded
		j := below(seed, i+1, "shuffle", int64(i))
		names[i], names[j] = names[j], names[i]
	}
	for i, name := range names {
		m := &member{Name: name, Community: Communities[i%len(Communities)], Leader: i < len(Communities),
			Loyalty: between(seed, 40, 95, "loyalty", int64(i)), Trust: between(seed, 0, 30, "trust", int64(i))}
		s.Members = append(s.Members, m)
	}
	s.pastHistories()
	s.Agent = agentState{
		Name: AgentName, Community: Communities[below(seed, len(Communities), "home")],
		Standing: 10, Energy: 70, Gold: 40, Inventory: map[string]int{"bread": 2, "apple": 1},
	}
	s.Prices, s.Stock = map[string]int{}, map[string]int{}
	for _, it := range Items() {
		s.Prices[it.Name] = price(seed, it, 0)
		s.Stock[it.Name] = it.Stock
	}
	return s
}

// pastHistories gives three members a bad shared history with the agent and three a
// good one, from before the game starts.
func (s *state) pastHistories() {
	order := make([]int, len(s.Members))
	for i := range order {
		order[i] = i
	}
	for i := len(order) - 1; i > 0; i-- {
		j := below(s.Seed, i+1, "history-order", int64(i))
		order[i], order[j] = order[j], order[i]
	}
	for k, idx := range order[:6] {
		m := s.Members[idx]
		old := between(s.Seed, 10, 60, "old-battle", int64(k))
		at := Epoch.Add(-time.Duration(between(s.Seed, 2, 40, "old-time", int64(k))) * time.Hour)
		if k < 3 {
			m.Trust = -between(s.Seed, 15, 40, "bad-trust", int64(k))
			m.Memories = append(m.Memories, memory{Time: at, Text: fmt.Sprintf(badPasts[k%len(badPasts)], old)})
			continue
		}
		m.Trust += 15
		m.Memories = append(m.Memories, memory{Time: at, Text: fmt.Sprintf(goodPasts[k%len(goodPasts)], old), Good: true})
	}
}

// channelOf names a community's channel: "#ember".
func channelOf(community string) string { return "#" + strings.ToLower(community) }

// communityOfChannel returns the community whose channel is ch, or "".
func communityOfChannel(ch string) string {
	for _, c := range Communities {
		if channelOf(c) == ch {
			return c
		}
	}
	return ""
}
