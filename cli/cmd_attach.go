package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/live"
	"github.com/coplayhq/coplay/notes"
	"github.com/coplayhq/coplay/secret"
	"github.com/coplayhq/coplay/ui"
)

func init() { addCommand(newAttachCmd) }

const attachUsage = `usage:
  coplay attach [NAME] [--data FILE]              a second screen on the session another coplay plays
  coplay attach [NAME] --headless [--data FILE]   the same as JSON lines (docs/PROTOCOL.md)

It reaches the coplay that plays in the notebook through a socket only you can use. The
screen shows the same panes, live; approve, veto, edit, advise and pause work as on the
first screen (the first decision on a call wins), and each decision records "attach".
Quitting detaches; the game plays on.
`

// newAttachCmd is `coplay attach`.
func newAttachCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "attach [NAME]", Short: "a second screen on a session another coplay plays here", Long: attachUsage}
	data := cmd.Flags().String("data", "", "notebook `file` the other coplay plays in (default: the user data directory)")
	headless := cmd.Flags().Bool("headless", false, "speak JSON lines on stdin and stdout instead of opening a screen")
	cmd.RunE = func(cmd *cobra.Command, pos []string) error {
		return runAttach(pos, data, headless, cmd.OutOrStdout(), cmd.ErrOrStderr())
	}
	cmd.ValidArgsFunction = completeSessions(false)
	return cmd
}

// runAttach is `coplay attach`: a second screen, or a JSON-lines client, on the session
// another coplay process plays in the same notebook.
func runAttach(pos []string, data *string, headless *bool, stdout, stderr io.Writer) error {
	var err error
	if len(pos) > 1 {
		return usagef("attach takes at most one session name, not %q", pos)
	}
	name := ""
	if len(pos) == 1 {
		name = pos[0]
	}
	path := *data
	if path == "" {
		if path, err = notes.DefaultPath(); err != nil {
			return err
		}
	}
	ctx, cancel := interruptContext()
	defer cancel()
	rm, err := live.Attach(ctx, path, name)
	if errors.Is(err, live.ErrNoOwner) {
		if name != "" {
			// The person named what they expected to find playing: say it is not.
			return fmt.Errorf("session %s is not playing: no coplay plays in %s (resume it with coplay --resume %s, or coplay run --headless --resume %s; or pass --data with the notebook it plays in)", name, path, name, name)
		}
		return fmt.Errorf("no coplay is playing in %s: start one (coplay, or coplay run --headless), or pass --data with the notebook it plays in", path)
	}
	if err != nil {
		return err
	}
	defer rm.Close()
	if *headless {
		return attachHeadless(ctx, rm, stdout, stderr)
	}
	if err := needTerminal(); err != nil {
		return errors.New("the screen needs a terminal and none is attached: use `coplay attach --headless` to attach without one")
	}
	keys, err := loadKeys()
	if err != nil {
		return fmt.Errorf("reading your key bindings: %w", err)
	}
	info := screenInfo(rm.Hello, keys, nil)
	info.Session += " (attached)"
	info.Attached = true // quitting detaches; the game plays on
	if err := ui.Run(ctx, rm, info); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "detached from %s; it plays on in the other coplay\n", rm.Hello.Session)
	return nil
}

// attachHeadless copies the other coplay's events to stdout, one JSON object a line
// (the state so far first, waiting calls included), and stdin's command lines to it.
// A line over live.MaxLine is not sent: an error event says so, and the lines after it
// go on as usual. It ends when stdin ends (detaching) or when the other coplay does.
func attachHeadless(ctx context.Context, rm *live.Remote, stdout, stderr io.Writer) error {
	refused := make(chan agent.Event, 16)
	go func() {
		lines := live.NewLines(stdin)
		for {
			line, err := lines.Next()
			var long *live.LineTooLongError
			if errors.As(err, &long) {
				select {
				case refused <- agent.Event{Type: agent.EventError, Time: time.Now(), Text: fmt.Sprintf("stdin line %d: %v", lines.N, long)}:
				default: // a reader that takes no events hears of no more refusals
				}
				continue
			}
			if err != nil {
				break
			}
			if len(bytes.TrimSpace(line)) > 0 && rm.SendLine(line) != nil {
				break
			}
		}
		rm.Close() // stdin ended: detach
	}()
	out := secret.NewWriter(stdout, scrubber())
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	events := rm.Events()
	for events != nil {
		var ev agent.Event
		select {
		case e, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			ev = e
		case ev = <-refused:
		}
		if err := enc.Encode(ev); err != nil {
			return err
		}
		if err := out.Flush(); err != nil {
			return err
		}
	}
	if err := rm.Err(); err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "coplay attach: %v\n", err)
	}
	return out.Flush()
}
