package keymap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

func TestDefaultsMatchKeys(t *testing.T) {
	km := Default()
	cases := []struct {
		msg  tea.KeyPressMsg
		want key.Binding
	}{
		{tea.KeyPressMsg{Code: 'a', Text: "a"}, km.Approve},
		{tea.KeyPressMsg{Code: 'A', Text: "A", Mod: tea.ModShift}, km.AlwaysAllow},
		{tea.KeyPressMsg{Code: 'a', Mod: tea.ModCtrl}, km.ApproveAll},
		{tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl}, km.Submit},
		{tea.KeyPressMsg{Code: tea.KeyEscape}, km.Cancel},
		{tea.KeyPressMsg{Code: '?', Text: "?"}, km.Help},
	}
	for _, c := range cases {
		if !key.Matches(c.msg, c.want) {
			t.Errorf("%q does not match %v", c.msg.String(), c.want.Keys())
		}
	}
	if key.Matches(tea.KeyPressMsg{Code: 'a', Text: "a"}, km.AlwaysAllow) {
		t.Error(`"a" matches always allow`)
	}
}

func TestEveryActionHasHelpAndUniqueName(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range Default().Actions() {
		if seen[a.Name] {
			t.Errorf("duplicate action %q", a.Name)
		}
		seen[a.Name] = true
		if a.Binding.Help().Desc == "" || a.Binding.Help().Key == "" || len(a.Binding.Keys()) == 0 {
			t.Errorf("action %q has no keys or help", a.Name)
		}
	}
	var inHelp int
	for _, g := range Default().FullHelp() {
		inHelp += len(g)
	}
	inHelp += len(Default().LeagueHelp()) // a league's help adds its group

	if inHelp != len(seen) {
		t.Errorf("full help shows %d bindings, there are %d", inHelp, len(seen))
	}
}

func TestLoadOverrides(t *testing.T) {
	km, err := Load(writeKeys(t, `{"approve": ["a", "y"], "veto": ["x"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !key.Matches(tea.KeyPressMsg{Code: 'y', Text: "y"}, km.Approve) {
		t.Error("y does not approve")
	}
	if key.Matches(tea.KeyPressMsg{Code: 'v', Text: "v"}, km.Veto) {
		t.Error("v still vetoes")
	}
	if got := km.Veto.Help(); got.Key != "x" || got.Desc != "veto" {
		t.Errorf("veto help = %+v", got)
	}
	if !key.Matches(tea.KeyPressMsg{Code: 'e', Text: "e"}, km.Edit) {
		t.Error("edit lost its default")
	}
}

// writeKeys writes body as a keys.json in a fresh directory and returns its path.
func writeKeys(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "keys.json")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// loadError loads body from a key file and returns the file's path and the error
// Load gave; a file that loads fails the test with msg.
func loadError(t *testing.T, body, msg string) (string, error) {
	t.Helper()
	path := writeKeys(t, body)
	_, err := Load(path)
	if err == nil {
		t.Fatal(msg)
	}
	return path, err
}

func TestLoadMissingFileGivesDefaults(t *testing.T) {
	km, err := Load(filepath.Join(t.TempDir(), "nope.json"))
	if err != nil {
		t.Fatal(err)
	}
	if km.Approve.Keys()[0] != "a" {
		t.Errorf("approve = %v", km.Approve.Keys())
	}
}

func TestLoadErrorsNameTheFile(t *testing.T) {
	cases := map[string]struct{ body, want string }{
		"malformed":  {`{"approve": "a"`, "not a JSON object"},
		"wrong type": {`{"approve": "a"}`, "not a JSON object"},
		"unknown":    {`{"aprove": ["a"]}`, `unknown action "aprove"`},
		"empty":      {`{"veto": []}`, `action "veto" has no keys`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			path, err := loadError(t, c.body, "no error")
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not name %s and say %q", err, path, c.want)
			}
		})
	}
}

func TestOverrideIsAllOrNothing(t *testing.T) {
	km := Default()
	err := km.Override(map[string][]string{"approve": {"y"}, "bogus": {"z"}})
	if err == nil {
		t.Fatal("no error")
	}
	if km.Approve.Keys()[0] != "a" {
		t.Errorf("approve changed to %v despite the error", km.Approve.Keys())
	}
}

func TestConfigPath(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/tmp/cfg")
	p, err := ConfigPath()
	if err != nil {
		t.Fatal(err)
	}
	if p != filepath.Join("/tmp/cfg", "coplay", "keys.json") {
		t.Errorf("ConfigPath = %q", p)
	}
}

func TestDefaultsHaveNoClashAndEveryActionAScope(t *testing.T) {
	km := Default()
	if err := conflicts(km.Actions()); err != nil {
		t.Errorf("defaults clash: %v", err)
	}
	for _, a := range km.Actions() {
		if len(actionScopes[a.Name]) == 0 {
			t.Errorf("action %q has no scope, so its clashes go unnoticed", a.Name)
		}
	}
}

// A key bound to two actions that are live at once is refused, naming the file, the
// key and both actions; keys of actions that never meet may be shared.
func TestLoadRefusesAKeyBoundTwice(t *testing.T) {
	cases := map[string]struct {
		body string
		want []string
	}{
		"onto a default":  {`{"approve": ["v"]}`, []string{`key "v"`, `"approve"`, `"veto"`}},
		"two overrides":   {`{"pause": ["P"], "rules": ["P"]}`, []string{`key "P"`, `"pause"`, `"rules"`}},
		"dialog and main": {`{"revoke": ["x"], "up": ["x"]}`, []string{`key "x"`, `"up"`, `"revoke"`}},
		"in the rules":    {`{"add_rule": ["e"]}`, []string{`key "e"`, `"add_rule"`, `"edit_rule"`}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			path, err := loadError(t, c.body, "clash accepted")
			for _, w := range append(c.want, path) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %s", err, w)
				}
			}
		})
	}
	km := Default()
	if err := km.Override(map[string][]string{"approve": {"v"}}); err == nil {
		t.Fatal("Override accepted approve=v")
	}
	if !key.Matches(tea.KeyPressMsg{Code: 'a', Text: "a"}, km.Approve) || !key.Matches(tea.KeyPressMsg{Code: 'v', Text: "v"}, km.Veto) {
		t.Error("a refused override changed the keymap")
	}
	// a adds a rule in the rules dialog and approves on the main screen: never together.
	if err := Default().Override(map[string][]string{"add_rule": {"a"}}); err != nil {
		t.Errorf("add_rule=a refused: %v", err)
	}
	// y answers the quit question and may approve: they are never live together.
	if err := km.Override(map[string][]string{"approve": {"a", "y"}}); err != nil {
		t.Errorf("approve=y refused: %v", err)
	}
}
