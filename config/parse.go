package config

import (
	"errors"
	"fmt"
	"iter"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/coplayhq/coplay/agent/models"
	"github.com/coplayhq/coplay/agent/rules"
	"github.com/coplayhq/coplay/game"
)

// Error is one problem in a configuration file, at a line and key when known:
// "config.toml:12: key profiles."looker/fast".temprature: unknown key (did you mean temperature?)".
type Error struct {
	File string
	Line int    // 0 when unknown
	Key  string // the full key, TOML-quoted; "" for a syntax error with no key
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString("key " + e.Key + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is every problem found in one file, in file order.
type Errors []*Error

func (es Errors) Error() string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = e.Error()
	}
	return strings.Join(s, "\n")
}

// Parse reads and checks a configuration file's contents; name is used in messages.
// It returns every problem at once (an Errors), each with its line and key: syntax,
// unknown keys (with the closest known one), wrong types, bad values, secrets.
func Parse(name string, data []byte) (*File, error) {
	var raw map[string]any
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, Errors{{File: name, Line: pe.Position.Line, Msg: "not valid TOML: " + pe.Message}}
		}
		return nil, Errors{{File: name, Msg: "not valid TOML: " + err.Error()}}
	}
	c := &checker{name: name, lines: keyLines(string(data)), order: map[string]int{}}
	for i, k := range md.Keys() {
		c.order[k.String()] = i
	}
	f := &File{Path: name, Prices: map[string]Price{}, Profiles: map[string]Profile{}}
	c.top(raw, f)
	if len(c.errs) > 0 {
		sort.SliceStable(c.errs, func(i, j int) bool { return c.errs[i].Line < c.errs[j].Line })
		return nil, c.errs
	}
	f.addBuiltins()
	return f, nil
}

// checker walks the decoded file and collects problems.
type checker struct {
	name  string
	lines map[string]int
	order map[string]int
	errs  Errors
}

// errf records a problem at key.
func (c *checker) errf(key toml.Key, format string, args ...any) {
	c.errs = append(c.errs, &Error{File: c.name, Line: c.lineOf(key), Key: key.String(), Msg: fmt.Sprintf(format, args...)})
}

// lineOf is the line of key, or of the nearest enclosing table that has one.
func (c *checker) lineOf(key toml.Key) int {
	for k := key; len(k) > 0; k = k[:len(k)-1] {
		if n, ok := c.lines[k.String()]; ok {
			return n
		}
	}
	return 0
}

// sortedKeys returns m's keys in file order (so errors come in reading order).
func (c *checker) sortedKeys(parent toml.Key, m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return c.order[child(parent, keys[i]).String()] < c.order[child(parent, keys[j]).String()]
	})
	return keys
}

func child(parent toml.Key, k string) toml.Key {
	return append(append(toml.Key{}, parent...), k)
}

// The keys of each table, for unknown-key messages.
var (
	topKeys      = []string{"defaults", "prices", "profiles", "league"}
	leagueKeys   = []string{"rules", "approve"}
	defaultsKeys = []string{"game", "brain", "model", "preset", "base_url", "api_key_env", "approve", "notify", "speed", "no_rate_limit", "allow_plain_http", "profile", "rules",
		"max_run_tokens", "max_run_cost", "tool_budget", "pin", "call_timeout"}
	priceKeys = []string{"prompt", "completion", "cached_prompt"}
	// requiredPriceKeys are the price keys every [prices."MODEL"] must have.
	requiredPriceKeys = []string{"prompt", "completion"}
	profileKeys       = []string{"default", "brain", "model", "preset", "base_url", "api_key_env", "temperature",
		"max_tokens", "max_iterations", "history_steps", "prompt", "tools", "hide_tools", "rules", "approve",
		"max_run_tokens", "max_run_cost", "tool_budget", "pin", "call_timeout"}
	// flagAliases are keys named after a flag rather than the key, too far from it to
	// be found as a typo.
	flagAliases = map[string]struct{ key, why string }{
		"max_tokens": {"max_run_tokens", " the run's token cap, --max-tokens; max_tokens is a profile's longest answer per model call"},
		"max_cost":   {"max_run_cost", ""},
		"max_spend":  {"max_run_cost", ""},
	}
	// secretKeys are keys people reach for to put a secret in the file.
	secretKeys = []string{"api_key", "key", "token", "secret", "password", "openai_api_key", "apikey"}
)

func (c *checker) unknown(key toml.Key, known []string) {
	last := key[len(key)-1]
	if isSecretKey(last) {
		c.errf(key, "secrets never go in the config file: put the key in an environment variable and name the variable with api_key_env")
		return
	}
	msg := "unknown key"
	if a, ok := flagAliases[strings.ReplaceAll(last, "-", "_")]; ok && slices.Contains(known, a.key) {
		msg += " (did you mean " + a.key + "?" + a.why + ")"
	} else if s := suggest(last, known); s != "" {
		msg += " (did you mean " + s + "?)"
	} else {
		msg += " (known: " + strings.Join(known, ", ") + ")"
	}
	c.errf(key, "%s", msg)
}

func isSecretKey(k string) bool {
	k = strings.ToLower(k)
	for _, s := range secretKeys {
		if k == s || strings.HasSuffix(k, "_"+s) && k != "api_key_env" {
			return true
		}
	}
	return false
}

func (c *checker) top(raw map[string]any, f *File) {
	for _, k := range c.sortedKeys(nil, raw) {
		key := toml.Key{k}
		v := raw[k]
		switch k {
		case "defaults":
			if t, ok := c.table(key, v); ok {
				c.defaults(key, t, &f.Defaults)
			}
		case "prices":
			if t, ok := c.table(key, v); ok {
				for _, model := range c.sortedKeys(key, t) {
					mk := child(key, model)
					if pt, ok := c.table(mk, t[model]); ok {
						f.Prices[model] = c.price(mk, pt)
					}
				}
			}
		case "profiles":
			if t, ok := c.table(key, v); ok {
				c.profiles(key, t, f)
			}
		case "league":
			if t, ok := c.table(key, v); ok {
				c.league(key, t, &f.League)
			}
		default:
			c.unknown(key, topKeys)
		}
	}
}

func (c *checker) defaults(key toml.Key, t map[string]any, d *Defaults) {
	both := shared{player{&d.Brain, &d.Model, &d.Preset, &d.BaseURL, &d.APIKeyEnv}, &d.Rules, &d.Spending}
	for k, v := range c.ownKeys(key, t, both) {
		switch fk := child(key, k); k {
		case "game":
			if s, ok := c.str(fk, v); ok {
				if _, err := game.LookupDriver(s); err != nil {
					var names []string
					for _, d := range game.Drivers() {
						names = append(names, d.Name)
					}
					c.errf(fk, "want one of %s, not %q", strings.Join(names, ", "), s)
				}
				d.Game = s
			}
		case "approve":
			d.Approve = c.approve(fk, v)
		case "notify":
			if s, ok := c.str(fk, v); ok {
				if !slices.Contains(NotifyModes, s) {
					c.errf(fk, "want one of %s, not %q", strings.Join(NotifyModes, ", "), s)
				}
				d.Notify = s
			}
		case "speed":
			if n, ok := c.num(fk, v); ok {
				if n <= 0 {
					c.errf(fk, "want a speed factor above 0, not %g", n)
				}
				d.Speed = n
			}
		case "no_rate_limit":
			if b, ok := c.boolean(fk, v); ok {
				d.NoRateLimit = &b
			}
		case "allow_plain_http":
			d.AllowPlainHTTP, _ = c.boolean(fk, v)
		case "profile":
			if s, ok := c.str(fk, v); ok {
				if s == "" {
					c.errf(fk, "empty profile name")
				}
				d.Profile = s
			}
		default:
			c.unknown(fk, defaultsKeys)
		}
	}
	c.presetOrBaseURL(key, d.Preset, d.BaseURL)
}

// player points at the fields [defaults] and profiles share: what plays, and where.
type player struct{ brain, model, preset, baseURL, keyEnv *string }

// shared points at every field [defaults] and profiles share: the player, the rules and
// what a run may spend.
type shared struct {
	player
	rules    *[]string
	spending *Spending
}

// shared reads one of the keys [defaults] and profiles share into s and checks it; it
// says whether k is one of them.
func (c *checker) shared(k string, fk toml.Key, v any, s shared) bool {
	switch k {
	case "brain", "model", "preset", "base_url", "api_key_env":
		c.player(k, fk, v, s.player)
	case "rules":
		*s.rules = c.ruleLines(fk, v)
	case "max_run_tokens", "max_run_cost", "tool_budget", "pin", "call_timeout":
		c.spending(k, fk, v, s.spending)
	default:
		return false
	}
	return true
}

// ownKeys reads the keys of t that [defaults] and profiles share into both and yields
// the others, in file order.
func (c *checker) ownKeys(key toml.Key, t map[string]any, both shared) iter.Seq2[string, any] {
	return func(yield func(string, any) bool) {
		for _, k := range c.sortedKeys(key, t) {
			if !c.shared(k, child(key, k), t[k], both) && !yield(k, t[k]) {
				return
			}
		}
	}
}

// presetOrBaseURL refuses a table that sets both preset and base_url.
func (c *checker) presetOrBaseURL(key toml.Key, preset, baseURL string) {
	if preset != "" && baseURL != "" {
		c.errf(child(key, "base_url"), "set preset or base_url, not both")
	}
}

// player reads one of the keys of a player (brain, model, preset, base_url,
// api_key_env) into p and checks it.
func (c *checker) player(k string, fk toml.Key, v any, p player) {
	switch k {
	case "brain":
		*p.brain, _ = c.str(fk, v)
		c.brain(fk, *p.brain)
	case "model":
		*p.model, _ = c.str(fk, v)
	case "preset":
		*p.preset, _ = c.str(fk, v)
		c.preset(fk, *p.preset)
	case "base_url":
		*p.baseURL, _ = c.str(fk, v)
		c.url(fk, *p.baseURL)
	case "api_key_env":
		*p.keyEnv, _ = c.str(fk, v)
		c.envName(fk, *p.keyEnv)
	}
}

func (c *checker) price(key toml.Key, t map[string]any) Price {
	var p Price
	for _, k := range c.sortedKeys(key, t) {
		fk := child(key, k)
		var dst *float64
		switch k {
		case "prompt":
			dst = &p.Prompt
		case "completion":
			dst = &p.Completion
		case "cached_prompt":
			dst = &p.CachedPrompt
		default:
			c.unknown(fk, priceKeys)
			continue
		}
		if n, ok := c.num(fk, t[k]); ok {
			switch {
			case n < 0:
				c.errf(fk, "want dollars per million tokens, 0 or more, not %g", n)
			case n == 0 && k == "cached_prompt":
				// 0 would read as "not known" everywhere the price is used.
				c.errf(fk, "want dollars per million cached prompt tokens above 0 (leave cached_prompt out when the provider does not say)")
			}
			*dst = n
		}
	}
	for _, k := range requiredPriceKeys {
		if _, present := t[k]; !present {
			c.errf(key, "missing %s (dollars per million %s tokens)", k, k)
		}
	}
	return p
}

// profileName is NAME/EXPERIMENT, each a word of letters, digits, '-', '_' or '.'.
var profileName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$`)

func (c *checker) profiles(key toml.Key, t map[string]any, f *File) {
	defaults := map[string]string{} // NAME → the experiment marked default
	for _, name := range c.sortedKeys(key, t) {
		pk := child(key, name)
		pt, ok := c.table(pk, t[name])
		if !ok {
			continue
		}
		if !profileName.MatchString(name) {
			// [profiles.looker.fast] reads as a table "looker" holding "fast": say how to write it.
			hint := ""
			if _, nested := pt["brain"]; !nested && len(pt) > 0 && !strings.Contains(name, "/") {
				hint = fmt.Sprintf(` (write [profiles."%s/EXPERIMENT"], quoted, with a slash)`, name)
			}
			c.errf(pk, "a profile is named NAME/EXPERIMENT with letters, digits, '.', '-' or '_'%s", hint)
			continue
		}
		p := c.profile(pk, pt)
		p.Name = name
		if p.Default {
			if other, dup := defaults[p.Base()]; dup {
				c.errf(child(pk, "default"), "%s/%s is already the default of %s: mark only one", p.Base(), other, p.Base())
			}
			defaults[p.Base()] = p.Experiment()
		}
		f.Profiles[name] = p
	}
}

func (c *checker) profile(key toml.Key, t map[string]any) Profile {
	var p Profile
	both := shared{player{&p.Brain, &p.Model, &p.Preset, &p.BaseURL, &p.APIKeyEnv}, &p.Rules, &p.Spending}
	for k, v := range c.ownKeys(key, t, both) {
		switch fk := child(key, k); k {
		case "default":
			if b, ok := c.boolean(fk, v); ok {
				p.Default = b
			}
		case "temperature":
			if n, ok := c.num(fk, v); ok {
				if n < 0 || n > 2 {
					c.errf(fk, "want a temperature from 0 to 2, not %g", n)
				}
				p.Temperature = &n
			}
		case "max_tokens":
			p.MaxTokens = c.positive(fk, v)
		case "max_iterations":
			p.MaxIterations = c.positive(fk, v)
		case "history_steps":
			p.HistorySteps = c.positive(fk, v)
		case "prompt":
			p.Prompt, _ = c.str(fk, v)
		case "tools":
			p.Tools = c.strs(fk, v)
		case "hide_tools":
			p.HideTools = c.strs(fk, v)
		case "approve":
			p.Approve = c.approve(fk, v)
		default:
			c.unknown(fk, profileKeys)
		}
	}
	c.presetOrBaseURL(key, p.Preset, p.BaseURL)
	if len(p.Tools) > 0 && len(p.HideTools) > 0 {
		c.errf(child(key, "hide_tools"), "set tools (the allowed ones) or hide_tools, not both")
	}
	if p.Brain == "autopilot" && (p.Model != "" || p.Preset != "" || p.BaseURL != "") {
		c.errf(child(key, "brain"), "brain autopilot uses no model: drop model, preset and base_url, or set brain = \"model\"")
	}
	for _, name := range p.Pin {
		switch {
		case slices.Contains(p.HideTools, name):
			c.errf(child(key, "pin"), "%s is pinned and also in hide_tools: a hidden tool is never sent", name)
		case len(p.Tools) > 0 && !slices.Contains(p.Tools, name):
			c.errf(child(key, "pin"), "%s is pinned but not in tools, the only tools the profile may use", name)
		}
	}
	return p
}

// spending reads one of the keys [defaults] and profiles share about spending
// (max_run_tokens, max_run_cost, tool_budget, pin, call_timeout) into sp and checks it.
func (c *checker) spending(k string, fk toml.Key, v any, sp *Spending) {
	switch k {
	case "max_run_tokens":
		sp.MaxRunTokens = c.positive(fk, v)
	case "max_run_cost":
		if n, ok := c.num(fk, v); ok {
			if n <= 0 {
				c.errf(fk, "want dollars above 0 (the run stops when it has spent this much), not %g", n)
				return
			}
			sp.MaxRunCost = n
		}
	case "tool_budget":
		sp.ToolBudget = c.positive(fk, v)
	case "pin":
		sp.Pin = c.toolNames(fk, v)
	case "call_timeout":
		if n, ok := c.num(fk, v); ok {
			if n <= 0 || n > 86400 {
				c.errf(fk, "want seconds above 0 and at most 86400 (a game call that runs longer is cancelled), not %g", n)
				return
			}
			sp.CallTimeout = n
		}
	}
}

// toolNames reads a list of tool names: none empty, none twice. Whether the game has
// them is checked at start, when the game is known.
func (c *checker) toolNames(key toml.Key, v any) []string {
	names := c.strs(key, v)
	seen := map[string]int{}
	for i, n := range names {
		switch {
		case strings.TrimSpace(n) == "":
			c.errf(key, "item %d: empty tool name", i+1)
		case seen[n] > 0:
			c.errf(key, "item %d: %s is already item %d", i+1, n, seen[n])
		default:
			seen[n] = i + 1
		}
	}
	return names
}

// table checks that v is a table.
func (c *checker) table(key toml.Key, v any) (map[string]any, bool) {
	t, ok := v.(map[string]any)
	if !ok {
		c.wrongType(key, "a table", v)
	}
	return t, ok
}

// str checks that v is a string, and not a secret.
// boolean reads true or false.
func (c *checker) boolean(key toml.Key, v any) (bool, bool) {
	b, ok := v.(bool)
	if !ok {
		c.wrongType(key, "true or false", v)
	}
	return b, ok
}

func (c *checker) str(key toml.Key, v any) (string, bool) {
	s, ok := v.(string)
	if !ok {
		c.wrongType(key, "a string", v)
		return "", false
	}
	if LooksLikeSecret(s) {
		c.errf(key, "this looks like an API key: secrets never go in the config file; put it in an environment variable and name the variable with api_key_env")
		return "", false
	}
	return s, true
}

func (c *checker) strs(key toml.Key, v any) []string {
	list, ok := v.([]any)
	if !ok {
		c.wrongType(key, "a list of strings", v)
		return nil
	}
	out := make([]string, 0, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			c.errf(key, "item %d: want a string, got %s", i+1, typeName(e))
			continue
		}
		if LooksLikeSecret(s) {
			c.errf(key, "item %d looks like an API key: secrets never go in the config file", i+1)
			continue
		}
		out = append(out, s)
	}
	return out
}

// num checks that v is a number (integer or float).
func (c *checker) num(key toml.Key, v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		if math.IsNaN(n) || math.IsInf(n, 0) {
			c.errf(key, "want a finite number, not %v", n)
			return 0, false
		}
		return n, true
	}
	c.wrongType(key, "a number", v)
	return 0, false
}

// positive checks that v is a whole number above 0.
func (c *checker) positive(key toml.Key, v any) int {
	n, ok := v.(int64)
	if !ok {
		c.wrongType(key, "a whole number", v)
		return 0
	}
	if n <= 0 || n > 1_000_000_000 {
		c.errf(key, "want a whole number from 1 to 1000000000, not %d", n)
		return 0
	}
	return int(n)
}

func (c *checker) wrongType(key toml.Key, want string, v any) {
	hint := ""
	if s, ok := v.(string); ok {
		// "512" for 512, "true" for true: the value is right, the quotes are not.
		_, numErr := strconv.ParseFloat(s, 64)
		_, boolErr := strconv.ParseBool(s)
		if (want == "true or false" && boolErr == nil) || (want != "true or false" && want != "a string" && numErr == nil) {
			hint = fmt.Sprintf(" (write %s without quotes)", s)
		}
	}
	c.errf(key, "want %s, got %s%s", want, typeName(v), hint)
}

func typeName(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("the string %q", v)
	case int64:
		return fmt.Sprintf("the integer %d", v)
	case float64:
		return fmt.Sprintf("the number %g", v)
	case bool:
		return fmt.Sprintf("%t", v)
	case []any, []map[string]any:
		return "a list"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("a %T", v)
}

func (c *checker) brain(key toml.Key, s string) {
	switch {
	case s == "autopilot" || s == "model" || s == "":
	case strings.HasPrefix(s, "script:"):
		if strings.TrimPrefix(s, "script:") == "" {
			c.errf(key, "script: needs a cassette file, e.g. script:demo.cassette.json")
		}
	default:
		msg := fmt.Sprintf("want autopilot, model or script:FILE, not %q", s)
		if sg := suggest(s, []string{"autopilot", "model"}); sg != "" {
			msg += " (did you mean " + sg + "?)"
		}
		c.errf(key, "%s", msg)
	}
}

func (c *checker) preset(key toml.Key, s string) {
	if s == "" {
		return
	}
	if _, ok := models.PresetNamed(s); ok {
		return
	}
	names := models.PresetNames()
	msg := fmt.Sprintf("unknown preset %q", s)
	if sg := suggest(s, names); sg != "" {
		msg += " (did you mean " + sg + "?)"
	} else {
		msg += " (known: " + strings.Join(names, ", ") + ")"
	}
	c.errf(key, "%s", msg)
}

func (c *checker) url(key toml.Key, s string) {
	if s != "" && !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
		c.errf(key, "want an http:// or https:// URL, not %q", s)
	}
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (c *checker) envName(key toml.Key, s string) {
	if s != "" && !envName.MatchString(s) {
		c.errf(key, "want the name of an environment variable (like OPENAI_API_KEY), not %q", s)
	}
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

// ruleLines reads a list of approval rules and checks that each one reads (its tools
// are checked when the game is known, at start).
func (c *checker) ruleLines(key toml.Key, v any) []string {
	lines := c.strs(key, v)
	for i, r := range lines {
		if strings.TrimSpace(r) == "" {
			c.errf(key, "rule %d is empty", i+1)
			continue
		}
		if _, err := rules.Parse(r); err != nil {
			c.errf(key, "rule %d (%q): %v", i+1, r, err)
		}
	}
	return lines
}

// approve reads an approval policy: ask or all.
func (c *checker) approve(key toml.Key, v any) string {
	s, ok := c.str(key, v)
	if ok && s != "ask" && s != "all" {
		c.errf(key, "want ask or all, not %q", s)
	}
	return s
}

// league reads the [league] table.
func (c *checker) league(key toml.Key, t map[string]any, l *League) {
	for _, k := range c.sortedKeys(key, t) {
		switch fk := child(key, k); k {
		case "rules":
			l.Rules = c.ruleLines(fk, t[k])
		case "approve":
			l.Approve = c.approve(fk, t[k])
		default:
			c.unknown(fk, leagueKeys)
		}
	}
}
