package league

import "github.com/coplayhq/coplay/agent"

// Stamp returns ev as a league's stream carries it (its seat named, every id a person
// answers SEAT/ID), for a reader that rebuilds the league's stream from its seats'
// journals: the replay of a league (coplay sessions replay LEAGUE).
func Stamp(seat string, ev agent.Event) agent.Event { return stamp(seat, ev) }
