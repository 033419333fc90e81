package agent

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/coplayhq/coplay/game"
)

// Every call to the game (a tool call, an observation, a dry run) runs on a goroutine of
// its own under a deadline, while the Run goroutine goes on: it commits and sends the
// events of the phase, takes advice and decisions on later calls, shows the game's own
// waits, and cancels the call when the deadline passes or the run stops. A cancelled
// call is cancelled the way its transport knows (its context: an MCP client sends
// notifications/cancelled, an HTTP request is aborted) and is journaled as outcome
// unknown, so a resumed session never runs it again.

// DefaultCallTimeout is how long one game call may run before it is cancelled
// (Config.CallTimeout; --call-timeout, [defaults] call_timeout).
const DefaultCallTimeout = 60 * time.Second

// callGrace is how long a cancelled call is given to return (for the cancellation to go
// out) before the runner goes on without it.
const callGrace = time.Second

// showAfter is how long a game call may run before the events waiting for the next
// commit (a read call's proposal, decision and start) are committed and shown: a slow
// call does not hold them back, and a fast one costs no commit of its own.
const showAfter = 200 * time.Millisecond

// errCut is the cause a call's context is cancelled with.
var errCut = errors.New("coplay cut the call short")

// faultState is what the runner keeps about stops, calls in flight and the game's own
// waits (Run goroutine).
type faultState struct {
	stopping    bool      // the run stops: no further call starts
	stopWhy     string    // why the run stops: "stopped by the person", "stdin closed"
	stdinClosed bool      // headless: stdin reached its end
	held        []command // commands that must wait for the call in flight (revise)
	// gameWait is set while the game reports a wait of its own (a rate limit); waitState
	// is the state to go back to when it ends.
	gameWait  bool
	waitState State
}

// cut says why a game call was cut short; the zero cut means it ended by itself.
type cut struct {
	timeout time.Duration // the deadline passed
	stopped string        // the run stops: "stopped by the person", "interrupted", "stdin closed"
	fatal   bool          // the journal could not be written
}

func (c cut) none() bool { return c.timeout == 0 && c.stopped == "" && !c.fatal }

// why says what cut the call, for the person and the model.
func (c cut) why() string {
	switch {
	case c.timeout > 0:
		return "timed out after " + seconds(c.timeout)
	case c.fatal:
		return "the journal could not be written while it ran"
	}
	return c.stopped + " while it ran"
}

// result is what the model reads about a call the cut ended.
func (c cut) result() game.Result {
	return game.Result{Unknown: true, Output: c.why() + "; the server was asked to cancel; outcome unknown: observe before acting"}
}

// seconds writes a duration in seconds: "60 s", "2 s", "0.5 s".
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

// callTimeout is the deadline of one game call.
func (c *Config) callTimeout() time.Duration {
	if c.CallTimeout > 0 {
		return c.CallTimeout
	}
	return DefaultCallTimeout
}

// answer is what a game call returned, and what cut it short if anything did.
type answer[T any] struct {
	v   T
	err error
	cut cut
}

// gameCall runs fn, a call to the game, on its own goroutine under the call deadline,
// and serves the runner meanwhile (see the top of this file). A call that is cut short
// is cancelled and given callGrace to return: when it returns a definite answer then
// (it finished just in time), that answer stands; otherwise answer.cut says why it was
// cut and fn's answer is dropped. A call is not started once the run stops.
func gameCall[T any](r *Runner, fn func(context.Context) (T, error)) answer[T] {
	if c := r.cutNow(); !c.none() {
		return answer[T]{cut: c}
	}
	ctx, cancel := context.WithCancelCause(r.ctx)
	defer cancel(nil)
	waits := make(chan game.Wait)
	gone := make(chan struct{})
	defer close(gone)
	ctx = game.WithWaitFunc(ctx, func(w game.Wait) {
		select {
		case waits <- w:
		case <-gone: // the runner went on without this call
		}
	})
	done := make(chan answer[T], 1)
	go func() {
		v, err := fn(ctx)
		done <- answer[T]{v: v, err: err}
	}()
	a, c := serveCall(r, done, waits)
	if c.none() && a.err != nil {
		// A call that failed because the run's context ended (an interrupt) can answer
		// before serveCall sees the context end: it was cut short all the same, and
		// says why.
		if c = r.cutNow(); !c.none() {
			r.afterCall()
			return answer[T]{cut: c}
		}
	}
	if c.none() {
		r.afterCall()
		return a
	}
	cancel(errCut)
	a, ok := graceCall(r, done, waits)
	if !ok || a.err != nil {
		a = answer[T]{}
	}
	a.cut = c
	r.afterCall()
	return a
}

// serveCall serves the runner until the call answers (on done) or is cut short.
func serveCall[T any](r *Runner, done <-chan answer[T], waits <-chan game.Wait) (answer[T], cut) {
	r.asks.callBegins() // time spent asking the person, and progress, move the deadline (progress.go)
	deadline := time.NewTimer(r.cfg.callTimeout())
	defer deadline.Stop()
	show := time.NewTimer(showAfter)
	defer show.Stop()
	for {
		select {
		case a := <-done:
			return a, cut{}
		case w := <-waits:
			r.gameWaits(w)
		case <-show.C:
			r.flush()
		case c := <-r.cmds:
			if !r.faults.hold(c, r.calls.batch != nil) {
				r.handle(c)
			}
			r.flush()
		case <-deadline.C:
			if more := r.asks.deadlineMore(r.cfg.callTimeout()); more > 0 {
				deadline.Reset(more)
				continue
			}
			return answer[T]{}, cut{timeout: r.cfg.callTimeout()}
		case <-r.ctx.Done():
		}
		if c := r.cutNow(); !c.none() {
			return answer[T]{}, c
		}
	}
}

// graceCall waits up to callGrace for a cancelled call to return, still showing the
// game's waits (their ends come as the call unwinds). ok is false when it did not.
func graceCall[T any](r *Runner, done <-chan answer[T], waits <-chan game.Wait) (a answer[T], ok bool) {
	t := time.NewTimer(callGrace)
	defer t.Stop()
	for {
		select {
		case a := <-done:
			return a, true
		case w := <-waits:
			r.gameWaits(w)
		case <-t.C:
			return a, false
		}
	}
}

// cutNow says whether a call must be cut short (or not started) now: the run stops,
// was interrupted, or cannot write its journal.
func (r *Runner) cutNow() cut {
	switch {
	case r.fatal != nil:
		return cut{fatal: true}
	case r.ctx.Err() != nil:
		return cut{stopped: interruptedText(r.ctx)}
	case r.faults.stopping:
		return cut{stopped: r.faults.reason()}
	}
	return cut{}
}

// afterCall closes a wait of the game's own that the call left open (it was cut
// short inside it), and handles the commands that waited for the call to end, once
// the batch they are about is running (runBatch calls it too, as the batch begins).
func (r *Runner) afterCall() {
	if r.faults.gameWait {
		r.gameWaits(game.Wait{Reason: "the call was cut short"})
	}
	if r.calls.batch == nil {
		return
	}
	held := r.faults.held
	r.faults.held = nil
	for _, c := range held {
		r.handle(c)
	}
}

// hold keeps a command that came while a game call runs, when it must wait for the
// call to end: a revise needs a new dry run, which is a game call of its own; a
// decision waits for its batch to run (during a proposal's dry runs, or a resumed
// session's, the calls it names are not in the pipeline yet). False: handle it now.
func (f *faultState) hold(c command, inBatch bool) bool {
	if c.Cmd == CmdRevise || c.Cmd == CmdDecide && !inBatch {
		f.held = append(f.held, c)
		return true
	}
	return false
}

// stop is the stop command: the person's, or the headless reader's when stdin closed
// (why).
func (f *faultState) stop(why string) {
	f.stopping = true
	if f.stopWhy == "" {
		f.stopWhy = why
	}
}

// reason says why the run stops, in its own words.
func (f *faultState) reason() string {
	if f.stopWhy != "" {
		return f.stopWhy
	}
	return "stopped by the person"
}

// stdinEnded is told by league.Headless that stdin reached its end: nobody can send a
// command any more. With play handed over the run goes on while it needs nobody (and
// league.Headless stops it once it waits for a person); otherwise it stops at once,
// cutting a game call in flight short.
func (f *faultState) stdinEnded(playHandedOver bool) []Event {
	f.stdinClosed = true
	if playHandedOver {
		return nil
	}
	f.stop(stdinClosedText)
	return []Event{{Type: EventError, Text: "stdin closed and play is not handed over: stopping"}}
}

// orphaned is told by league.Headless that stdin has ended and the run waits for a
// person: nobody can answer, so it stops, saying why once (a run that stopped when stdin
// ended has said so already).
func (f *faultState) orphaned() []Event {
	if f.stopping {
		return nil
	}
	f.stop(stdinClosedText)
	return []Event{{Type: EventError, Text: "stdin is closed and the runner waits for a person: stopping"}}
}

// stdinClosedText is the reason a run stops when its headless reader went away.
const stdinClosedText = "stdin closed"

// interruptedText says why ctx ended: its cause when it has one ("interrupted
// (SIGTERM)"), else "interrupted".
func interruptedText(ctx context.Context) string {
	cause := context.Cause(ctx)
	if cause == nil || errors.Is(cause, context.Canceled) && cause.Error() == context.Canceled.Error() {
		return "interrupted"
	}
	if errors.Is(cause, context.DeadlineExceeded) {
		return "interrupted (the run's time was up)"
	}
	return cause.Error()
}
