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
// newest) one; a league with --seat, or when what is resumed is one. o holds the flags parsed on fs, pos the positional arguments, args the
// whole command line (for the line that resumes).
func runPlay(o options, fs *pflag.FlagSet, pos, args []string, stdout, stderr io.Writer) error {
	resume, err := o.parseSession(fs, pos)
	if err != nil {
		return err
	}
	again := func(session string) string { return resumeCommand(fs, args, session) }
	return playScreen(o, resume, again, nil, stdout, stderr)
}

// playScreen plays a run on the companion screen, a lone run or a league alike (a
// league's screen adds a seat bar, and one queue of every seat's calls: package ui).
// resume names what --resume goes on with; again is the command line that resumes a
// lone run's session, said when the screen is gone; advice is the person's first (a
// fork's, from the replay's fork key), given before any step.
func playScreen(o options, resume string, again func(session string) string, advice []agent.Command, stdout, stderr io.Writer) error {
	keys, err := loadKeys()
	if err != nil {
		return fmt.Errorf("reading your key bindings: %w", err)
	}
	// The terminal is checked once the notebook and what to resume are known to be
	// good (so their mistakes are reported with or without one) and before a session
	// is created (so a run without a terminal leaves nothing behind).
	t, err := setup(o, resume, 0, needTerminal)
	if err != nil {
		return err
	}
	history := t.history(o.resume || o.fork != "", stderr) // read before the runners append
	own, err := t.share(o, "screen")                       // before Run: the screen misses nothing
	if err != nil {
		return errors.Join(err, t.Close())
	}
	ctx, cancel := interruptContext()
	defer cancel()
	for _, c := range advice {
		if err := t.Send(c); err != nil {
			return errors.Join(err, t.Close())
		}
	}
	runDone := make(chan error, 1)
	go func() { runDone <- t.Run(ctx) }()
	info := screenInfo(t.hello(o), keys, history)
	info.Notify = ui.NotifyMode(o.steer.notify)
	if o.fork != "" {
		info.Banner += "\nforked from " + o.fork
	}
	if t.host.sshAddr != "" {
		info.Banner += "\nserved over SSH at " + t.host.sshAddr
		info.Served = "ssh " + t.host.sshAddr
		if t.host.sshNote != "" {
			info.Banner += "\n" + t.host.sshNote + ": only the keys in --ssh-steer-keys connect"
			info.Served += " · no watch keys"
		}
	}
	uiErr := ui.Run(ctx, own, info)
	cancel()
	runErr := <-runDone
	if errors.Is(runErr, context.Canceled) {
		runErr = nil
	}
	t.sayHowToResume(stdout, o, again)
	return errors.Join(uiErr, runErr, t.Close())
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
