package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Profile is one way of playing: [profiles."NAME/EXPERIMENT"].
type Profile struct {
	Name    string `json:"-"` // NAME/EXPERIMENT
	Default bool   `json:"-"` // the experiment --profile NAME picks

	Brain     string `json:"brain,omitempty"` // autopilot, model, script:FILE ("" = model when a model or endpoint is set)
	Model     string `json:"model,omitempty"`
	Preset    string `json:"preset,omitempty"`
	BaseURL   string `json:"base_url,omitempty"`
	APIKeyEnv string `json:"api_key_env,omitempty"`
	// Temperature is nil when the profile leaves it to the server.
	Temperature   *float64 `json:"temperature,omitempty"`
	MaxTokens     int      `json:"max_tokens,omitempty"`
	MaxIterations int      `json:"max_iterations,omitempty"`
	HistorySteps  int      `json:"history_steps,omitempty"`
	Prompt        string   `json:"prompt,omitempty"`     // added to the system prompt
	Tools         []string `json:"tools,omitempty"`      // the only tools the brain may use
	HideTools     []string `json:"hide_tools,omitempty"` // tools the brain may not use
	// Rules are approval rule lines (agent/rules) applied to the profile's sessions
	// with the file's [defaults] rules; they are not written into the session.
	Rules []string `json:"rules,omitempty"`
	// Approve is the approval policy of the profile's seat in a league: ask or all
	// ("" = the league's). A lone run takes --approve and [defaults].
	Approve string `json:"approve,omitempty"`
	// Temperament is how much an autopilot risks: bold or careful ("" = balanced). Only
	// an autopilot profile has one; the built-ins autopilot/bold and autopilot/careful
	// are the two, to compare with no model and no key.
	Temperament string `json:"temperament,omitempty"`
	// Spending is max_run_tokens, max_run_cost, tool_budget, pin and call_timeout; each changes the
	// profile's version only when set.
	Spending
}

// Base returns NAME of NAME/EXPERIMENT.
func (p Profile) Base() string { n, _, _ := strings.Cut(p.Name, "/"); return n }

// Experiment returns EXPERIMENT of NAME/EXPERIMENT.
func (p Profile) Experiment() string { _, e, _ := strings.Cut(p.Name, "/"); return e }

// BrainKind is what the profile plays with: "autopilot", "script" or "model".
func (p Profile) BrainKind() string {
	switch {
	case p.Brain == "autopilot":
		return "autopilot"
	case strings.HasPrefix(p.Brain, "script:"):
		return "script"
	case p.Brain == "model" || p.Model != "" || p.Preset != "" || p.BaseURL != "":
		return "model"
	}
	return "autopilot"
}

// Version is a short hex digest of a canonical encoding of the profile's definition
// (every field that changes how it plays; not its name or default mark). Pinning
// NAME/EXPERIMENT@VERSION refuses a profile whose definition has changed since.
func (p Profile) Version() string {
	q := p
	// Sets of names: order does not change how the profile plays.
	q.Tools = sortedCopy(p.Tools)
	q.HideTools = sortedCopy(p.HideTools)
	q.Pin = sortedCopy(p.Pin)
	// json.Marshal of a struct is canonical: fields in declaration order, map-free.
	data, err := json.Marshal(q)
	if err != nil {
		panic("config: encoding a profile: " + err.Error()) // only strings, numbers and lists
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])[:8]
}

// ID is NAME/EXPERIMENT@VERSION.
func (p Profile) ID() string { return p.Name + "@" + p.Version() }

func sortedCopy(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// Temperaments are the values of a profile's temperament besides "" (balanced).
var Temperaments = []string{"bold", "careful"}

// builtins are the profiles every coplay has: the autopilot in its three temperaments,
// so that eval and leagues have something to compare on a fresh install, with no key.
// A file that defines any autopilot/... profile replaces all three.
func builtins() []Profile {
	return []Profile{
		{Name: "autopilot/default", Default: true, Brain: "autopilot"},
		{Name: "autopilot/bold", Brain: "autopilot", Temperament: "bold"},
		{Name: "autopilot/careful", Brain: "autopilot", Temperament: "careful"},
	}
}

// Resolve finds the profile spec names: NAME (its default experiment: the one marked
// default = true, the only one, or NAME/default), NAME/EXPERIMENT, either with
// @VERSION to pin the definition's version.
func (f *File) Resolve(spec string) (Profile, error) {
	name, version, pinned := strings.Cut(spec, "@")
	if name == "" {
		return Profile{}, fmt.Errorf("profile %q: no name (want NAME, NAME/EXPERIMENT or NAME/EXPERIMENT@VERSION)", spec)
	}
	if pinned && version == "" {
		return Profile{}, fmt.Errorf("profile %q: empty version after @", spec)
	}
	var p Profile
	if strings.Contains(name, "/") {
		var ok bool
		if p, ok = f.Profiles[name]; !ok {
			return Profile{}, fmt.Errorf("no profile %q%s", name, f.known(name))
		}
	} else {
		var err error
		if p, err = f.defaultOf(name); err != nil {
			return Profile{}, err
		}
	}
	if pinned && version != p.Version() {
		return Profile{}, fmt.Errorf("profile %s is at version %s, not %s: its definition has changed since (use %s, or restore the old definition)",
			p.Name, p.Version(), version, p.ID())
	}
	return p, nil
}

// defaultOf picks NAME's default experiment.
func (f *File) defaultOf(name string) (Profile, error) {
	var all []Profile
	for _, full := range f.ProfileNames() {
		p := f.Profiles[full]
		if p.Base() == name {
			all = append(all, p)
		}
	}
	switch {
	case len(all) == 0:
		return Profile{}, fmt.Errorf("no profile %q%s", name, f.known(name))
	case len(all) == 1:
		return all[0], nil
	}
	for _, p := range all {
		if p.Default {
			return p, nil
		}
	}
	if p, ok := f.Profiles[name+"/default"]; ok {
		return p, nil
	}
	names := make([]string, len(all))
	for i, p := range all {
		names[i] = p.Name
	}
	return Profile{}, fmt.Errorf("profile %q has %d experiments (%s) and none is the default: name one, or mark one default = true",
		name, len(all), strings.Join(names, ", "))
}

// known lists the profiles for an error message, with the closest first.
func (f *File) known(name string) string {
	return didYouMean(name, f.ProfileNames(), true)
}
