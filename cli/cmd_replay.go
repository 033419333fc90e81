package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/notes"
	"github.com/coplayhq/coplay/secret"
	"github.com/coplayhq/coplay/ui"
)

const replayUsage = `usage:
  coplay sessions replay NAME [--data FILE]          replay the session on the screen, read-only
  coplay sessions replay NAME --json [--data FILE]   print one JSON object per step

NAME may be a league's: its seats' steps on one timeline, each labelled with its seat.
`

// newReplayCmd is `coplay sessions replay`.
func newReplayCmd() *cobra.Command {
	var data string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "replay NAME",
		Short: "replay a session (or a league's seats on one timeline) step by step",
		Long:  replayUsage,
		RunE: func(cmd *cobra.Command, pos []string) error {
			return runReplay(pos, &data, &asJSON, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
		ValidArgsFunction: completeSessions(true),
	}
	cmd.Flags().StringVar(&data, "data", "", "notebook `file` (default: the user data directory)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per step instead of opening the screen")
	return cmd
}

// runReplay reads a session back step by step: on the screen (read-only, with a key to
// fork at the selected step and play on), or as JSON lines (docs/PROTOCOL.md).
func runReplay(pos []string, data *string, asJSON *bool, stdout, stderr io.Writer) error {
	var err error
	if len(pos) != 1 {
		return usagef("replay needs exactly one session or league name (see `coplay sessions`)")
	}
	path := *data
	if path == "" {
		if path, err = notes.DefaultPath(); err != nil {
			return err
		}
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("no notebook at %s", path)
	}
	book, _, err := openReader(path)
	if err != nil {
		return err
	}
	rp, err := readReplay(book, pos[0])
	if err != nil {
		book.Close()
		return err
	}
	if !*asJSON {
		// The screen may fork and play on: it opens the notebook for writing then, so
		// this read-only handle is put away first.
		book.Close()
		return replayScreen(path, rp, stdout, stderr)
	}
	defer book.Close()
	w := secret.NewWriter(stdout, scrubber())
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := range rp.Steps {
		if err := enc.Encode(seatStep{Seat: rp.stepSeats[i], ReplayStep: &rp.Steps[i]}); err != nil {
			return err
		}
	}
	return w.Flush()
}

// replayed is a session, or a league, read back step by step.
type replayed struct {
	*agent.Replay
	stepSeats []string      // the seat of each of Steps ("" for a session that is no league's seat)
	seats     []ui.SeatInfo // a league's seats in seat order; none for a session
}

// readReplay reads the session named name back step by step, or, when no session has
// that name, the league of that name with its seats on one timeline.
func readReplay(book *notes.Book, name string) (*replayed, error) {
	s, err := book.Session(name)
	if errors.Is(err, notes.ErrNotFound) {
		rp, lerr := readLeagueReplay(book, name)
		if errors.Is(lerr, notes.ErrNotFound) {
			return nil, nameErr(lerr, name, book.Path())
		}
		if lerr != nil {
			return nil, fmt.Errorf("reading league %s: %w", name, lerr)
		}
		return rp, nil
	}
	if err != nil {
		return nil, err
	}
	rp, err := agent.ReadReplay(s)
	if err != nil {
		return nil, fmt.Errorf("reading session %s: %w", name, err)
	}
	out := &replayed{Replay: rp, stepSeats: make([]string, len(rp.Steps))}
	for i := range out.stepSeats {
		out.stepSeats[i] = rp.Info.Seat
	}
	return out, nil
}

// replayScreen opens the replay screen on the session (or league) read into rp; when
// the person forks at a step there, the fork is made and played on the companion
// screen, its first advice already given.
func replayScreen(path string, rp *replayed, stdout, stderr io.Writer) error {
	if err := needTerminal(); err != nil {
		return fmt.Errorf("%w (or print the steps with --json)", err)
	}
	ctx, cancel := interruptContext()
	defer cancel()
	choice, err := ui.RunReplay(ctx, rp.Replay, ui.Info{Game: rp.Info.Game, Brain: rp.Info.Model, Session: rp.Info.Name, Seats: rp.seats})
	if err != nil || !choice.Fork {
		return err
	}
	cancel()
	spec := notes.ForkPoint{Session: rp.Info.Name, Step: choice.Step}.String()
	var advice []agent.Command
	if choice.Advice != "" {
		advice = append(advice, agent.Command{Cmd: agent.CmdAdvise, Text: choice.Advice, Seat: choice.Seat})
	}
	return playFork([]string{"--data", path, "--fork", spec}, advice, stdout, stderr)
}

// playFork starts the companion screen on a fork (args are play's flags, --fork among
// them: a session's, or a league's), advice being the person's first (none, or one
// advise command; in a league, for its seat).
func playFork(args []string, advice []agent.Command, stdout, stderr io.Writer) error {
	var o options
	fs := pflag.NewFlagSet("play", pflag.ContinueOnError)
	o.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if _, err := o.parseSession(fs, fs.Args()); err != nil {
		return err
	}
	again := func(session string) string { return resumeCommand(fs, args, session) }
	return playScreen(o, "", again, advice, stdout, stderr)
}
