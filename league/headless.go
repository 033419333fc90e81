package league

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/coplayhq/coplay/agent"
)

// maxCommandLine is the longest command line Headless reads, as agent.Headless.
const maxCommandLine = 1 << 20

// Headless plays the league with JSON lines instead of a screen (docs/PROTOCOL.md,
// "Leagues"), as agent.Headless plays one runner: every event, with its seat, one a line
// on out; commands one a line from in, sent on "stdin" (Decision.Via) to the seats they
// are for. A line that is not a command, or one no seat takes, gives an error event.
//
// When in reaches its end, every seat is told; each then stops as soon as it waits for
// a person (or at once, when play is not handed over), as a lone runner does. Headless
// returns when every seat has stopped.
func Headless(ctx context.Context, l *League, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	inputDone := make(chan struct{})
	go func() {
		// This goroutine may outlive Headless while blocked on a read of in; it then
		// only finds the runners stopped.
		defer close(inputDone)
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 0, 4096), maxCommandLine)
		for n := 1; sc.Scan(); n++ {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			where := fmt.Sprintf("stdin line %d", n)
			c, err := agent.ParseCommand(line)
			if err != nil {
				l.say(agent.Event{Type: agent.EventError, Text: where + ": " + err.Error()})
				continue
			}
			c.Via = "stdin"
			_ = l.SendLine(c, where) // a refusal is reported as an event
		}
		if err := sc.Err(); err != nil {
			l.say(agent.Event{Type: agent.EventError, Text: "stdin: " + err.Error()})
		}
	}()
	runErr := make(chan error, 1)
	go func() { runErr <- l.Run(ctx) }()

	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	inClosed := inputDone
	needsPerson := map[string]bool{} // by seat: it waits for a person
	orphaned := map[string]bool{}    // by seat: told that nobody will answer
	writeFailed := false
	events := l.Events()
	for events != nil {
		select {
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if ev.Type == agent.EventState && ev.Seat != "" {
				needsPerson[ev.Seat] = agent.NeedsPerson(ev.State)
			}
			if ev.Type == agent.EventTextDelta || writeFailed {
				continue
			}
			if err := enc.Encode(ev); err != nil {
				writeFailed = true
				cancel()
			}
		case <-inClosed:
			inClosed = nil
			for _, s := range l.seats {
				_ = s.Runner.EndInput()
			}
		}
		if inClosed != nil {
			continue
		}
		for _, s := range l.seats {
			if needsPerson[s.Name] && !orphaned[s.Name] {
				orphaned[s.Name] = true
				_ = s.Runner.Orphan()
			}
		}
	}
	return <-runErr
}
