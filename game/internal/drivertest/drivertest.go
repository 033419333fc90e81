// Package drivertest helps the tests of game drivers: it registers every driver's flags
// on a fresh command line, as coplay does, and parses one; and it encodes a tool call's
// arguments.
package drivertest

import (
	"encoding/json"
	"flag"
	"io"
	"testing"

	"github.com/coplayhq/coplay/game"
)

// Flags returns a FlagSet with every registered driver's flags (and league openers)
// added and argv parsed; a parse error fails the test.
func Flags(t testing.TB, argv ...string) *game.FlagSet {
	t.Helper()
	std := flag.NewFlagSet("t", flag.ContinueOnError)
	std.SetOutput(io.Discard)
	fs := game.NewFlagSet(std)
	fs.AddDrivers()
	if err := fs.Parse(argv); err != nil {
		t.Fatal(err)
	}
	return fs
}

// Args encodes v as a tool call's arguments; a value that does not encode fails the test.
func Args(t testing.TB, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
