package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/charmbracelet/x/term"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/keymap"
	"github.com/coplayhq/coplay/notes"
	"github.com/coplayhq/coplay/ui"
)

func init() {
	commands["play"] = command{summary: "start the companion screen (the default)", run: runPlay}
}

// runPlay starts the companion screen: a new session, or with --resume the named (or
// newest) one.
func runPlay(args []string, stdout, stderr io.Writer) error {
	var o options
	fs := playFlagSet(stderr)
	resume, err := o.parseSession(fs, args, stdout)
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

// playFlagSet is the flag set of the screen (`coplay`, `coplay play`), whose help says
// how it is called before its flags.
func playFlagSet(stderr io.Writer) *flag.FlagSet {
	fs := newFlagSet("coplay", stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: coplay [play] [flags]            play a new session in the companion screen")
		fmt.Fprintln(fs.Output(), "       coplay [play] --resume [NAME]    go on with a session (the newest without NAME)")
		fmt.Fprintln(fs.Output(), "\n`coplay --help` lists the other commands.\n\nflags:")
		fs.PrintDefaults()
	}
	return fs
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

// parseSession parses the flags of a command that plays a session (play, run) into o,
// after registering them on fs (which may hold the command's own flags too), and applies
// the config file. It returns the session named to resume, "" for none: one positional
// argument is allowed, and only with --resume.
func (o *options) parseSession(fs *flag.FlagSet, args []string, stdout io.Writer) (string, error) {
	o.register(fs)
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return "", err
	}
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
