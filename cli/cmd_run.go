package cli

import (
	"errors"
	"fmt"
	"github.com/coplayhq/coplay/secret"
	"io"
	"os"

	"github.com/coplayhq/coplay/agent"
)

// stdin is where the headless runner reads commands; tests replace it.
var stdin io.Reader = os.Stdin

func init() {
	commands["run"] = command{summary: "play without a screen: JSON events out, JSON commands in (docs/PROTOCOL.md)", run: runHeadless}
}

// runHeadless plays with events as JSON lines on stdout and commands as JSON lines on
// stdin. The screen's --headless flag is accepted for clarity; run is always headless.
func runHeadless(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", stderr)
	fs.Bool("headless", true, "play without a screen (the only mode of run)")
	steps := fs.Int("steps", 0, "stop after `n` steps (0 = until stopped)")
	var o options
	resume, err := o.parseSession(fs, args, stdout)
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
