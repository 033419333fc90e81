package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/coplayhq/coplay/keymap"
	"github.com/coplayhq/coplay/ui"
)

func init() {
	commands["play"] = command{summary: "start the companion screen (the default)", run: runPlay}
}

// runPlay starts the companion screen: a new session, or with --resume the named (or
// newest) one.
func runPlay(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("coplay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	o.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := applyConfig(&o, fs); err != nil {
		return err
	}
	if fs.NArg() > 1 || (fs.NArg() == 1 && !o.resume) {
		return fmt.Errorf("unexpected arguments %q (a session name goes after --resume)", fs.Args())
	}
	keys, err := loadKeys()
	if err != nil {
		return err
	}
	p, err := setup(o, fs.Arg(0), 0)
	if err != nil {
		return err
	}
	ctx, cancel := interruptContext()
	defer cancel()

	runDone := make(chan error, 1)
	go func() { runDone <- p.runner.Run(ctx) }()
	uiErr := ui.Run(ctx, p.runner, ui.Info{
		Game:    p.title,
		Brain:   p.brain.Name(),
		Session: p.session.Name(),
		Banner:  p.banner,
		Tools:   p.runner.Tools(),
		Keys:    keys,
	})
	cancel()
	runErr := <-runDone
	if errors.Is(runErr, context.Canceled) {
		runErr = nil
	}
	return errors.Join(uiErr, runErr, p.Close())
}

// loadKeys reads the user's key overrides, if there are any.
func loadKeys() (*keymap.KeyMap, error) {
	path, err := keymap.ConfigPath()
	if err != nil {
		return keymap.Default(), nil
	}
	return keymap.Load(path)
}
