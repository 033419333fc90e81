//go:build unix

package cli

// What a new user meets when they get something wrong at startup: every mistake in the
// flags, the environment or the notebook is one line on stderr and a non-zero exit, in
// `coplay run --headless` and in the screen alike, and a mistake in the flags leaves the
// notebook as it was.

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coplayhq/coplay/notes"
)

// startupResult is how one run of the binary ended.
type startupResult struct {
	code           int
	stdout, stderr string
}

// runStartup runs the coplay binary with args, an empty stdin, no terminal (a new
// session, so not even /dev/tty) and an environment without keys or tokens, with env
// added; it waits at most a minute.
func runStartup(t *testing.T, env []string, args ...string) startupResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, coplayBinary(t), args...)
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "SPACETRADERS_") || strings.HasPrefix(name, "OPENAI_") ||
			strings.HasPrefix(name, "OPENROUTER_") || name == "XDG_DATA_HOME" {
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	// Never the user's own notebook, whatever a test forgets to pass.
	cmd.Env = append(cmd.Env, "XDG_DATA_HOME="+t.TempDir())
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin = strings.NewReader("")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	r := startupResult{stdout: out.String(), stderr: errOut.String()}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	default:
		t.Fatalf("coplay %s: %v", strings.Join(args, " "), err)
	}
	if ctx.Err() != nil {
		t.Fatalf("coplay %s did not finish in a minute; stderr:\n%s", strings.Join(args, " "), r.stderr)
	}
	return r
}

// checkOneLine asserts a failed start: the exit status, one line on stderr holding every
// key word, and nothing that looks like a panic or a stack trace.
func checkOneLine(t *testing.T, r startupResult, code int, words ...string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit status %d, want %d; stderr:\n%s", r.code, code, r.stderr)
	}
	for _, bad := range []string{"panic", "goroutine ", ".go:", "Usage of", "nil pointer"} {
		if strings.Contains(r.stderr, bad) {
			t.Errorf("stderr holds %q:\n%s", bad, r.stderr)
		}
	}
	if lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n"); len(lines) != 1 || lines[0] == "" {
		t.Errorf("stderr is %d lines, want one:\n%s", len(lines), r.stderr)
	}
	for _, w := range words {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr does not say %q:\n%s", w, r.stderr)
		}
	}
	if r.stdout != "" {
		t.Errorf("stdout is not empty (nothing should have started):\n%s", r.stdout)
	}
}

// notebookWith makes a notebook holding one session, "kept", and returns its path.
func notebookWith(t *testing.T) string {
	t.Helper()
	path, book := newNotebook(t)
	defer book.Close()
	if _, err := book.Create("kept", "universe", "autopilot"); err != nil {
		t.Fatal(err)
	}
	return path
}

// sessionNames lists the sessions in the notebook at path.
func sessionNames(t *testing.T, path string) []string {
	t.Helper()
	book, err := notes.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer book.Close()
	list, err := book.List()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range list {
		names = append(names, s.Name)
	}
	return names
}

// modes are the two ways to start: headless, and the screen (no subcommand).
var modes = []struct {
	name string
	args []string
}{
	{"run", []string{"run", "--headless"}},
	{"screen", nil},
}

func TestStartupFlagMistakes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		args  []string
		words []string
	}{
		{"approve", []string{"--approve", "maybe"}, []string{"--approve", "ask or all", `"maybe"`}},
		{"game", []string{"--game", "nope"}, []string{"--game", "universe", "spacetraders", `"nope"`}},
		{"brain", []string{"--brain", "nope"}, []string{"--brain", "autopilot", "script:FILE", `"nope"`}},
		{"brain typo", []string{"--brain", "autopilto"}, []string{"did you mean autopilot?"}},
		{"preset", []string{"--preset", "nope"}, []string{"--preset", "ollama", `"nope"`}},
		{"preset typo", []string{"--preset", "olama"}, []string{"did you mean ollama?"}},
		{"flag typo", []string{"--apporve", "all"}, []string{"unknown flag --apporve", "did you mean --approve?", "-h"}},
		{"unknown flag", []string{"--colour", "red"}, []string{"unknown flag --colour"}},
		{"seed", []string{"--seed", "abc"}, []string{"--seed", `"abc"`, "whole number"}},
		{"speed negative", []string{"--speed", "-1"}, []string{"--speed", "-1"}},
		{"speed not a number", []string{"--speed", "fast"}, []string{"--speed", `"fast"`, "number"}},
		{"speed NaN", []string{"--speed", "NaN"}, []string{"--speed"}},
		{"max iterations", []string{"--max-iterations", "-5"}, []string{"--max-iterations", "-5"}},
		{"base url", []string{"--game", "spacetraders", "--base-url", "api.spacetraders.io"}, []string{"--base-url", "http"}},
		{"flag of another game", []string{"--base-url", "https://x.example/v2"}, []string{"--base-url is for --game", "spacetraders", "not --game universe"}},
		{"mcp without a server", []string{"--game", "mcp", "--brain", "script:../testdata/cassettes/demo.cassette.json"}, []string{"--game mcp needs --mcp"}},
		{"autopilot on mcp", []string{"--game", "mcp", "--mcp", "node server.js"}, []string{"the autopilot plays only SpaceTraders", "--model"}},
		{"missing value", []string{"--approve"}, []string{"--approve needs a policy"}},
		{"stray argument", []string{"--approve", "all", "oops"}, []string{`"oops"`, "--resume"}},
		{"empty script", []string{"--brain", "script:"}, []string{"--brain script:FILE", "file"}},
	}
	for _, m := range modes {
		for _, c := range cases {
			t.Run(m.name+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				path := notebookWith(t)
				args := append(append(append([]string{}, m.args...), c.args...), "--data", path)
				if c.name == "missing value" {
					// The flag with no value must be last.
					args = append(append(append([]string{}, m.args...), "--data", path), c.args...)
				}
				r := runStartup(t, nil, args...)
				checkOneLine(t, r, 2, c.words...)
				if got := sessionNames(t, path); len(got) != 1 || got[0] != "kept" {
					t.Errorf("the notebook's sessions are now %q, want only kept", got)
				}
			})
		}
	}
}

func TestStartupFlagMistakeCreatesNoNotebook(t *testing.T) {
	t.Parallel()
	for _, m := range modes {
		path := filepath.Join(t.TempDir(), "coplay.db")
		r := runStartup(t, nil, append(m.args, "--data", path, "--approve", "maybe")...)
		checkOneLine(t, r, 2, "--approve")
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: a bad flag created the notebook %s (%v)", m.name, path, err)
		}
	}
}

func TestStartupEnvironmentAndNotebookMistakes(t *testing.T) {
	t.Parallel()
	garbage := func(t *testing.T) string {
		path := filepath.Join(t.TempDir(), "coplay.db")
		data := bytes.Repeat([]byte("this is not a bbolt file. "), 2000)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// A real notebook whose two meta pages (the first 8 KiB) were overwritten.
	damaged := func(t *testing.T) string {
		path := notebookWith(t)
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteAt(bytes.Repeat([]byte{0xA5}, 8192), 0); err != nil {
			t.Fatal(err)
		}
		return path
	}
	cases := []struct {
		name   string
		env    []string
		notebk func(t *testing.T) string
		args   []string
		words  []string
		code   int
		broken bool // the notebook is damaged: coplay must not change a byte of it
	}{
		{"spacetraders without a token", nil, notebookWith,
			[]string{"--game", "spacetraders"}, []string{"SPACETRADERS_TOKEN", "coplay register"}, 1, false},
		{"model without a key", nil, notebookWith,
			[]string{"--model", "gpt-4o-mini"}, []string{"OPENAI_API_KEY"}, 1, false},
		{"missing cassette", nil, notebookWith,
			[]string{"--brain", "script:no-such-cassette.json"}, []string{"--brain script:no-such-cassette.json", "no such file"}, 1, false},
		{"resume a missing session", nil, notebookWith,
			[]string{"--resume", "nosuch"}, []string{`no session "nosuch"`, "coplay sessions"}, 1, false},
		{"garbage notebook", nil, garbage,
			nil, []string{"not a coplay notebook or is damaged", "--data"}, 1, true},
		{"damaged notebook", nil, damaged,
			nil, []string{"damaged", "--data"}, 1, true},
		{"resume from a garbage notebook", nil, garbage,
			[]string{"--resume"}, []string{"not a coplay notebook or is damaged"}, 1, true},
	}
	for _, m := range modes {
		for _, c := range cases {
			t.Run(m.name+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				path := c.notebk(t)
				before, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				args := append(append(append([]string{}, m.args...), c.args...), "--data", path)
				words := c.words
				if c.broken {
					words = append(words, path)
				}
				checkOneLine(t, runStartup(t, c.env, args...), c.code, words...)
				if !c.broken {
					if got := sessionNames(t, path); len(got) != 1 || got[0] != "kept" {
						t.Errorf("the notebook's sessions are now %q, want only kept", got)
					}
				} else if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
					t.Errorf("the damaged notebook file changed")
				}
			})
		}
	}
}

func TestStartupResumeWithoutNotebook(t *testing.T) {
	t.Parallel()
	for _, m := range modes {
		path := filepath.Join(t.TempDir(), "coplay.db")
		r := runStartup(t, nil, append(m.args, "--resume", "--data", path)...)
		checkOneLine(t, r, 1, "no notebook at "+path, "without --resume")
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: resuming created the notebook %s (%v)", m.name, path, err)
		}
	}
}

func TestStartupResumeRealGameWithoutToken(t *testing.T) {
	t.Parallel()
	path, book := newNotebook(t)
	if _, err := book.Create("real", "spacetraders", "autopilot"); err != nil {
		t.Fatal(err)
	}
	book.Close()
	for _, m := range modes {
		r := runStartup(t, nil, append(m.args, "--data", path, "--resume", "real")...)
		checkOneLine(t, r, 1, "session real", "SPACETRADERS_TOKEN")
	}
}

func TestStartupLockedNotebook(t *testing.T) {
	t.Parallel()
	path := notebookWith(t)
	// This process holds the file, as a running coplay would.
	book, err := notes.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer book.Close()
	for _, m := range modes {
		for _, extra := range [][]string{nil, {"--resume", "kept"}} {
			r := runStartup(t, nil, append(append(m.args, "--data", path), extra...)...)
			checkOneLine(t, r, 1, path, "in use by another coplay", "--data")
		}
	}
	if list, err := book.List(); err != nil || len(list) != 1 {
		t.Errorf("sessions after the locked starts: %v, %v; want only kept", list, err)
	}
}

// A zero-byte file is damaged (coplay never leaves one: it was truncated), never an
// empty notebook: headless and the screen alike say so in one line, exit 1 and leave the
// file as it was.
func TestStartupEmptyNotebookFile(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"run", "--headless", "--steps", "1", "--approve", "all", "--no-rate-limit"},
		{}, // the screen
	} {
		path := filepath.Join(t.TempDir(), "coplay.db")
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		checkOneLine(t, runStartup(t, nil, append(args, "--data", path)...), 1, path, "is damaged", "empty (0 bytes)")
		if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
			t.Errorf("%v: the empty file was changed: %v, %v", args, fi, err)
		}
	}
}

func TestStartupOtherCommands(t *testing.T) {
	t.Parallel()
	garbage := filepath.Join(t.TempDir(), "coplay.db")
	if err := os.WriteFile(garbage, bytes.Repeat([]byte("not a notebook "), 1000), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args  []string
		code  int
		words []string
	}{
		{[]string{"plya"}, 2, []string{`unknown command "plya"`, "did you mean play?"}},
		{[]string{"sessions", "--jsn"}, 2, []string{"unknown flag --jsn", "did you mean --json?"}},
		{[]string{"sessions", "export"}, 2, []string{"one session or league name"}},
		{[]string{"sessions", "--data", garbage}, 1, []string{garbage, "damaged", "move it aside"}},
		{[]string{"sessions", "rm", "x", "--data", garbage}, 1, []string{garbage, "damaged"}},
		{[]string{"serve-universe", "--speed", "0"}, 2, []string{"--speed"}},
		{[]string{"serve-universe", "--sped", "3"}, 2, []string{"did you mean --seed or --speed?"}},
		{[]string{"serve-universe", "--addr", "127.0.0.1:-1"}, 1, []string{"127.0.0.1:-1"}},
		{[]string{"register", "--symbol", "X"}, 2, []string{"--symbol", "3 to 14"}},
		{[]string{"register", "--symbol", "COPLAYER"}, 1, []string{"SPACETRADERS_ACCOUNT_TOKEN"}},
		{[]string{"tools", "extra"}, 2, []string{`"extra"`}},
		{[]string{"tools", "--jsno"}, 2, []string{"did you mean --json?"}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			checkOneLine(t, runStartup(t, nil, c.args...), c.code, c.words...)
		})
	}
}

func TestStartupHelpIsNotAnError(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"help"}, {"-h"}, {"run", "-h"}, {"sessions", "--help"}} {
		r := runStartup(t, nil, args...)
		if r.code != 0 || !strings.Contains(r.stdout, "-data") && !strings.Contains(r.stdout, "commands:") {
			t.Errorf("coplay %s: exit %d, stdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
	}
}
