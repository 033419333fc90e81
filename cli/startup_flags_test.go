package cli

import (
	"bytes"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/game"
)

func TestEditDistance(t *testing.T) {
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

// A mistake in the flags is one line naming the flag, what was wrong and, for a typo,
// the flag probably meant; pflag's typed errors say which flag and value.
func TestParseFlagsMistakes(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // the whole message
	}{
		{[]string{"--apporve", "all"}, "unknown flag --apporve: did you mean --approve? (`coplay run -h` lists the flags)"},
		{[]string{"-apporve=all"}, "unknown flag --apporve: did you mean --approve? (`coplay run -h` lists the flags)"},
		{[]string{"--sped", "3"}, "unknown flag --sped: did you mean --seed, --spec or --speed? (`coplay run -h` lists the flags)"},
		{[]string{"--resu"}, "unknown flag --resu: did you mean --resume? (`coplay run -h` lists the flags)"},
		{[]string{"--colour", "red"}, "unknown flag --colour (`coplay run -h` lists the flags)"},
		{[]string{"-x"}, "unknown flag -x (`coplay run -h` lists the flags)"},
		{[]string{"--seed", "abc"}, `--seed: "abc" is not a whole number`},
		{[]string{"-seed", "abc"}, `--seed: "abc" is not a whole number`},
		{[]string{"--speed", "fast"}, `--speed: "fast" is not a number`},
		{[]string{"--resume=maybe"}, `--resume: "maybe" is not true or false`},
		{[]string{"--steps", "1.5"}, `--steps: "1.5" is not a whole number`},
		{[]string{"--call-timeout", "soon"}, `--call-timeout: "soon" is not a duration such as 30s`},
		{[]string{"--seat", "Heron"}, `--seat: want NAME=PROFILE (like Heron=autopilot, Lark=script:lark.json or Finch=fast/cheap), not "Heron"`},
		{[]string{"--data"}, "--data needs a file after it (`coplay run -h` lists the flags)"},
	} {
		var out, errOut strings.Builder
		err := execute(append([]string{"run"}, c.args...), &out, &errOut)
		var ue *usageError
		if !errors.As(err, &ue) {
			t.Errorf("coplay run %q = %v, want a usage error", c.args, err)
			continue
		}
		if err.Error() != c.want {
			t.Errorf("coplay run %q:\n got %s\nwant %s", c.args, err, c.want)
		}
		if line := "coplay run: " + c.want + "\n"; errOut.String() != line {
			t.Errorf("coplay run %q: stderr %q, want %q", c.args, errOut.String(), line)
		}
	}
}

// Flags may come before and after the session's name, and Go's single-dash long flags
// (-data) still work.
func TestParseFlagsInterleaved(t *testing.T) {
	cmd := newRunCmd()
	root := newRoot()
	root.AddCommand(cmd)
	args := normalizeFlags(cmd, []string{"--resume", "NAME", "-data", "x.db", "--approve", "all", "--model", "-odd"})
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	if pos := cmd.Flags().Args(); len(pos) != 1 || pos[0] != "NAME" {
		t.Errorf("positional = %q, want [NAME]", pos)
	}
	for name, want := range map[string]string{"data": "x.db", "approve": "all", "model": "-odd"} {
		if got := cmd.Flags().Lookup(name).Value.String(); got != want {
			t.Errorf("--%s = %q, want %q", name, got, want)
		}
	}
}

func TestParseFlagsHelpGoesToStdout(t *testing.T) {
	for _, args := range [][]string{{"run", "-h"}, {"run", "-help"}, {"run", "--help"}} {
		var out, errOut strings.Builder
		if code := run(args, &out, &errOut); code != 0 || !strings.Contains(out.String(), "--approve") || errOut.Len() > 0 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want the flags on stdout", args, code, out.String(), errOut.String())
		}
	}
}

func TestRunExitStatus(t *testing.T) {
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

// Long flags written with one dash, as Go's flag package took them (`coplay -game
// arena`), still work, before and after a command; a value that starts with a dash is
// left alone.
func TestSingleDashLongFlags(t *testing.T) {
	data := filepath.Join(t.TempDir(), "coplay.db")
	var out, errOut strings.Builder
	if code := run([]string{"-game", "nope", "-data", data}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), `coplay: --game must be one of`) {
		t.Errorf("coplay -game nope: exit %d, stderr %q", code, errOut.String())
	}
	out.Reset()
	errOut.Reset()
	if code := run([]string{"sessions", "-data", data, "-json"}, &out, &errOut); code != 0 || strings.TrimSpace(out.String()) != "[]" {
		t.Errorf("coplay sessions -data FILE -json: exit %d, %q %q", code, out.String(), errOut.String())
	}
	cmd := newRunCmd()
	got := normalizeFlags(cmd, []string{"-data", "x.db", "-model", "-odd", "-o", "--", "-steps"})
	if want := []string{"--data", "x.db", "--model", "-odd", "-o", "--", "-steps"}; !slices.Equal(got, want) {
		t.Errorf("normalizeFlags = %q, want %q", got, want)
	}
}
