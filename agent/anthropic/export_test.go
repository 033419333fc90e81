package anthropic

import (
	"context"
	"time"
)

// SetSleep replaces the wait between attempts, so tests can record backoff without
// sleeping through it.
func SetSleep(b *Brain, f func(ctx context.Context, d time.Duration) error) { b.sleep = f }
