package game

import (
	"context"
	"sync"
	"time"
)

// Clock tells an offline world the wall-clock time (the universe, the arena); tests give
// a FakeClock to move time by hand.
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

// NewFakeClock returns a FakeClock that reads t until it is advanced or set.
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

// Set moves the clock to t.
func (c *FakeClock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// Sleep waits d or until ctx is done, whichever comes first; it returns ctx.Err() when
// ctx ended the wait.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// HeldClock reads a fixed time until it is released, then the machine's clock. A world
// restored as it stood at an earlier moment (a fork) is opened on one, so that it
// stands still while coplay starts and the first observation shows it exactly as it
// was; once released it goes on with the machine's time.
type HeldClock struct {
	mu       sync.Mutex
	at       time.Time
	released bool
}

// NewHeldClock returns a clock that reads at until Release.
func NewHeldClock(at time.Time) *HeldClock { return &HeldClock{at: at} }

// Now returns the held time, or the machine's time once released.
func (c *HeldClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.released {
		return time.Now()
	}
	return c.at
}

// Release lets the clock go on with the machine's time. Releasing twice is harmless.
func (c *HeldClock) Release() {
	c.mu.Lock()
	c.released = true
	c.mu.Unlock()
}
