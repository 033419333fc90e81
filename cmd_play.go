package main

import (
	"fmt"
	"io"
)

func init() {
	commands["play"] = command{summary: "start the companion screen (the default)", run: runPlay}
}

// runPlay starts the companion. The screen is not built yet, so for now it says so.
func runPlay(args []string, stdout, stderr io.Writer) error {
	fmt.Fprintln(stdout, "coplay: the companion screen is not built yet; see `coplay help` for what is.")
	return nil
}
