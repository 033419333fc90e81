package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/coplayhq/coplay/agent"
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
	if league, ok := o.isLeague(resume); ok {
		return runLeagueHeadless(o, league, *steps, stdout, stderr)
	}
	p, err := setup(o, resume, *steps, nil)
	if err != nil {
		return err
	}
	for _, line := range []string{p.resumeNote, p.skipped} {
		if line != "" {
			fmt.Fprintln(stderr, line)
		}
	}
	ctx, cancel := interruptContext()
	defer cancel()
	// Events carry what the model and the game said; if either echoes a key, it must
	// not land in a log the person redirected stdout to.
	out := secret.NewWriter(stdout, p.scrub)
	own, err := p.share(o, "stdin")
	if err != nil {
		return errors.Join(err, p.Close())
	}
	if p.sshAddr != "" {
		fmt.Fprintf(stderr, "served over SSH at %s\n", p.sshAddr)
	}
	runErr := agent.HeadlessFrom(ctx, p.runner, own.Events(), stdin, out)
	if errors.Is(runErr, ctx.Err()) {
		runErr = nil
	}
	return errors.Join(runErr, out.Flush(), p.Close())
}
