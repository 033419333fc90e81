package arena

import (
	"time"

	"github.com/coplayhq/coplay/game"
)

// DefaultSpeed is how many times faster than the wall clock game time runs when
// Config.Speed is 0: one game minute every 6 seconds.
const DefaultSpeed = 10

// Epoch is the game time a new world starts at: day 1, 08:00.
var Epoch = time.Date(2100, 1, 1, 8, 0, 0, 0, time.UTC)

// Clock tells the arena the wall-clock time (game.Clock).
type Clock = game.Clock

// FakeClock is a Clock that only moves when told to (game.FakeClock).
type FakeClock = game.FakeClock

// SystemClock returns the Clock that reads the machine's wall clock.
func SystemClock() Clock { return game.SystemClock() }

// NewFakeClock returns a FakeClock that reads t until it is advanced or set.
func NewFakeClock(t time.Time) *FakeClock { return game.NewFakeClock(t) }

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
