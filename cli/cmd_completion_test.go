package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/coplayhq/coplay/notes"
)

// `coplay --help` is the map of commands, one line each, with the way to each one's
// flags; the screen's flags are `coplay play --help`.
func TestHelpListsTheCommands(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		var out, errOut strings.Builder
		if code := run(args, &out, &errOut); code != 0 {
			t.Fatalf("coplay %s: exit %d, stderr %s", args[0], code, errOut.String())
		}
		for _, want := range []string{"  sessions ", "  models ", "  eval ", "  tools ", "  config ", "  completion ", "coplay COMMAND --help", "coplay play --help"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("coplay %s lacks %q:\n%s", args[0], want, out.String())
			}
		}
		if strings.Contains(out.String(), "-approve") {
			t.Errorf("coplay %s lists the screen's flags:\n%s", args[0], out.String())
		}
		// The same commands as before cobra, each on a line of its own, help hidden.
		var listed []string
		_, commands, _ := strings.Cut(out.String(), "COMMANDS")
		commands, _, _ = strings.Cut(commands, "FLAGS")
		for _, line := range strings.Split(commands, "\n") {
			if f := strings.Fields(line); len(f) > 1 {
				listed = append(listed, f[0])
			}
		}
		want := []string{"attach", "completion", "config", "eval", "mcp", "models", "play", "register", "run", "serve", "serve-universe", "sessions", "tools", "version"}
		if !slices.Equal(listed, want) {
			t.Errorf("coplay %s lists the commands %q, want %q", args[0], listed, want)
		}
	}
	for _, args := range [][]string{{"play", "--help"}, {"--game", "arena", "--help"}, {"help", "play"}} {
		var out, errOut strings.Builder
		if code := run(args, &out, &errOut); code != 0 || !strings.Contains(out.String(), "-approve") || !strings.Contains(out.String(), "usage: coplay [play]") {
			t.Errorf("coplay %s: exit %d, want the screen's flags:\n%s", strings.Join(args, " "), code, out.String())
		}
	}
	var out, errOut strings.Builder
	if code := run([]string{"help", "sessions"}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "coplay sessions export NAME") {
		t.Errorf("coplay help sessions: exit %d:\n%s", code, out.String())
	}
}

// A mistyped command is answered with the command meant, the start of one included.
func TestMistypedCommandSaysWhichWasMeant(t *testing.T) {
	t.Parallel()
	for typed, meant := range map[string]string{"ses": "sessions", "sesions": "sessions", "modles": "models", "evl": "eval", "complet": "completion"} {
		var out, errOut strings.Builder
		code := run([]string{typed}, &out, &errOut)
		if code != 2 || !strings.Contains(errOut.String(), "did you mean "+meant+"?") || strings.Count(errOut.String(), "\n") != 1 {
			t.Errorf("coplay %s: exit %d, stderr %q; want did you mean %s?", typed, code, errOut.String(), meant)
		}
	}
}

// Every command and subcommand answers --help, and a shell coplay has no script for is
// the person's mistake.
func TestEveryCommandHasHelp(t *testing.T) {
	t.Parallel()
	var walk func(path []string, cmd *cobra.Command)
	walk = func(path []string, cmd *cobra.Command) {
		for _, sub := range cmd.Commands() {
			if !sub.IsAvailableCommand() {
				continue
			}
			words := append(append([]string{}, path...), sub.Name())
			var out, errOut strings.Builder
			if code := run(append(words, "--help"), &out, &errOut); code != 0 || !strings.Contains(out.String(), "coplay "+strings.Join(words, " ")) {
				t.Errorf("coplay %s --help: exit %d, %s%s", strings.Join(words, " "), code, out.String(), errOut.String())
			}
			walk(words, sub)
		}
	}
	walk(nil, newRoot())
	var out, errOut strings.Builder
	if code := run([]string{"completion", "tcsh"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "bash, zsh or fish") {
		t.Errorf("completion tcsh: exit %d, %q", code, errOut.String())
	}
}

// completionFixture is a notebook with two sessions and a league of two seats, and a
// config file with a profile, both at their default places (XDG_DATA_HOME and
// XDG_CONFIG_HOME): completion reads them as the commands do. The tests that call it
// are serial: it sets those in the process's environment (t.Setenv).
func completionFixture(t *testing.T) (data string) {
	t.Helper()
	dataHome, configHome := t.TempDir(), t.TempDir()
	t.Setenv("XDG_DATA_HOME", dataHome)
	t.Setenv("XDG_CONFIG_HOME", configHome)
	data, err := notes.DefaultPath()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(data), 0o700); err != nil {
		t.Fatal(err)
	}
	book, err := notes.Open(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"heron-run", "finch-run"} {
		if _, err := book.Create(name, "universe", "autopilot"); err != nil {
			t.Fatal(err)
		}
	}
	seat, err := book.Create("cup-Heron", "arena", "autopilot")
	if err != nil {
		t.Fatal(err)
	}
	if err := seat.SetLeague("cup", "Heron"); err != nil {
		t.Fatal(err)
	}
	if err := book.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(configHome, "coplay"), 0o700); err != nil {
		t.Fatal(err)
	}
	doc := "[profiles.\"looker/fast\"]\nbrain = \"autopilot\"\n"
	if err := os.WriteFile(filepath.Join(configHome, "coplay", "config.toml"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return data
}

// complete asks coplay what completes args (the last being the word under the cursor),
// as the shells' scripts do, and returns the candidates without their descriptions.
func complete(t *testing.T, args ...string) []string {
	t.Helper()
	var out, errOut strings.Builder
	if code := run(append([]string{"__complete"}, args...), &out, &errOut); code != 0 {
		t.Fatalf("__complete %q: exit %d, %s", args, code, errOut.String())
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if line == "" || strings.HasPrefix(line, ":") {
			continue // the directive
		}
		word, _, _ := strings.Cut(line, "\t")
		got = append(got, word)
	}
	return got
}

// Completion offers what there is: the notebook's session (and league) names after
// --resume and the commands that take one, the config file's profiles after --profile
// and --seat NAME=, a command's start, and the values a flag takes. Reading the names
// never creates a notebook.
func TestDynamicCompletion(t *testing.T) {
	data := completionFixture(t)
	sessions := []string{"cup", "cup-Heron", "finch-run", "heron-run"}
	for _, c := range []struct {
		args []string
		want []string // each must be offered
		not  []string // none of these may be
	}{
		{[]string{"ses"}, []string{"sessions"}, []string{"eval"}},
		{[]string{"--resume", ""}, sessions, nil},
		{[]string{"run", "--resume", ""}, sessions, nil},
		{[]string{"run", "--data", data, "--resume", "h"}, []string{"heron-run"}, nil},
		{[]string{""}, []string{"sessions", "play", "run", "completion"}, sessions},
		{[]string{"sessions", "export", ""}, sessions, nil},
		{[]string{"sessions", "rm", ""}, sessions, nil},
		{[]string{"sessions", "replay", ""}, sessions, nil},
		{[]string{"sessions", "export", "heron-run", ""}, nil, sessions},
		{[]string{"attach", ""}, []string{"heron-run", "finch-run"}, nil},
		{[]string{"--fork", ""}, []string{"heron-run@"}, nil},
		{[]string{"--profile", ""}, []string{"looker", "looker/fast", "autopilot", "autopilot/bold", "autopilot/careful"}, nil},
		{[]string{"eval", "--profile", ""}, []string{"looker", "autopilot"}, nil},
		{[]string{"--seat", "Heron="}, []string{"Heron=looker", "Heron=looker/fast", "Heron=autopilot", "Heron=autopilot/careful", "Heron=script:", "Heron=person"}, nil},
		{[]string{"eval", "--seat", "Heron="}, []string{"Heron=autopilot/bold", "Heron=looker"}, []string{"Heron=person"}},
		{[]string{"--game", ""}, []string{"arena", "universe", "mcp"}, nil},
		{[]string{"--catalog", ""}, []string{"ops", "grouped"}, nil},
		{[]string{"eval", "--game", ""}, []string{"arena", "universe"}, []string{"mcp", "openapi"}},
		{[]string{"--mcp-transport", ""}, []string{"http", "sse"}, nil},
		{[]string{"--scenario", ""}, []string{"hello"}, nil},
		{[]string{"run", "--st"}, []string{"--steps"}, nil},
		{[]string{"-"}, []string{"--game", "--resume", "--seat"}, nil},
		{[]string{"completion", ""}, []string{"bash", "zsh", "fish"}, nil},
	} {
		got := complete(t, c.args...)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("coplay %q: %q lacks %q", c.args, got, w)
			}
		}
		for _, w := range c.not {
			if slices.Contains(got, w) {
				t.Errorf("coplay %q: %q offers %q", c.args, got, w)
			}
		}
	}
	missing := filepath.Join(t.TempDir(), "none.db")
	if got := complete(t, "--data", missing, "--resume", ""); len(got) != 0 {
		t.Errorf("a notebook that is not there offers %q", got)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("completion created the notebook %s (%v)", missing, err)
	}
}

// withCoplayOnPath is the environment with the built coplay first on PATH.
func withCoplayOnPath(t *testing.T) []string {
	return append(os.Environ(), "PATH="+filepath.Dir(coplayBinary(t))+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// bashCompletion is bash-completion's script, which cobra's bash script needs (its
// _get_comp_words_by_ref), as distributions install it; "" when it is not there.
func bashCompletion() string {
	for _, p := range []string{"/usr/share/bash-completion/bash_completion", "/etc/bash_completion", "/opt/homebrew/etc/profile.d/bash_completion.sh", "/usr/local/etc/profile.d/bash_completion.sh"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// After `source <(coplay completion bash)` in an interactive bash, the completion
// function answers what a Tab would: `coplay ses` completes to sessions, and
// `coplay --resume <Tab>` to the notebook's sessions.
func TestBashCompletion(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on PATH")
	}
	lib := bashCompletion()
	if lib == "" {
		t.Skip("bash-completion is not installed (cobra's bash script needs it; apt-get install bash-completion)")
	}
	data := completionFixture(t)
	script := `source ` + lib + `
source <(coplay completion bash) || exit 1
complete -p coplay
try() {
	COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
	__start_coplay coplay "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" 2>/dev/null
	echo "[$*] ${COMPREPLY[*]}"
}
try coplay ses
try coplay sessions ''
try coplay --resume ''
try coplay run --data ` + data + ` --resume f
try coplay sessions export x -
try coplay --game ''
try coplay run --st
try coplay completion ''
try coplay --seat Heron=lo
`
	cmd := exec.Command(bash, "--norc", "--noprofile", "-i", "-c", script)
	cmd.Env = withCoplayOnPath(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	for _, want := range []string{
		"complete -o default -F __start_coplay coplay",
		"[coplay ses] sessions\n",
		"[coplay sessions ] export list replay rm\n",
		"[coplay --resume ] cup cup-Heron finch-run heron-run\n",
		"[coplay run --data " + data + " --resume f] finch-run\n",
		"[coplay sessions export x -] --data --help -h --output -o\n",
		"[coplay --game ] arena mcp openapi spacetraders universe\n",
		"[coplay run --st] --steps\n",
		"[coplay completion ] bash zsh fish\n",
		"[coplay --seat Heron=lo] looker looker/fast\n",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("bash completion lacks %q:\n%s", want, out)
		}
	}
}

// fish completes from the script the same way (`complete -C` asks it as a Tab would),
// and zsh reads its script without a syntax error; each is skipped where the shell is
// not installed.
func TestFishAndZshCompletion(t *testing.T) {
	t.Parallel()
	if fish, err := exec.LookPath("fish"); err != nil {
		t.Log("no fish on PATH: its completion is not tried")
	} else {
		cmd := exec.Command(fish, "--no-config", "-c", `coplay completion fish | source; complete -C "coplay ses"; complete -C "coplay sessions export x -"`)
		cmd.Env = withCoplayOnPath(t)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "sessions\t") || !strings.Contains(string(out), "-o\t") || !strings.Contains(string(out), "--data\t") {
			t.Errorf("fish completion: %v\n%s", err, out)
		}
	}
	if zsh, err := exec.LookPath("zsh"); err != nil {
		t.Log("no zsh on PATH: its script is not checked")
	} else {
		script := filepath.Join(t.TempDir(), "_coplay")
		var out, errOut strings.Builder
		if code := run([]string{"completion", "zsh"}, &out, &errOut); code != 0 {
			t.Fatalf("completion zsh: exit %d, %s", code, errOut.String())
		}
		if err := os.WriteFile(script, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if msg, err := exec.Command(zsh, "-n", script).CombinedOutput(); err != nil {
			t.Errorf("zsh -n: %v\n%s", err, msg)
		}
	}
}
