package cli

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/game"
)

func TestEditDistance(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"approve", "approve", 0},
		{"apporve", "approve", 1}, // neighbours swapped
		{"aprove", "approve", 1},
		{"approvee", "approve", 1},
		{"sped", "speed", 1},
		{"", "seed", 4},
		{"colour", "approve", 6},
	} {
		if got := game.EditDistance(c.a, c.b); got != c.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// testFlags is a flag set shaped like run's.
func testFlags() *flag.FlagSet {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var o options
	o.register(fs)
	fs.Int("steps", 0, "stop after `n` steps")
	return fs
}

func TestParseFlagsMistakes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string // the whole message
	}{
		{[]string{"--apporve", "all"}, "unknown flag --apporve: did you mean --approve? (`coplay run -h` lists the flags)"},
		{[]string{"-apporve=all"}, "unknown flag --apporve: did you mean --approve? (`coplay run -h` lists the flags)"},
		{[]string{"--sped", "3"}, "unknown flag --sped: did you mean --seed, --spec or --speed? (`coplay run -h` lists the flags)"},
		{[]string{"--resu"}, "unknown flag --resu: did you mean --resume? (`coplay run -h` lists the flags)"},
		{[]string{"--colour", "red"}, "unknown flag --colour (`coplay run -h` lists the flags)"},
		{[]string{"--seed", "abc"}, `--seed: "abc" is not a whole number`},
		{[]string{"--speed", "fast"}, `--speed: "fast" is not a number`},
		{[]string{"--resume=maybe"}, `--resume: "maybe" is not true or false`},
		{[]string{"--steps", "1.5"}, `--steps: "1.5" is not a whole number`},
		{[]string{"--data"}, "--data needs a file after it (`coplay run -h` lists the flags)"},
	} {
		_, err := parseFlags(testFlags(), c.args, io.Discard)
		var ue *usageError
		if !errors.As(err, &ue) {
			t.Errorf("parseFlags(%q) = %v, want a usage error", c.args, err)
			continue
		}
		if err.Error() != c.want {
			t.Errorf("parseFlags(%q):\n got %s\nwant %s", c.args, err, c.want)
		}
	}
}

func TestParseFlagsInterleaved(t *testing.T) {
	t.Parallel()
	fs := testFlags()
	pos, err := parseFlags(fs, []string{"--resume", "NAME", "--data", "x.db", "--approve", "all"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(pos) != 1 || pos[0] != "NAME" {
		t.Errorf("positional = %q, want [NAME]", pos)
	}
	if got := fs.Lookup("data").Value.String(); got != "x.db" {
		t.Errorf("--data = %q after the session name, want x.db", got)
	}
}

func TestParseFlagsHelpGoesToStdout(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	_, err := parseFlags(testFlags(), []string{"-h"}, &out)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v, want flag.ErrHelp", err)
	}
	if !strings.Contains(out.String(), "-approve") {
		t.Errorf("-h printed %q, want the flags", out.String())
	}
}

func TestRunExitStatus(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"run", "--approve", "maybe"}, 2},
		{[]string{"run", "--apporve", "all"}, 2},
		{[]string{"nosuch"}, 2},
		{[]string{"help"}, 0},
		{[]string{"sessions", "-h"}, 0},
	} {
		var out, errOut strings.Builder
		if got := run(c.args, &out, &errOut); got != c.code {
			t.Errorf("run(%q) = %d, want %d; stderr: %s", c.args, got, c.code, errOut.String())
		}
		if c.code != 0 && strings.Count(errOut.String(), "\n") != 1 {
			t.Errorf("run(%q): stderr is not one line: %q", c.args, errOut.String())
		}
	}
}

// A pin the game does not have is the person's mistake: exit 2, one line naming the
// flag and what was probably meant, from run and from tools --as-model alike; no
// session is left behind.
func TestPinTypoIsAUsageError(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "coplay.db")
	for _, args := range [][]string{
		{"run", "--headless", "--data", data, "--approve", "all", "--steps", "1", "--pin", "navigate_shp"},
		{"tools", "--game", "universe", "--as-model", "--pin", "navigate_shp"},
	} {
		var out, errOut bytes.Buffer
		code := run(args, &out, &errOut)
		msg := strings.TrimSpace(errOut.String())
		if code != 2 || strings.Count(msg, "\n") != 0 || !strings.Contains(msg, "--pin: no tool navigate_shp (did you mean navigate_ship?)") {
			t.Errorf("%s: exit %d, stderr %q", args[0], code, msg)
		}
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"sessions", "--data", data, "--json"}, &out, &errOut); code != 0 || strings.TrimSpace(out.String()) != "[]" {
		t.Errorf("a failed start left sessions behind: exit %d, %s%s", code, out.String(), errOut.String())
	}
}
