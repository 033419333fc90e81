package league

import (
	"context"
	"io"

	"github.com/coplayhq/coplay/agent"
)

// Headless plays the league with JSON lines instead of a screen (docs/PROTOCOL.md,
// "Leagues"), as agent.Headless plays one runner: every event, with its seat, one a line
// on out; commands one a line from in, sent on "stdin" (Decision.Via) to the seats they
// are for. A line that is not a command, or one no seat takes, gives an error event,
// to the reader of out alone.
//
// When in reaches its end, every seat is told; each then stops as soon as it waits for
// a person (or at once, when play is not handed over), as a lone runner does. Headless
// returns when every seat has stopped.
func Headless(ctx context.Context, l *League, in io.Reader, out io.Writer) error {
	return HeadlessFrom(ctx, l, l.Events(), in, out)
}

// HeadlessFrom is Headless reading the events from events instead of l.Events(): a copy
// of the league's stream that others watch too (package live's Hub).
func HeadlessFrom(ctx context.Context, l *League, events <-chan agent.Event, in io.Reader, out io.Writer) error {
	return agent.HeadlessFor(ctx, l, events, in, out)
}

// EndInput tells every seat that the person's input reached its end.
func (l *League) EndInput() error {
	for _, s := range l.seats {
		s.Runner.Input().EndInput()
	}
	return nil
}

// Orphan tells a seat that its input has ended and nobody will answer it.
func (l *League) Orphan(seat string) error {
	s, err := l.seat(seat)
	if err != nil {
		return err
	}
	return s.Runner.Input().Orphan(seat)
}
