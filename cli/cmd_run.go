package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/coplayhq/coplay/league"
	"github.com/coplayhq/coplay/secret"
)

// stdin is where the headless runner reads commands; tests replace it.
var stdin io.Reader = os.Stdin

func init() { addCommand(newRunCmd) }

// newRunCmd is `coplay run`, the headless runner.
func newRunCmd() *cobra.Command {
	var o options
	var steps int
	cmd := &cobra.Command{
		Use:   "run",
		Short: "play without a screen: JSON events out, JSON commands in (docs/PROTOCOL.md)",
		RunE: func(cmd *cobra.Command, pos []string) error {
			return runHeadless(o, cmd.Flags(), pos, &steps, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
		ValidArgsFunction: completeResume,
	}
	fs := cmd.Flags()
	fs.Bool("headless", true, "play without a screen (the only mode of run)")
	fs.IntVar(&steps, "steps", 0, "stop after `n` steps (0 = until stopped)")
	o.register(fs)
	return cmd
}

// runHeadless plays with events as JSON lines on stdout and commands as JSON lines on
// stdin. The screen's --headless flag is accepted for clarity; run is always headless.
// o holds the flags parsed on fs, pos the positional arguments.
func runHeadless(o options, fs *pflag.FlagSet, pos []string, steps *int, stdout, stderr io.Writer) error {
	resume, err := o.parseSession(fs, pos)
	if err != nil {
		return err
	}
	if *steps < 0 {
		return usagef("--steps must be a positive number, or 0 for no limit, not %d", *steps)
	}
	return playHeadless(o, resume, *steps, stdout, stderr)
}

// playHeadless plays a run with events as JSON lines on stdout and commands as JSON
// lines on stdin (docs/PROTOCOL.md), a lone run or a league alike (a league's events
// carry their seat: "Leagues").
func playHeadless(o options, resume string, steps int, stdout, stderr io.Writer) error {
	t, err := setup(o, resume, steps, nil)
	if err != nil {
		return err
	}
	t.introduce(stderr)
	ctx, cancel := interruptContext()
	defer cancel()
	// Events carry what the model and the game said; if either echoes a key, it must
	// not land in a log the person redirected stdout to.
	out := secret.NewWriter(stdout, t.host.scrub)
	own, err := t.share(o, "stdin")
	if err != nil {
		return errors.Join(err, t.Close())
	}
	if t.host.sshAddr != "" {
		fmt.Fprintf(stderr, "served over SSH at %s\n", t.host.sshAddr)
		if t.host.sshNote != "" {
			fmt.Fprintf(stderr, "%s: only the keys in --ssh-steer-keys connect\n", t.host.sshNote)
		}
	}
	runErr := league.Headless(ctx, t.League, own.Events(), stdin, out)
	if errors.Is(runErr, ctx.Err()) {
		runErr = nil
	}
	return errors.Join(runErr, out.Flush(), t.Close())
}
