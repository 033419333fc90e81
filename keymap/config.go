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
// list or malformed JSON is an error that names the file.
func Load(path string) (*KeyMap, error) {
	km := Default()
	data, err := os.ReadFile(path)
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
// on error k is unchanged.
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
	for _, n := range names {
		b := byName[n].Binding
		b.SetKeys(over[n]...)
		b.SetHelp(helpKeys(over[n]), b.Help().Desc)
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
