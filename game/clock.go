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
