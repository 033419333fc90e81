package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
)

// maxCommandLine is the longest command line Headless reads.
const maxCommandLine = 1 << 20

// Headless runs r with JSON lines instead of a screen (docs/PROTOCOL.md): it writes one
// JSON event per line to out and reads one JSON command per line from in. Text deltas
// are not written; the whole text of each step comes as a "text" event. A line that is
// not a valid command, or a command the runner refuses, gives an "error" event naming
// the line and what was wrong, and nothing else happens.
//
// When in reaches its end, nobody can answer any more. With play handed over
// (Config.KeepPlaying) the run goes on while it needs nobody (auto-approved calls,
// timed waits), and is stopped as soon as it waits for a person (a decision, or advice
// after a turn ended); otherwise it stops at once, cutting a game call in flight short
// (journaled as outcome unknown). Either way the stop says "stdin closed". Headless
// returns what Run returns; a failure to write out cancels the run.
func Headless(ctx context.Context, r *Runner, in io.Reader, out io.Writer) error {
	return HeadlessFrom(ctx, r, r.Events(), in, out)
}

// HeadlessFrom is Headless reading the events from events instead of r.Events(): a
// copy of the runner's stream that others watch too (package live's Hub). Commands
// from in are sent as given on "stdin" (Decision.Via).
func HeadlessFrom(ctx context.Context, r *Runner, events <-chan Event, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	inputDone := make(chan struct{})
	go func() {
		// This goroutine may outlive Headless while blocked on a read of in; it then
		// only finds the runner stopped.
		defer close(inputDone)
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 0, 4096), maxCommandLine)
		for n := 1; sc.Scan(); n++ {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			where := fmt.Sprintf("stdin line %d", n)
			c, err := ParseCommand(line)
			if err != nil {
				r.Refuse(where + ": " + err.Error())
				continue
			}
			c.Via = "stdin"
			_ = r.send(c, where) // a refusal is reported as an event by the runner
		}
		if err := sc.Err(); err != nil {
			r.enqueue(command{refused: "stdin: " + err.Error()})
		}
	}()
	runErr := make(chan error, 1)
	go func() { runErr <- r.Run(ctx) }()

	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	inClosed := inputDone
	needsPerson, stopSent, writeFailed := false, false, false
	for events != nil {
		select {
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if ev.Type == EventState {
				needsPerson = NeedsPerson(ev.State)
			}
			if ev.Type == EventTextDelta || writeFailed {
				continue
			}
			if err := enc.Encode(ev); err != nil {
				writeFailed = true
				cancel()
			}
		case <-inClosed:
			inClosed = nil
			r.EndInput()
		}
		if inClosed == nil && needsPerson && !stopSent {
			stopSent = true
			r.Orphan()
		}
	}
	return <-runErr
}

// SendLine is Send for a command read from a line of input: a refusal's message begins
// with where ("stdin line 3"). A driver of its own (package league's Headless) uses it.
func (r *Runner) SendLine(c Command, where string) error { return r.send(c, where) }

// Refuse reports a line of input that is not a command as an error event, as Headless
// does: text says where and what was wrong.
func (r *Runner) Refuse(text string) error { return r.enqueue(command{refused: text}) }

// EndInput tells the runner that its person's input reached its end, as Headless does
// when stdin closes: with play handed over it plays on while it needs nobody.
func (r *Runner) EndInput() error { return r.enqueue(command{inEnded: true}) }

// Orphan tells the runner that its input has ended and it waits for a person who can no
// longer answer, as Headless does: the run stops, saying "stdin closed".
func (r *Runner) Orphan() error { return r.enqueue(command{orphaned: true}) }

// NeedsPerson reports whether a state is one in which the run waits for a person
// (a decision, advice after a turn, or a resume).
func NeedsPerson(s State) bool { return s == Idle || s == Deciding || s == Paused }
