package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/keymap"
	"github.com/coplayhq/coplay/notes"
	"github.com/coplayhq/coplay/ui"
)

func init() { addCommand(newPlayCmd) }

// playLong is what `coplay play --help` says above the flags.
const playLong = "usage: coplay [play] [flags]            play a new session in the companion screen\n" +
	"       coplay [play] --resume [NAME]    go on with a session (the newest without NAME)\n\n" +
	"`coplay --help` lists the other commands."

// newPlayCmd is `coplay play`, which `coplay` with no command runs too.
func newPlayCmd() *cobra.Command {
	var o options
	cmd := &cobra.Command{
		Use:   "play",
		Short: "start the companion screen (the default)",
		Long:  playLong,
		RunE: func(cmd *cobra.Command, pos []string) error {
			return runPlay(o, cmd.Flags(), pos, commandLine(cmd), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
		ValidArgsFunction: completeResume,
	}
	o.register(cmd.Flags())
	return cmd
}

// runPlay starts the companion screen: a new session, or with --resume the named (or
// newest) one. o holds the flags parsed on fs, pos the positional arguments, args the
// whole command line (for the line that resumes).
func runPlay(o options, fs *pflag.FlagSet, pos, args []string, stdout, stderr io.Writer) error {
	resume, err := o.parseSession(fs, pos)
	if err != nil {
		return err
	}
	keys, err := loadKeys()
	if err != nil {
		return fmt.Errorf("reading your key bindings: %w", err)
	}
	if league, ok := o.isLeague(resume); ok {
		return runLeagueScreen(o, league, keys, stdout, stderr)
	}
	// The terminal is checked once the notebook and the session to resume are known to
	// be good (so their mistakes are reported with or without one) and before a new
	// session is created (so a run without a terminal leaves nothing behind).
	p, err := setup(o, resume, 0, needTerminal)
	if err != nil {
		return err
	}
	ctx, cancel := interruptContext()
	defer cancel()

	history := resumedHistory(o.resume || o.fork != "", p.session, stderr) // read before the runner appends
	own, err := p.share(o, "screen")                                       // before Run: the screen misses nothing
	if err != nil {
		return errors.Join(err, p.Close())
	}
	runDone := make(chan error, 1)
	go func() { runDone <- p.runner.Run(ctx) }()
	info := screenInfo(p.hello(o), keys, history)
	info.Notify = ui.NotifyMode(o.steer.notify)
	if p.sshAddr != "" {
		info.Banner += "\nserved over SSH at " + p.sshAddr
	}
	uiErr := ui.Run(ctx, own, info)
	cancel()
	runErr := <-runDone
	if errors.Is(runErr, context.Canceled) {
		runErr = nil
	}
	sayHowToResume(stdout, p, resumeCommand(fs, args, p.session.Name()))
	return errors.Join(uiErr, runErr, p.Close())
}

// needTerminal fails when the screen has no terminal to draw on: Bubble Tea uses
// standard input when it is one, else /dev/tty.
func needTerminal() error {
	if term.IsTerminal(os.Stdin.Fd()) {
		return nil
	}
	if f, err := os.Open("/dev/tty"); err == nil {
		f.Close()
		return nil
	}
	return errors.New("the screen needs a terminal and none is attached: use `coplay run --headless` to play without one")
}

// parseSession applies the config file to the options of a command that plays a
// session (play, run), parsed on fs, and reads its positional arguments pos. It returns
// the session named to resume, "" for none: one positional argument is allowed, and
// only with --resume.
func (o *options) parseSession(fs *pflag.FlagSet, pos []string) (string, error) {
	if err := applyConfig(o, fs); err != nil {
		return "", err
	}
	switch {
	case len(pos) > 1:
		return "", usagef("unexpected arguments %q: only one session name, after --resume", pos[1:])
	case len(pos) == 1 && !o.resume:
		return "", usagef("unexpected argument %q: a session name goes after --resume (--resume %s)", pos[0], pos[0])
	case len(pos) == 1:
		return pos[0], nil
	}
	return "", nil
}

// loadKeys reads the user's key overrides, if there are any.
func loadKeys() (*keymap.KeyMap, error) {
	path, err := keymap.ConfigPath()
	if err != nil {
		return keymap.Default(), nil
	}
	return keymap.Load(path)
}

// resumedHistory is the last 200 journaled events of a resumed session, for the screen's
// log; nil for a new session. The log is a convenience: if the journal cannot be read
// the screen starts without it, and says why on stderr.
func resumedHistory(resume bool, s *notes.Session, stderr io.Writer) []agent.Event {
	if !resume {
		return nil
	}
	evs, err := agent.RecentEvents(s, 200)
	if err != nil {
		fmt.Fprintf(stderr, "coplay: reading the journal of %s for the log: %v\n", s.Name(), err)
		return nil
	}
	return evs
}
