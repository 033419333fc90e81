package arena

import (
	"sync"
	"time"
)

// DefaultSpeed is how many times faster than the wall clock game time runs when
// Config.Speed is 0: one game minute every 6 seconds.
const DefaultSpeed = 10

// Epoch is the game time a new world starts at: day 1, 08:00.
var Epoch = time.Date(2100, 1, 1, 8, 0, 0, 0, time.UTC)

// Clock tells the game the wall-clock time; game time runs at wall time × speed from it.
type Clock interface {
	Now() time.Time
}

type systemClock struct{}

// Now reads the machine's clock.
func (systemClock) Now() time.Time { return time.Now() }

// SystemClock returns the Clock that reads the machine's wall clock.
func SystemClock() Clock { return systemClock{} }

// FakeClock is a Clock that only moves when told to. It is safe for concurrent use.
type FakeClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewFakeClock returns a FakeClock that reads t until it is advanced.
func NewFakeClock(t time.Time) *FakeClock { return &FakeClock{now: t} }

// Now returns the clock's current time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// gameClock maps wall-clock time to game time: game = gameStart + (wall − wallStart) ×
// speed. It never goes back: a wall clock set backwards holds game time still.
type gameClock struct {
	clock     Clock
	speed     float64
	wallStart time.Time
	gameStart time.Time
}

func newGameClock(c Clock, speed float64, gameStart time.Time) gameClock {
	if speed <= 0 {
		speed = DefaultSpeed
	}
	return gameClock{clock: c, speed: speed, wallStart: c.Now(), gameStart: gameStart}
}

// game returns the game time at the wall time w.
func (g gameClock) game(w time.Time) time.Time {
	d := w.Sub(g.wallStart)
	if d < 0 {
		d = 0
	}
	return g.gameStart.Add(time.Duration(float64(d) * g.speed))
}

// wall returns the wall time at which the game reaches t (for timers and idle times,
// which the screen and the runner read on the wall clock).
func (g gameClock) wall(t time.Time) time.Time {
	return g.wallStart.Add(time.Duration(float64(t.Sub(g.gameStart)) / g.speed))
}

// wallDuration is how long d of game time takes on the wall clock.
func (g gameClock) wallDuration(d time.Duration) time.Duration {
	return time.Duration(float64(d) / g.speed)
}
