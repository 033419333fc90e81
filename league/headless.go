package league

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/internal/lines"
)

// maxCommandLine is the longest command line Headless takes: a longer one is refused
// with an error event, and the lines after it are read as usual.
const maxCommandLine = 1 << 20

// Headless plays l with JSON lines instead of a screen (docs/PROTOCOL.md): it writes
// the events read from events (l.Events(), or a copy of the stream that others watch
// too: package live's Hub) one JSON object a line to out, and reads one JSON command a
// line from in, sent on "stdin" (Decision.Via) to the seats they are for. Text deltas
// are not written; the whole text of each step comes as a "text" event.
//
// A line that is not a valid command, or a command refused (by the league: no seat
// takes it; or by a seat's runner), gives an "error" event naming the line and what was
// wrong, written to out alone: a refusal is its sender's, so it is neither journaled
// (its seq is 0) nor shown on any other screen. Nothing else happens.
//
// When in reaches its end, nobody can answer any more, and every seat is told. With
// play handed over (agent.Config.KeepPlaying) a seat goes on while it needs nobody
// (auto-approved calls, timed waits), and is stopped as soon as it waits for a person
// (a decision, or advice after a turn ended); otherwise it stops at once, cutting a
// game call in flight short (journaled as outcome unknown). Either way the stop says
// "stdin closed". Headless returns when every seat has stopped, with what Run returns;
// a failure to write out cancels the run.
func Headless(ctx context.Context, l *League, events <-chan agent.Event, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	refusals := make(chan agent.Event, 16)
	loopDone := make(chan struct{})
	defer close(loopDone)
	refuse := func(seat, text string) {
		select {
		case refusals <- agent.Event{Time: time.Now(), Type: agent.EventError, Seat: seat, Text: text}:
		case <-loopDone:
		}
	}
	inputDone := make(chan struct{})
	go func() {
		// This goroutine may outlive Headless while blocked on a read of in; it then
		// only finds the runners stopped.
		defer close(inputDone)
		input := lines.NewReader(in, maxCommandLine)
		for {
			line, err := input.Next()
			where := fmt.Sprintf("stdin line %d", input.N)
			var long *lines.TooLongError
			switch {
			case errors.As(err, &long):
				refuse("", where+": "+err.Error()) // and the next line reads as usual
				continue
			case errors.Is(err, io.EOF):
				return
			case err != nil:
				refuse("", "stdin: "+err.Error())
				return
			}
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				continue
			}
			c, err := agent.ParseCommand(line)
			if err != nil {
				refuse("", where+": "+err.Error())
				continue
			}
			c.Via = "stdin"
			var routeErr *RouteError
			switch err := l.SendLine(c, where); {
			case errors.As(err, &routeErr):
				refuse("", err.Error()) // no such seat: no event carries it
			case err != nil:
				refuse(c.Seat, err.Error())
			}
		}
	}()
	runErr := make(chan error, 1)
	go func() { runErr <- l.Run(ctx) }()

	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	inClosed := inputDone
	needsPerson := map[string]bool{} // by seat ("" for a lone run): it waits for a person
	orphaned := map[string]bool{}    // by seat: told that nobody will answer
	writeFailed := false
	write := func(ev agent.Event) {
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
			if ev.Type == agent.EventState {
				needsPerson[ev.Seat] = agent.NeedsPerson(ev.State)
			}
			if ev.Type != agent.EventTextDelta {
				write(ev)
			}
		case ev := <-refusals:
			write(ev)
			continue
		case <-inClosed:
			inClosed = nil
			refused()
			l.endInput()
		}
		if inClosed != nil {
			continue
		}
		for seat, needs := range needsPerson {
			if needs && !orphaned[seat] {
				orphaned[seat] = true
				l.orphan(seat)
			}
		}
	}
	return <-runErr
}

// endInput tells every seat that the person's input reached its end.
func (l *League) endInput() {
	for _, s := range l.seats {
		_ = s.Runner.Input().EndInput()
	}
}

// orphan tells a seat that its input has ended and nobody will answer it.
func (l *League) orphan(seat string) {
	if s, err := l.seat(seat); err == nil {
		_ = s.Runner.Input().Orphan()
	}
}
