// Package drivertest helps the tests of game drivers: it registers every driver's flags
// on a fresh command line, as coplay does, and parses one.
package drivertest

import (
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
