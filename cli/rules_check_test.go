package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRuleOnAnUnknownEffectIsRefusedInConfig: `allow navigate_ship if fule <= 100` in
// config.toml's [defaults] or in a profile stops the start and fails `coplay config
// check`, naming fule and suggesting fuel; a rule for a tool the game does not have
// fails the check too; the notebook's tools are not mistaken for unknown ones.
func TestRuleOnAnUnknownEffectIsRefusedInConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, doc, where string }{
		{"defaults", "[defaults]\nrules = [\"allow update_notes\", \"allow navigate_ship if fule <= 100\"]\n", "config.toml"},
		{"profile", "[profiles.\"p/x\"]\nbrain = \"autopilot\"\nrules = [\"allow navigate_ship if fule <= 100\"]\n", "profile p/x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			env := []string{"XDG_CONFIG_HOME=" + dir}
			path := filepath.Join(dir, "coplay", "config.toml")
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(tc.doc), 0o600); err != nil {
				t.Fatal(err)
			}
			const want = `navigate_ship predicts no "fule"; did you mean fuel?`
			var out, errOut bytes.Buffer
			if code := runEnv(t, env, []string{"config", "check"}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), want) {
				t.Errorf("config check: exit %d\n%s%s", code, out.String(), errOut.String())
			}
			args := []string{"run", "--data", filepath.Join(dir, "coplay.db"), "--steps", "1"}
			if tc.name == "profile" {
				args = append(args, "--profile", "p/x")
			}
			out.Reset()
			errOut.Reset()
			if code := runEnv(t, env, args, &out, &errOut); code == 0 || !strings.Contains(errOut.String(), want) || !strings.Contains(errOut.String(), tc.where) {
				t.Errorf("run: exit %d: %s", code, errOut.String())
			}
		})
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "c.toml")
	os.WriteFile(bad, []byte("[defaults]\nrules = [\"deny dok_ship\", \"allow wait\"]\n"), 0o600)
	var out, errOut bytes.Buffer
	if code := run([]string{"config", "check", bad}, &out, &errOut); code != 1 ||
		!strings.Contains(errOut.String(), `no tool "dok_ship"; did you mean dock_ship`) || strings.Contains(errOut.String(), `"wait"`) {
		t.Errorf("config check of a rule for a tool the game lacks: exit %d\n%s", code, errOut.String())
	}
}
