package keymap

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/coplayhq/coplay/internal/infile"
)

// ConfigPath returns where the overrides file lives: keys.json in the coplay directory
// of the user config directory ($XDG_CONFIG_HOME/coplay/keys.json on Linux).
func ConfigPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("keymap: locating the config directory: %w", err)
	}
	return filepath.Join(dir, "coplay", "keys.json"), nil
}

// Load returns the default bindings with the overrides of the JSON file at path, an
// object from action name to keys: {"approve": ["a", "y"], "veto": ["v"]}. A missing
// file is no error: the defaults are returned. An unknown action name, an empty key
// list, a key bound to two actions that are live at the same time, malformed JSON, a
// file over 1 MiB, or a FIFO, device or directory is an error that names the file.
func Load(path string) (*KeyMap, error) {
	km := Default()
	data, err := infile.Read(path, infile.Small)
	if errors.Is(err, fs.ErrNotExist) {
		return km, nil
	}
	if err != nil {
		return nil, fmt.Errorf("keymap: %w", err)
	}
	var over map[string][]string
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&over); err != nil {
		return nil, fmt.Errorf("keymap: %s: not a JSON object of action names to key lists (e.g. {\"approve\": [\"a\", \"y\"]}): %v", path, err)
	}
	if err := km.Override(over); err != nil {
		return nil, fmt.Errorf("keymap: %s: %w", path, err)
	}
	return km, nil
}

// Override replaces the keys of the named actions. Every problem is reported at once;
// on error k is unchanged. A key left on its default action while another action is
// given it is a clash too: {"approve": ["v"]} is refused because v vetoes.
func (k *KeyMap) Override(over map[string][]string) error {
	byName := map[string]*Action{}
	actions := k.Actions()
	for i := range actions {
		byName[actions[i].Name] = &actions[i]
	}
	names := make([]string, 0, len(over))
	for n := range over {
		names = append(names, n)
	}
	sort.Strings(names)
	var probs []string
	for _, n := range names {
		if _, ok := byName[n]; !ok {
			probs = append(probs, fmt.Sprintf("unknown action %q (known: %s)", n, knownNames(actions)))
			continue
		}
		keys := over[n]
		if len(keys) == 0 {
			probs = append(probs, fmt.Sprintf("action %q has no keys", n))
		}
		for _, key := range keys {
			if strings.TrimSpace(key) == "" {
				probs = append(probs, fmt.Sprintf("action %q has an empty key", n))
			}
		}
	}
	if len(probs) > 0 {
		return errors.New(strings.Join(probs, "; "))
	}
	// Apply to a copy first, so a clash leaves k unchanged.
	trial := *k
	trialActions := trial.Actions()
	for _, a := range trialActions {
		if keys, ok := over[a.Name]; ok {
			a.Binding.SetKeys(keys...)
		}
	}
	if err := conflicts(trialActions); err != nil {
		return err
	}
	for _, n := range names {
		b := byName[n].Binding
		b.SetKeys(over[n]...)
		b.SetHelp(helpKeys(over[n]), b.Help().Desc)
	}
	return nil
}

// Scopes say where a binding is live: two actions may share a key only when they are
// never live at the same time (y is "yes" in the quit question and may approve on the
// main screen).
const (
	scopeScreen   = "the main screen"
	scopeQuestion = "the quit question"
	scopeInput    = "text inputs and the editor"
	scopeRules    = "the rules dialog"
	scopeHelp     = "the help"
	scopeForm     = "a server's question in the Pending pane"
	scopeView     = "the whole view of a call or log entry, and the map legend"
)

// actionScopes lists where each action's keys are matched.
var actionScopes = map[string][]string{
	"approve": {scopeScreen}, "veto": {scopeScreen}, "edit": {scopeScreen},
	"always_allow": {scopeScreen}, "approve_all": {scopeScreen},
	"up": {scopeScreen, scopeRules, scopeForm, scopeView}, "down": {scopeScreen, scopeRules, scopeForm, scopeView},
	"answer_accept": {scopeForm}, "answer_decline": {scopeForm}, "answer_cancel": {scopeForm},
	"choose": {scopeForm}, "choose_back": {scopeForm}, "fill": {scopeForm}, "open_url": {scopeForm},
	"unfold": {scopeScreen}, "pause": {scopeScreen}, "keep_playing": {scopeScreen}, "advise": {scopeScreen},
	"take_wheel": {scopeScreen}, "move": {scopeScreen}, "complete": {scopeInput},
	"send": {scopeInput}, "submit": {scopeInput},
	"cancel":    {scopeQuestion, scopeInput, scopeRules, scopeHelp, scopeView},
	"scroll_up": {scopeScreen, scopeView}, "scroll_down": {scopeScreen, scopeView}, "follow": {scopeScreen},
	"toggle_notebook": {scopeScreen}, "rules": {scopeScreen, scopeRules},
	"details": {scopeScreen, scopeView}, "copy": {scopeView}, "legend": {scopeScreen, scopeView},
	"revoke": {scopeRules}, "add_rule": {scopeRules}, "edit_rule": {scopeRules},
	"next_tab": {scopeScreen, scopeView}, "prev_tab": {scopeScreen, scopeView},
	"world": {scopeScreen}, "notes": {scopeScreen}, "log": {scopeScreen},
	"help": {scopeScreen, scopeRules, scopeHelp, scopeForm},
	"quit": {scopeScreen, scopeQuestion, scopeRules, scopeHelp, scopeForm, scopeView},
	"yes":  {scopeQuestion}, "no": {scopeQuestion},
	"next_seat": {scopeScreen}, "next_waiting": {scopeScreen},
}

// conflicts reports every key bound to two actions that are live at the same time.
func conflicts(actions []Action) error {
	type owner struct{ action, scope string }
	seen := map[string]owner{} // scope + "\x00" + key → first action
	var probs []string
	reported := map[string]bool{}
	for _, a := range actions {
		for _, sc := range actionScopes[a.Name] {
			for _, key := range a.Binding.Keys() {
				id := sc + "\x00" + key
				first, ok := seen[id]
				if !ok {
					seen[id] = owner{a.Name, sc}
					continue
				}
				if first.action == a.Name {
					continue
				}
				pair := key + "\x00" + first.action + "\x00" + a.Name
				if reported[pair] {
					continue
				}
				reported[pair] = true
				probs = append(probs, fmt.Sprintf("key %q is bound to both %q and %q (both live in %s)", key, first.action, a.Name, sc))
			}
		}
	}
	if len(probs) > 0 {
		return errors.New(strings.Join(probs, "; "))
	}
	return nil
}

func knownNames(actions []Action) string {
	names := make([]string, len(actions))
	for i, a := range actions {
		names[i] = a.Name
	}
	return strings.Join(names, ", ")
}
