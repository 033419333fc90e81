package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A config file with mistakes, met when a run starts, is reported one problem a line
// (as `coplay config check` does) with the command that checks it again; nothing starts.
func TestConfigProblemsAtRunTimeOneALine(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "bad.toml")
	if err := os.WriteFile(bad, []byte("[defaults]\nmodle = \"x\"\nbrain = 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	code := run([]string{"run", "--headless", "--config", bad, "--steps", "1", "--data", filepath.Join(t.TempDir(), "c.db")}, &out, &errOut)
	lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	if code != 1 || len(lines) != 4 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut.String())
	}
	for i, want := range []string{
		"coplay run: the config file " + bad + " has 2 problems:",
		"  " + bad + ":2: key defaults.modle: unknown key (did you mean model?)",
		"  " + bad + ":3: key defaults.brain:",
		"fix them, then `coplay config check " + bad + "`",
	} {
		if !strings.HasPrefix(lines[i], want) {
			t.Errorf("line %d = %q, want it to begin %q", i+1, lines[i], want)
		}
	}
	if out.Len() != 0 {
		t.Errorf("something started:\n%s", out.String())
	}
}
