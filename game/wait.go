package game

import "context"

// WaitFunc is told when a game has to wait before it can go on: a rate limit (the
// client's own limiter or the server's 429 with Retry-After), or a back-off before
// retrying a read that failed for a passing reason. The game goes on waiting by itself;
// the function is for showing the countdown. A zero Until says the wait is over.
type WaitFunc func(Wait)

type waitKey struct{}

// WithWaitFunc returns a context whose games report their waits to fn.
func WithWaitFunc(ctx context.Context, fn WaitFunc) context.Context {
	return context.WithValue(ctx, waitKey{}, fn)
}

// NotifyWait tells the WaitFunc of ctx, if any, about w. Games call it before they
// block for more than a moment, and with a zero Wait when the wait is over.
func NotifyWait(ctx context.Context, w Wait) {
	if fn, ok := ctx.Value(waitKey{}).(WaitFunc); ok && fn != nil {
		fn(w)
	}
}
