package config

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/coplayhq/coplay/agent/models"
	"github.com/coplayhq/coplay/agent/rules"
	"github.com/coplayhq/coplay/game"
)

// The checks of each table's values, turning what toml decoded (schema.go) into the
// File's types.

// defaults checks [defaults].
func (c *checker) defaults(d *defaultsDoc) Defaults {
	var out Defaults
	out.Brain, out.Model, out.Preset, out.BaseURL, out.APIKeyEnv = c.player(&d.playerDoc)
	if s, ok := c.str(d.Game); ok {
		if _, err := game.LookupDriver(s); err != nil {
			var names []string
			for _, d := range game.Drivers() {
				names = append(names, d.Name)
			}
			c.errf(d.Game.key, "want one of %s, not %q", strings.Join(names, ", "), s)
		}
		out.Game = s
	}
	out.Approve = c.approve(d.Approve)
	if s, ok := c.str(d.Notify); ok {
		if !slices.Contains(NotifyModes, s) {
			c.errf(d.Notify.key, "want one of %s, not %q", strings.Join(NotifyModes, ", "), s)
		}
		out.Notify = s
	}
	if n, ok := c.num(d.Speed); ok {
		if n <= 0 {
			c.errf(d.Speed.key, "want a speed factor above 0, not %g", n)
		}
		out.Speed = n
	}
	if b, ok := c.boolean(d.NoRateLimit); ok {
		out.NoRateLimit = &b
	}
	out.AllowPlainHTTP, _ = c.boolean(d.AllowPlainHTTP)
	if s, ok := c.str(d.Profile); ok {
		if s == "" {
			c.errf(d.Profile.key, "empty profile name")
		}
		out.Profile = s
	}
	out.Rules = c.ruleLines(d.Rules)
	out.Spending = c.spending(&d.spendingDoc)
	return out
}

// profile checks one [profiles."NAME/EXPERIMENT"] (its name is checked by profiles).
func (c *checker) profile(d *profileDoc) Profile {
	var p Profile
	p.Default, _ = c.boolean(d.Default)
	p.Brain, p.Model, p.Preset, p.BaseURL, p.APIKeyEnv = c.player(&d.playerDoc)
	if n, ok := c.num(d.Temperature); ok {
		if n < 0 || n > 2 {
			c.errf(d.Temperature.key, "want a temperature from 0 to 2, not %g", n)
		}
		p.Temperature = &n
	}
	p.MaxTokens = c.positive(d.MaxTokens)
	p.MaxIterations = c.positive(d.MaxIterations)
	p.HistorySteps = c.positive(d.HistorySteps)
	p.Prompt, _ = c.str(d.Prompt)
	p.Tools = c.strs(d.Tools)
	p.HideTools = c.strs(d.HideTools)
	p.Rules = c.ruleLines(d.Rules)
	p.Approve = c.approve(d.Approve)
	p.Spending = c.spending(&d.spendingDoc)
	if len(p.Tools) > 0 && len(p.HideTools) > 0 {
		c.errAfter(d.HideTools, "set tools (the allowed ones) or hide_tools, not both")
	}
	if t, ok := c.str(d.Temperament); ok {
		switch {
		case !slices.Contains(Temperaments, t):
			c.errf(d.Temperament.key, "want %s, not %q%s", strings.Join(Temperaments, " or "), t, didYouMean(t, Temperaments, false))
		case p.BrainKind() != "autopilot":
			c.errf(d.Temperament.key, "a temperament is the autopilot's: set brain = \"autopilot\", or drop temperament")
		}
		p.Temperament = t
	}
	if p.Brain == "autopilot" && (p.Model != "" || p.Preset != "" || p.BaseURL != "") {
		c.errAfter(d.Brain, "brain autopilot uses no model: drop model, preset and base_url, or set brain = \"model\"")
	}
	for _, name := range p.Pin {
		switch {
		case slices.Contains(p.HideTools, name):
			c.errAfter(d.Pin, "%s is pinned and also in hide_tools: a hidden tool is never sent", name)
		case len(p.Tools) > 0 && !slices.Contains(p.Tools, name):
			c.errAfter(d.Pin, "%s is pinned but not in tools, the only tools the profile may use", name)
		}
	}
	return p
}

// player checks what plays and where, the keys [defaults] and profiles share.
func (c *checker) player(d *playerDoc) (brain, model, preset, baseURL, keyEnv string) {
	brain, _ = c.str(d.Brain)
	c.brain(d.Brain.key, brain)
	model, _ = c.str(d.Model)
	preset, _ = c.str(d.Preset)
	c.preset(d.Preset.key, preset)
	baseURL, _ = c.str(d.BaseURL)
	if baseURL != "" && !strings.HasPrefix(baseURL, "http://") && !strings.HasPrefix(baseURL, "https://") {
		c.errf(d.BaseURL.key, "want an http:// or https:// URL, not %q", baseURL)
	}
	keyEnv, _ = c.str(d.APIKeyEnv)
	if keyEnv != "" && !envName.MatchString(keyEnv) {
		c.errf(d.APIKeyEnv.key, "want the name of an environment variable (like OPENAI_API_KEY), not %q", keyEnv)
	}
	if preset != "" && baseURL != "" {
		c.errAfter(d.BaseURL, "set preset or base_url, not both")
	}
	return brain, model, preset, baseURL, keyEnv
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// spending checks what a run may spend, the keys [defaults] and profiles share.
func (c *checker) spending(d *spendingDoc) Spending {
	var sp Spending
	sp.MaxRunTokens = c.positive(d.MaxRunTokens)
	if n, ok := c.num(d.MaxRunCost); ok {
		if n <= 0 {
			c.errf(d.MaxRunCost.key, "want dollars above 0 (the run stops when it has spent this much), not %g", n)
		} else {
			sp.MaxRunCost = n
		}
	}
	sp.ToolBudget = c.positive(d.ToolBudget)
	sp.Pin = c.toolNames(d.Pin)
	if n, ok := c.num(d.CallTimeout); ok {
		if n <= 0 || n > 86400 {
			c.errf(d.CallTimeout.key, "want seconds above 0 and at most 86400 (a game call that runs longer is cancelled), not %g", n)
		} else {
			sp.CallTimeout = n
		}
	}
	return sp
}

// price checks one [prices."MODEL"] at key.
func (c *checker) price(key toml.Key, d *priceDoc) Price {
	var p Price
	for _, f := range []struct {
		v        value
		dst      *float64
		required bool
	}{{d.Prompt, &p.Prompt, true}, {d.Completion, &p.Completion, true}, {d.CachedPrompt, &p.CachedPrompt, false}} {
		if f.required && !f.v.set {
			c.errAfter(value{key: key}, "missing %s (dollars per million %s tokens)", f.v.name(), f.v.name())
		}
		n, ok := c.num(f.v)
		switch {
		case !ok:
			continue
		case n < 0:
			c.errf(f.v.key, "want dollars per million tokens, 0 or more, not %g", n)
		case n == 0 && f.dst == &p.CachedPrompt:
			// 0 would read as "not known" everywhere the price is used.
			c.errf(f.v.key, "want dollars per million cached prompt tokens above 0 (leave cached_prompt out when the provider does not say)")
		}
		*f.dst = n
	}
	return p
}

// league checks [league].
func (c *checker) league(d *leagueDoc) League {
	return League{Rules: c.ruleLines(d.Rules), Approve: c.approve(d.Approve)}
}

// toolNames reads a list of tool names: none empty, none twice. Whether the game has
// them is checked at start, when the game is known.
func (c *checker) toolNames(v value) []string {
	names := c.strs(v)
	seen := map[string]int{}
	for i, n := range names {
		switch {
		case strings.TrimSpace(n) == "":
			c.errf(v.key, "item %d: empty tool name", i+1)
		case seen[n] > 0:
			c.errf(v.key, "item %d: %s is already item %d", i+1, n, seen[n])
		default:
			seen[n] = i + 1
		}
	}
	return names
}

// ruleLines reads a list of approval rules and checks that each one reads (its tools
// are checked when the game is known, at start).
func (c *checker) ruleLines(v value) []string {
	lines := c.strs(v)
	for i, r := range lines {
		if strings.TrimSpace(r) == "" {
			c.errf(v.key, "rule %d is empty", i+1)
			continue
		}
		if _, err := rules.Parse(r); err != nil {
			c.errf(v.key, "rule %d (%q): %v", i+1, r, err)
		}
	}
	return lines
}

// approve reads an approval policy: ask or all.
func (c *checker) approve(v value) string {
	s, ok := c.str(v)
	if ok && s != "ask" && s != "all" {
		c.errf(v.key, "want ask or all, not %q", s)
	}
	return s
}

// brain checks a brain's name: autopilot, model or script:FILE ("" = unset).
func (c *checker) brain(key toml.Key, s string) {
	switch {
	case s == "autopilot" || s == "model" || s == "":
	case strings.HasPrefix(s, "script:"):
		if strings.TrimPrefix(s, "script:") == "" {
			c.errf(key, "script: needs a cassette file, e.g. script:demo.cassette.json")
		}
	default:
		c.errf(key, "want autopilot, model or script:FILE, not %q%s", s, didYouMean(s, []string{"autopilot", "model"}, false))
	}
}

// preset checks a preset's name ("" = unset).
func (c *checker) preset(key toml.Key, s string) {
	if s == "" {
		return
	}
	if _, ok := models.PresetNamed(s); ok {
		return
	}
	c.errf(key, "unknown preset %q%s", s, didYouMean(s, models.PresetNames(), true))
}

// LooksLikeSecret reports whether s looks like an API key or token rather than a
// name: a known key prefix followed by a long run of key characters, or a JWT.
func LooksLikeSecret(s string) bool {
	for _, p := range []string{"sk-", "sk_", "pk-", "rk-", "xai-", "gsk_", "hf_", "ghp_", "github_pat_", "AIza"} {
		if strings.HasPrefix(s, p) && len(s) >= len(p)+16 && !strings.ContainsAny(s, " \n\t") {
			return true
		}
	}
	return strings.HasPrefix(s, "eyJ") && strings.Count(s, ".") == 2 && len(s) > 40
}

// profileName is NAME/EXPERIMENT, each a word of letters, digits, '-', '_' or '.'.
var profileName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$`)

// checkProfileName refuses a profile named otherwise than NAME/EXPERIMENT; raw is its
// table as written, for the hint.
func (c *checker) checkProfileName(key toml.Key, name string, raw map[string]any) bool {
	if profileName.MatchString(name) {
		return true
	}
	// [profiles.looker.fast] reads as a table "looker" holding "fast": say how to write it.
	hint := ""
	if _, nested := raw["brain"]; !nested && len(raw) > 0 && !strings.Contains(name, "/") {
		hint = fmt.Sprintf(` (write [profiles."%s/EXPERIMENT"], quoted, with a slash)`, name)
	}
	c.errf(key, "a profile is named NAME/EXPERIMENT with letters, digits, '.', '-' or '_'%s", hint)
	return false
}
