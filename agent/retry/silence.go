package retry

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/coplayhq/coplay/agent/brain"
)

// Silence is a streamed attempt's time limit, which is a limit on silence: the attempt
// ends when the server has sent nothing for the timeout, however long it has been
// streaming.
type Silence struct {
	ctx     context.Context // the caller's: when it ends, that is not the server's silence
	timeout time.Duration
	timer   *time.Timer
	fired   atomic.Bool
}

// NewSilence starts the limit of an attempt made under ctx: after timeout with nothing
// Heard, it calls cancel, which ends the attempt. Stop it when the attempt is over.
func NewSilence(ctx context.Context, timeout time.Duration, cancel context.CancelFunc) *Silence {
	s := &Silence{ctx: ctx, timeout: timeout}
	s.timer = time.AfterFunc(timeout, func() { s.fired.Store(true); cancel() })
	return s
}

// Heard rearms the limit: the server sent something.
func (s *Silence) Heard() { s.timer.Reset(s.timeout) }

// Stop ends the limit.
func (s *Silence) Stop() { s.timer.Stop() }

// Fired reports that the attempt was ended by the server's silence, not by the end of
// the caller's context.
func (s *Silence) Fired() bool { return s.fired.Load() && s.ctx.Err() == nil }

// Err is the error of an attempt the server's silence ended.
func (s *Silence) Err() *brain.Error {
	return &brain.Error{Kind: brain.ErrTimeout, Detail: fmt.Sprintf("the server was silent for %s", s.timeout)}
}
