package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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

// Every subcommand completion offers is one its command accepts.
func TestCompletionSubcommandsExist(t *testing.T) {
	t.Parallel()
	for cmd, subs := range subcommands {
		for _, sub := range subs {
			var out, errOut strings.Builder
			if code := run([]string{cmd, sub[0], "--help"}, &out, &errOut); code != 0 {
				t.Errorf("coplay %s %s --help: exit %d, %s", cmd, sub[0], code, errOut.String())
			}
		}
	}
	var out, errOut strings.Builder
	if code := run([]string{"completion", "tcsh"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "bash, zsh or fish") {
		t.Errorf("completion tcsh: exit %d, %q", code, errOut.String())
	}
}

// withCoplayOnPath is the environment with the built coplay first on PATH.
func withCoplayOnPath(t *testing.T) []string {
	return append(os.Environ(), "PATH="+filepath.Dir(coplayBinary(t))+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// After `source <(coplay completion bash)` in an interactive bash, the completion
// function answers what a Tab would: `coplay ses` completes to sessions.
func TestBashCompletion(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on PATH")
	}
	script := `source <(coplay completion bash) || exit 1
complete -p coplay
try() { COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=(); _coplay; echo "[$*] ${COMPREPLY[*]}"; }
try coplay ses
try coplay sessions ''
try coplay sessions export x -
try coplay --game ''
try coplay --data x.db ses
try coplay run --st
try coplay completion ''
`
	cmd := exec.Command(bash, "--norc", "--noprofile", "-i", "-c", script)
	cmd.Env = withCoplayOnPath(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	for _, want := range []string{
		"complete -o default -F _coplay coplay",
		"[coplay ses] sessions\n",
		"[coplay sessions ] list export rm replay\n",
		"[coplay sessions export x -] --data -o\n",
		"[coplay --game ] arena mcp openapi spacetraders universe\n",
		"[coplay --data x.db ses] sessions\n",
		"[coplay run --st] --steps\n",
		"[coplay completion ] bash zsh fish\n",
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
