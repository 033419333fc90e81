package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// maxCommandLine is the longest command line Headless reads.
const maxCommandLine = 1 << 20

// Headless runs r with JSON lines instead of a screen (docs/PROTOCOL.md): it writes one
// JSON event per line to out and reads one JSON command per line from in. Text deltas
// are not written; the whole text of each step comes as a "text" event. A line that is
// not a valid command, or a command the runner refuses, gives an "error" event naming
// the line and what was wrong, on out alone (it is not journaled: seq 0), and nothing
// else happens.
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
	return HeadlessFor(ctx, r.Input(), events, in, out)
}

// Steered is what Headless drives: one runner (Runner.Input), or several steered as one
// (package league), whose events each carry their seat.
type Steered interface {
	// Run plays until every seat has stopped.
	Run(ctx context.Context) error
	// SendLine sends a command read from a line of input; a refusal is returned (to
	// its sender alone: Headless writes it as an error event), its message beginning
	// with where ("stdin line 3").
	SendLine(c Command, where string) error
	// EndInput says the person's input reached its end: with play handed over, a seat
	// plays on while it needs nobody.
	EndInput() error
	// Orphan says the input has ended and seat ("" for a lone runner) waits for a person
	// who can no longer answer: it stops, saying "stdin closed".
	Orphan(seat string) error
}

// HeadlessFor is HeadlessFrom for anything Headless can drive (Steered): it writes the
// events one JSON line each to out and sends the commands read from in on "stdin".
// When in ends, each seat is stopped once it waits for a person (see Headless).
func HeadlessFor(ctx context.Context, s Steered, events <-chan Event, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	inputDone := make(chan struct{})
	// A refused line is told to its sender alone, the reader of out: it is not the
	// game's, so it is neither journaled nor shown on any other screen (seq 0).
	refusals := make(chan Event, 16)
	refuse := func(seat, text string) {
		select {
		case refusals <- Event{Time: time.Now(), Type: EventError, Seat: seat, Text: text}:
		case <-ctx.Done():
		}
	}
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
				refuse("", where+": "+err.Error())
				continue
			}
			c.Via = "stdin"
			if err := s.SendLine(c, where); err != nil {
				refuse(c.Seat, err.Error())
			}
		}
		if err := sc.Err(); err != nil {
			refuse("", "stdin: "+err.Error())
		}
	}()
	runErr := make(chan error, 1)
	go func() { runErr <- s.Run(ctx) }()

	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	inClosed := inputDone
	needsPerson := map[string]bool{} // by seat ("" for a lone runner): it waits for a person
	orphaned := map[string]bool{}    // by seat: told that nobody will answer
	writeFailed := false
	write := func(ev Event) {
		if writeFailed {
			return
		}
		if err := enc.Encode(ev); err != nil {
			writeFailed = true
			cancel()
		}
	}
	// refused writes the refusals made so far: those of lines read before stdin ended
	// come before anything its end causes.
	refused := func() {
		for {
			select {
			case ev := <-refusals:
				write(ev)
			default:
				return
			}
		}
	}
	for events != nil {
		select {
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if ev.Type == EventState {
				needsPerson[ev.Seat] = NeedsPerson(ev.State)
			}
			if ev.Type != EventTextDelta {
				write(ev)
			}
		case ev := <-refusals:
			write(ev)
			continue
		case <-inClosed:
			inClosed = nil
			refused()
			s.EndInput()
		}
		if inClosed != nil {
			continue
		}
		for seat, needs := range needsPerson {
			if needs && !orphaned[seat] {
				orphaned[seat] = true
				s.Orphan(seat)
			}
		}
	}
	return <-runErr
}

// Input is the runner as Headless drives it, for a driver of its own.
func (r *Runner) Input() Steered { return runnerInput{r} }

// runnerInput is a lone runner as Steered.
type runnerInput struct{ r *Runner }

func (in runnerInput) Run(ctx context.Context) error          { return in.r.Run(ctx) }
func (in runnerInput) SendLine(c Command, where string) error { return in.r.send(c, where) }
func (in runnerInput) EndInput() error                        { return in.r.enqueue(command{inEnded: true}) }
func (in runnerInput) Orphan(string) error                    { return in.r.enqueue(command{orphaned: true}) }

// NeedsPerson reports whether a state is one in which the run waits for a person
// (a decision, advice after a turn, or a resume).
func NeedsPerson(s State) bool { return s == Idle || s == Deciding || s == Paused }
