package spacetraders

import (
	"time"

	"github.com/coplayhq/coplay/game/polite"
)

// RateLimit is the request budget a client keeps to (see polite.Budget). The zero value
// means the real game's published limit: 2 requests per second, and a burst of 30 per
// 60 seconds. The client follows the x-ratelimit-* headers the server sends.
type RateLimit = polite.Budget

// realLimit is the real game's published budget.
var realLimit = RateLimit{PerSecond: 2, Burst: 30, BurstWindow: 60 * time.Second}

func withDefaults(r RateLimit) RateLimit {
	if r.PerSecond <= 0 {
		r.PerSecond = realLimit.PerSecond
	}
	if r.Burst <= 0 {
		r.Burst = realLimit.Burst
	}
	if r.BurstWindow <= 0 {
		r.BurstWindow = realLimit.BurstWindow
	}
	return r
}
