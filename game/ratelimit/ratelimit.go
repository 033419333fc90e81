// Package ratelimit is a server's side of the SpaceTraders rate limit: every key (a
// token, a client address, a seat) may make PerSecond requests a second, and when those
// are spent it draws on a pool of Burst requests that fills again BurstWindow after it
// was first drawn on. A request past both is refused with how long to wait. The offline
// universe (game/universe) answers 429 with it; a served world (game/mcpserve) limits
// each seat's calls with it.
//
// It imports nothing of coplay's.
package ratelimit

import (
	"math"
	"sync"
	"time"
)

// Budget is what a key may spend.
type Budget struct {
	PerSecond   int           // sustained requests a second (the bucket holds one second's)
	Burst       int           // the pool drawn on when the second's are spent
	BurstWindow time.Duration // the pool is full again this long after it is first drawn on
}

// SpaceTraders is the real server's budget: 2 a second, and a burst of 30 that fills
// again 60 s after it is first drawn on. With no time passing, 32 requests pass and the
// next is refused.
var SpaceTraders = Budget{PerSecond: 2, Burst: 30, BurstWindow: 60 * time.Second}

// Keyed keeps a Budget for each key. It is safe for concurrent use.
type Keyed struct {
	budget Budget
	mu     sync.Mutex
	keys   map[string]*bucket
}

type bucket struct {
	tokens     float64 // per-second allowance left
	last       time.Time
	burstLeft  int
	burstReset time.Time // zero until the pool is first drawn on
}

// New returns a Keyed limiter that gives every key b.
func New(b Budget) *Keyed { return &Keyed{budget: b, keys: map[string]*bucket{}} }

// Budget returns what each key may spend.
func (k *Keyed) Budget() Budget { return k.budget }

// Decision is the answer to one request.
type Decision struct {
	Allowed    bool
	Remaining  int           // requests left in the burst pool
	Reset      time.Time     // when the burst pool is full again
	RetryAfter time.Duration // when refused: how long until a request would pass
}

// Take spends one request of key's budget at now, or refuses it and says how long to
// wait.
func (k *Keyed) Take(key string, now time.Time) Decision {
	k.mu.Lock()
	defer k.mu.Unlock()
	b := k.budget
	s := k.keys[key]
	if s == nil {
		s = &bucket{tokens: float64(b.PerSecond), last: now, burstLeft: b.Burst}
		k.keys[key] = s
	}
	if dt := now.Sub(s.last); dt > 0 {
		s.tokens = math.Min(float64(b.PerSecond), s.tokens+dt.Seconds()*float64(b.PerSecond))
		s.last = now
	}
	if !s.burstReset.IsZero() && !now.Before(s.burstReset) {
		s.burstLeft, s.burstReset = b.Burst, time.Time{}
	}
	d := Decision{Allowed: true}
	switch {
	case s.tokens >= 1:
		s.tokens--
	case s.burstLeft > 0:
		s.burstLeft--
		if s.burstReset.IsZero() {
			s.burstReset = now.Add(b.BurstWindow)
		}
	default:
		d.Allowed = false
		d.RetryAfter = time.Duration((1 - s.tokens) / float64(b.PerSecond) * float64(time.Second))
		if untilBurst := s.burstReset.Sub(now); untilBurst < d.RetryAfter {
			d.RetryAfter = untilBurst
		}
	}
	d.Remaining = s.burstLeft
	d.Reset = s.burstReset
	if d.Reset.IsZero() {
		d.Reset = now.Add(b.BurstWindow)
	}
	return d
}
