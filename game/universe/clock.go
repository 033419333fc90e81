package universe

import (
	"time"

	"github.com/coplayhq/coplay/game"
)

// Clock tells the universe the wall-clock time (game.Clock).
type Clock = game.Clock

// FakeClock is a Clock that only moves when told to (game.FakeClock).
type FakeClock = game.FakeClock

// SystemClock returns the Clock that reads the machine's wall clock.
func SystemClock() Clock { return game.SystemClock() }

// NewFakeClock returns a FakeClock that reads t until it is advanced or set.
func NewFakeClock(t time.Time) *FakeClock { return game.NewFakeClock(t) }
