package config

import (
	// The game drivers, so that defaults.game is checked against them as in coplay.
	"errors"
	_ "github.com/coplayhq/coplay/game/mcp"
	_ "github.com/coplayhq/coplay/game/openapi"
	_ "github.com/coplayhq/coplay/game/spacetraders"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func mustParse(t *testing.T, doc string) *File {
	t.Helper()
	f, err := Parse("config.toml", []byte(doc))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return f
}

// parseErrs parses doc and returns its problems as strings, failing if there are none.
func parseErrs(t *testing.T, doc string) []string {
	t.Helper()
	_, err := Parse("config.toml", []byte(doc))
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("Parse: want Errors, got %v", err)
	}
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Error()
	}
	return out
}

func TestExampleParses(t *testing.T) {
	f := mustParse(t, Example)
	p, err := f.Resolve("looker")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "looker/fast" || p.Model != "gpt-4o-mini" || p.Temperature == nil || *p.Temperature != 0.2 || p.MaxIterations != 20 {
		t.Errorf("looker resolved to %+v", p)
	}
	if len(p.Rules) != 3 || !strings.HasPrefix(p.Rules[0], "deny jettison_cargo") {
		t.Errorf("rules = %q", p.Rules)
	}
	if pr, ok := f.PriceOf("gpt-4o-mini"); !ok || pr.Prompt != 0.15 || pr.Completion != 0.60 || pr.CachedPrompt != 0.075 {
		t.Errorf("price = %+v, %v", pr, ok)
	}
	if f.Defaults.Approve != "ask" {
		t.Errorf("defaults.approve = %q", f.Defaults.Approve)
	}
}

func TestRulesAreReadAndChecked(t *testing.T) {
	doc := `[defaults]
rules = ["allow orbit_ship", "alow dock_ship"]

[profiles."p/x"]
rules = ["deny jettison_cargo: never", "allow navigate_ship if fuel =< 3"]
`
	got := parseErrs(t, doc)
	want := []string{
		`config.toml:2: key defaults.rules: rule 2 ("alow dock_ship"): rule: column 1: expected allow, ask or deny, got "alow" (did you mean allow?)`,
		`config.toml:5: key profiles."p/x".rules: rule 2 ("allow navigate_ship if fuel =< 3"): rule: column 29: expected one of < <= > >= = !=, got "=<" (write <= or >=)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCheckErrorsHaveLineAndKey(t *testing.T) {
	doc := `[defaults]
game = "universe"

[profiles."looker/fast"]
model = "gpt-4o-mini"
temprature = 0.7
max_tokens = "512"
preset = "opnai"

[prices."gpt-4o-mini"]
prompt = 0.15
complete = 0.6
`
	got := parseErrs(t, doc)
	want := []string{
		`config.toml:6: key profiles."looker/fast".temprature: unknown key (did you mean temperature?)`,
		`config.toml:7: key profiles."looker/fast".max_tokens: want a whole number, got the string "512" (write 512 without quotes)`,
		`config.toml:8: key profiles."looker/fast".preset: unknown preset "opnai" (did you mean openai?)`,
		`config.toml:10: key prices.gpt-4o-mini: missing completion (dollars per million completion tokens)`,
		`config.toml:12: key prices.gpt-4o-mini.complete: unknown key (did you mean completion?)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCheckBadValues(t *testing.T) {
	cases := []struct{ doc, want string }{
		{"[defaults]\napprove = \"yes\"\n", `config.toml:2: key defaults.approve: want ask or all, not "yes"`},
		{"[defaults]\ngame = \"chess\"\n", `config.toml:2: key defaults.game: want one of mcp, openapi, spacetraders, universe, not "chess"`},
		{"[defaults]\nspeed = -1\n", `config.toml:2: key defaults.speed: want a speed factor above 0`},
		{"[defaults]\nno_rate_limit = \"true\"\n", `config.toml:2: key defaults.no_rate_limit: want true or false, got the string "true"`},
		{"[profiles.\"a/b\"]\nbrain = \"autopliot\"\n", `config.toml:2: key profiles."a/b".brain: want autopilot, model or script:FILE, not "autopliot" (did you mean autopilot?)`},
		{"[profiles.\"a/b\"]\nbrain = \"script:\"\n", `script: needs a cassette file`},
		{"[profiles.\"a/b\"]\ntemperature = 3\n", `config.toml:2: key profiles."a/b".temperature: want a temperature from 0 to 2, not 3`},
		{"[profiles.\"a/b\"]\nmax_iterations = 0\n", `want a whole number from 1`},
		{"[profiles.\"a/b\"]\nmax_tokens = \"many\"\n", `want a whole number, got the string "many"` + "\n"},
		{"[profiles.\"a/b\"]\ntools = \"observe_game\"\n", `want a list of strings, got the string`},
		{"[profiles.\"a/b\"]\ntools = [\"x\"]\nhide_tools = [\"y\"]\n", `config.toml:3: key profiles."a/b".hide_tools: set tools (the allowed ones) or hide_tools, not both`},
		{"[profiles.\"a/b\"]\nbase_url = \"localhost:8000\"\n", `want an http:// or https:// URL`},
		{"[profiles.\"a/b\"]\npreset = \"ollama\"\nbase_url = \"http://x/v1\"\n", `set preset or base_url, not both`},
		{"[profiles.\"a/b\"]\napi_key_env = \"my key\"\n", `want the name of an environment variable`},
		{"[profiles.\"a/b\"]\nrules = [\"\"]\n", `rule 1 is empty`},
		{"[profiles.\"a/b\"]\ndefault = true\n[profiles.\"a/c\"]\ndefault = true\n", `config.toml:4: key profiles."a/c".default: a/b is already the default of a: mark only one`},
		{"[profiles.looker]\nbrain = \"model\"\n", `config.toml:1: key profiles.looker: a profile is named NAME/EXPERIMENT`},
		{"[profiles.looker.fast]\nbrain = \"model\"\n", `write [profiles."looker/EXPERIMENT"], quoted, with a slash`},
		{"[profiles.\"a/b\"]\nbrain = \"autopilot\"\nmodel = \"x\"\n", `brain autopilot uses no model`},
		{"colour = 1\n", `config.toml:1: key colour: unknown key (known: defaults, prices, profiles, league)`},
		{"[defaults]\nmodel = \"a\"\nmodel = \"b\"\n", `config.toml:3: not valid TOML`},
		{"[defaults\n", `config.toml:2: not valid TOML: expected '.' or ']'`},
	}
	for _, c := range cases {
		got := strings.Join(parseErrs(t, c.doc), "\n") + "\n"
		if !strings.Contains(got, c.want) {
			t.Errorf("doc:\n%s\ngot:  %s\nwant: %s", c.doc, got, c.want)
		}
	}
}

func TestSecretsAreRefused(t *testing.T) {
	key := "sk-" + strings.Repeat("a1B2", 10)
	cases := []struct{ doc, want string }{
		{"[profiles.\"a/b\"]\napi_key = \"" + key + "\"\n", `config.toml:2: key profiles."a/b".api_key: secrets never go in the config file`},
		{"[profiles.\"a/b\"]\napi_key_env = \"" + key + "\"\n", `config.toml:2: key profiles."a/b".api_key_env: this looks like an API key`},
		{"[defaults]\nmodel = \"" + key + "\"\n", `this looks like an API key`},
		{"[defaults]\ntoken = \"abc\"\n", `key defaults.token: secrets never go in the config file`},
	}
	for _, c := range cases {
		got := strings.Join(parseErrs(t, c.doc), "\n")
		if !strings.Contains(got, c.want) {
			t.Errorf("got %s, want %s", got, c.want)
		}
		if strings.Contains(got, key) {
			t.Errorf("the message repeats the key: %s", got)
		}
	}
}

func TestEveryProblemAtOnce(t *testing.T) {
	got := parseErrs(t, "[defaults]\napprove = \"x\"\ngmae = \"universe\"\n[profiles.\"a/b\"]\ntemperature = \"hot\"\n")
	if len(got) != 3 {
		t.Fatalf("want 3 problems, got %q", got)
	}
	if !strings.Contains(got[1], "config.toml:3: key defaults.gmae: unknown key (did you mean game?)") {
		t.Errorf("got %q", got[1])
	}
}

func TestKeyLinesQuotedDottedAndMultiline(t *testing.T) {
	doc := `[profiles."x/y"]
prompt = """
temprature = 1
"""
"max_tokens" = 10
sub.deep = 1
`
	got := strings.Join(parseErrs(t, doc), "\n")
	if !strings.Contains(got, `config.toml:6: key profiles."x/y".sub: want`) && !strings.Contains(got, `config.toml:6: key profiles."x/y".sub: unknown key`) {
		t.Errorf("got %s", got)
	}
	if strings.Contains(got, "temprature") {
		t.Errorf("a line inside a multi-line string was read as a key: %s", got)
	}
}

func TestResolve(t *testing.T) {
	f := mustParse(t, `
[profiles."one/only"]
brain = "autopilot"
[profiles."two/a"]
model = "m"
[profiles."two/default"]
model = "n"
[profiles."three/a"]
model = "m"
[profiles."three/b"]
model = "n"
default = true
[profiles."four/a"]
model = "m"
[profiles."four/b"]
model = "n"
`)
	for spec, want := range map[string]string{
		"one": "one/only", "two": "two/default", "three": "three/b", "three/a": "three/a",
		"autopilot": "autopilot/default",
	} {
		p, err := f.Resolve(spec)
		if err != nil || p.Name != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", spec, p.Name, err, want)
		}
	}
	for spec, want := range map[string]string{
		"four":       `profile "four" has 2 experiments (four/a, four/b) and none is the default`,
		"fuor/a":     `no profile "fuor/a" (did you mean four/a?)`,
		"nothing":    `no profile "nothing" (known: autopilot/bold, autopilot/careful, autopilot/default, four/a`,
		"one@":       `empty version`,
		"@abc":       `no name`,
		"one/only@0": `profile one/only is at version`,
	} {
		_, err := f.Resolve(spec)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Resolve(%q) = %v; want %q", spec, err, want)
		}
	}
}

func TestVersionPinning(t *testing.T) {
	v1 := mustParse(t, "[profiles.\"looker/fast\"]\nmodel = \"m\"\ntemperature = 0.2\ntools = [\"a\", \"b\"]\n")
	p, err := v1.Resolve("looker/fast")
	if err != nil {
		t.Fatal(err)
	}
	ver := p.Version()
	if len(ver) != 8 {
		t.Fatalf("version %q: want 8 hex digits", ver)
	}
	if _, err := v1.Resolve("looker@" + ver); err != nil {
		t.Errorf("pinned to its own version: %v", err)
	}
	// The same definition written differently (key order, tool order, comments,
	// marked default) is the same version.
	same := mustParse(t, "# a comment\n[profiles.\"looker/fast\"]\ndefault = true\ntools = [\"b\", \"a\"]\ntemperature = 0.2\nmodel = \"m\"\n")
	if _, err := same.Resolve("looker/fast@" + ver); err != nil {
		t.Errorf("an equivalent definition: %v", err)
	}
	// A changed definition is refused, naming the current version.
	changed := mustParse(t, "[profiles.\"looker/fast\"]\nmodel = \"m\"\ntemperature = 0.3\ntools = [\"a\", \"b\"]\n")
	_, err = changed.Resolve("looker/fast@" + ver)
	cur, _ := changed.Resolve("looker/fast")
	if err == nil || !strings.Contains(err.Error(), "is at version "+cur.Version()+", not "+ver) {
		t.Errorf("changed definition: %v", err)
	}
	if cur.Version() == ver {
		t.Error("a changed temperature kept the version")
	}
	// Temperature 0 is a setting, not "unset".
	zero := mustParse(t, "[profiles.\"looker/fast\"]\nmodel = \"m\"\ntemperature = 0\ntools = [\"a\", \"b\"]\n")
	unset := mustParse(t, "[profiles.\"looker/fast\"]\nmodel = \"m\"\ntools = [\"a\", \"b\"]\n")
	pz, _ := zero.Resolve("looker/fast")
	pu, _ := unset.Resolve("looker/fast")
	if pz.Version() == pu.Version() {
		t.Error("temperature 0 and no temperature have the same version")
	}
}

func TestBuiltinAutopilot(t *testing.T) {
	p, err := Empty().Resolve("autopilot")
	if err != nil || p.BrainKind() != "autopilot" {
		t.Fatalf("built-in autopilot: %+v, %v", p, err)
	}
	// A file's own autopilot profiles replace the built-in one.
	f := mustParse(t, "[profiles.\"autopilot/slow\"]\nbrain = \"autopilot\"\nmax_iterations = 5\n")
	if p, err := f.Resolve("autopilot"); err != nil || p.Name != "autopilot/slow" {
		t.Errorf("Resolve(autopilot) = %q, %v", p.Name, err)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "none.toml")
	if f, err := Load(missing, false); err != nil || len(f.Profiles) != 3 {
		t.Errorf("missing default file: %v, %v", f, err)
	}
	if _, err := Load(missing, true); err == nil || !strings.Contains(err.Error(), "none.toml") {
		t.Errorf("missing --config file: %v", err)
	}
	path := filepath.Join(dir, "c.toml")
	if err := os.WriteFile(path, []byte("[defaults]\nspeed = \"fast\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path, false); err == nil || !strings.HasPrefix(err.Error(), path+":2: key defaults.speed:") {
		t.Errorf("bad file: %v", err)
	}
}

func TestDefaultPath(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/x/conf")
	if p, err := DefaultPath(); err != nil || p != "/x/conf/coplay/config.toml" {
		t.Errorf("DefaultPath = %q, %v", p, err)
	}
}

func TestPriceCost(t *testing.T) {
	p := Price{Prompt: 0.15, Completion: 0.60}
	cached := Price{Prompt: 0.15, Completion: 0.60, CachedPrompt: 0.075}
	for _, tc := range []struct {
		name                       string
		p                          Price
		prompt, cached, completion int64
		want                       float64
		upper                      bool
	}{
		{"nothing cached", p, 1_000_000, 0, 500_000, 0.45, false},
		{"cached at the cached price", cached, 1_000_000, 800_000, 500_000, 0.2*0.15 + 0.8*0.075 + 0.30, false},
		{"no cached price: an upper bound at the prompt price", p, 1_000_000, 800_000, 500_000, 0.45, true},
		{"more cached than prompt counts as all of it", cached, 1_000_000, 2_000_000, 0, 0.075, false},
		{"a free prompt is exact", Price{Completion: 1}, 1_000_000, 800_000, 1_000_000, 1, false},
	} {
		got, upper := tc.p.Cost(tc.prompt, tc.cached, tc.completion)
		if got < tc.want-1e-9 || got > tc.want+1e-9 || upper != tc.upper {
			t.Errorf("%s: Cost = %g, upper %v; want %g, upper %v", tc.name, got, upper, tc.want, tc.upper)
		}
	}
}

func TestCachedPromptPrice(t *testing.T) {
	f := mustParse(t, "[prices.m]\nprompt = 1\ncompletion = 2\ncached_prompt = 0.1\n[prices.n]\nprompt = 1\ncompletion = 2\n")
	if p, _ := f.PriceOf("m"); p.CachedPrompt != 0.1 {
		t.Errorf("price m = %+v, want cached_prompt 0.1", p)
	}
	if p, _ := f.PriceOf("n"); p.CachedPrompt != 0 {
		t.Errorf("price n = %+v, want no cached price", p)
	}
	for _, c := range []struct{ doc, want string }{
		{"[prices.m]\nprompt = 1\ncompletion = 2\ncached_prompt = -0.1\n", `config.toml:4: key prices.m.cached_prompt: want dollars per million tokens, 0 or more, not -0.1`},
		{"[prices.m]\nprompt = 1\ncompletion = 2\ncached_prompt = 0\n", `config.toml:4: key prices.m.cached_prompt: want dollars per million cached prompt tokens above 0 (leave cached_prompt out when the provider does not say)`},
		{"[prices.m]\nprompt = 1\ncompletion = 2\ncached_prompt = \"0.1\"\n", `config.toml:4: key prices.m.cached_prompt: want a number, got the string "0.1" (write 0.1 without quotes)`},
		{"[prices.m]\nprompt = 1\ncompletion = 2\ncached = 0.1\n", `config.toml:4: key prices.m.cached: unknown key (did you mean cached_prompt?)`},
		{"[prices.m]\nprompt = 1\ncached_prompt = 0.1\n", `config.toml:1: key prices.m: missing completion`},
	} {
		got := strings.Join(parseErrs(t, c.doc), "\n")
		if !strings.Contains(got, c.want) {
			t.Errorf("doc:\n%s\ngot:  %s\nwant: %s", c.doc, got, c.want)
		}
	}
}

func TestSpendingKeys(t *testing.T) {
	f := mustParse(t, `[defaults]
max_run_tokens = 20000
max_run_cost = 1.5
tool_budget = 12000
pin = ["navigate_ship", "observe_game"]
call_timeout = 90

[profiles."p/x"]
max_run_tokens = 500
max_run_cost = 2
tool_budget = 9000
pin = ["dock_ship"]
tools = ["dock_ship", "orbit_ship"]
max_tokens = 256
call_timeout = 2.5
`)
	d := f.Defaults
	if d.MaxRunTokens != 20000 || d.MaxRunCost != 1.5 || d.ToolBudget != 12000 || strings.Join(d.Pin, ",") != "navigate_ship,observe_game" || d.CallTimeout != 90 {
		t.Errorf("defaults = %+v", d.Spending)
	}
	p, err := f.Resolve("p/x")
	if err != nil {
		t.Fatal(err)
	}
	if p.MaxRunTokens != 500 || p.MaxRunCost != 2 || p.ToolBudget != 9000 || strings.Join(p.Pin, ",") != "dock_ship" || p.MaxTokens != 256 || p.CallTimeout != 2.5 {
		t.Errorf("profile = %+v: want its own spending and max_tokens kept apart", p)
	}
}

func TestSpendingKeysChecked(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{"[defaults]\nmax_run_tokens = 0\n", `config.toml:2: key defaults.max_run_tokens: want a whole number from 1 to 1000000000, not 0`},
		{"[defaults]\nmax_run_tokens = \"20000\"\n", `config.toml:2: key defaults.max_run_tokens: want a whole number, got the string "20000" (write 20000 without quotes)`},
		{"[profiles.\"a/b\"]\nmax_run_tokens = 1.5\n", `config.toml:2: key profiles."a/b".max_run_tokens: want a whole number, got the number 1.5`},
		{"[defaults]\nmax_run_cost = 0\n", `config.toml:2: key defaults.max_run_cost: want dollars above 0 (the run stops when it has spent this much), not 0`},
		{"[profiles.\"a/b\"]\nmax_run_cost = -1\n", `config.toml:2: key profiles."a/b".max_run_cost: want dollars above 0`},
		{"[defaults]\nmax_run_cost = \"2\"\n", `config.toml:2: key defaults.max_run_cost: want a number, got the string "2" (write 2 without quotes)`},
		{"[defaults]\nmax_run_cost = inf\n", `config.toml:2: key defaults.max_run_cost: want a finite number`},
		{"[defaults]\ntool_budget = -5\n", `config.toml:2: key defaults.tool_budget: want a whole number from 1 to 1000000000, not -5`},
		{"[profiles.\"a/b\"]\ntool_budget = true\n", `config.toml:2: key profiles."a/b".tool_budget: want a whole number, got true`},
		{"[defaults]\npin = \"navigate_ship\"\n", `config.toml:2: key defaults.pin: want a list of strings, got the string "navigate_ship"`},
		{"[defaults]\npin = [\"a\", \" \"]\n", `config.toml:2: key defaults.pin: item 2: empty tool name`},
		{"[profiles.\"a/b\"]\npin = [\"a\", \"b\", \"a\"]\n", `config.toml:2: key profiles."a/b".pin: item 3: a is already item 1`},
		{"[profiles.\"a/b\"]\npin = [\"a\", 3]\n", `config.toml:2: key profiles."a/b".pin: item 2: want a string, got the integer 3`},
		{"[profiles.\"a/b\"]\nhide_tools = [\"jettison_cargo\"]\npin = [\"jettison_cargo\"]\n", `config.toml:3: key profiles."a/b".pin: jettison_cargo is pinned and also in hide_tools: a hidden tool is never sent`},
		{"[profiles.\"a/b\"]\ntools = [\"dock_ship\"]\npin = [\"orbit_ship\"]\n", `config.toml:3: key profiles."a/b".pin: orbit_ship is pinned but not in tools, the only tools the profile may use`},
		{"[defaults]\nmax_tokens = 20000\n", `config.toml:2: key defaults.max_tokens: unknown key (did you mean max_run_tokens? the run's token cap, --max-tokens; max_tokens is a profile's longest answer per model call)`},
		{"[defaults]\nmax-cost = 2\n", `config.toml:2: key defaults.max-cost: unknown key (did you mean max_run_cost?)`},
		{"[profiles.\"a/b\"]\nmax_cost = 2\n", `config.toml:2: key profiles."a/b".max_cost: unknown key (did you mean max_run_cost?)`},
		{"[profiles.\"a/b\"]\ntool_budgte = 2\n", `config.toml:2: key profiles."a/b".tool_budgte: unknown key (did you mean tool_budget?)`},
		{"[defaults]\npins = [\"a\"]\n", `config.toml:2: key defaults.pins: unknown key (did you mean pin?)`},
		{"[defaults]\ncall_timeout = 0\n", `config.toml:2: key defaults.call_timeout: want seconds above 0 and at most 86400 (a game call that runs longer is cancelled), not 0`},
		{"[profiles.\"a/b\"]\ncall_timeout = \"60s\"\n", `config.toml:2: key profiles."a/b".call_timeout: want a number, got the string "60s"`},
	} {
		got := strings.Join(parseErrs(t, c.doc), "\n") + "\n"
		if !strings.Contains(got, c.want) {
			t.Errorf("doc:\n%s\ngot:  %s\nwant: %s", c.doc, got, c.want)
		}
	}
}

// The spending keys change a profile's version only when set: a profile that does not
// use them keeps the version it had before they existed.
func TestSpendingKeysAndVersion(t *testing.T) {
	version := func(doc string) string {
		t.Helper()
		p, err := mustParse(t, "[profiles.\"p/x\"]\nmodel = \"m\"\n"+doc).Resolve("p/x")
		if err != nil {
			t.Fatal(err)
		}
		return p.Version()
	}
	// The first 8 hex digits of the sha256 of {"model":"m"}, the profile's canonical
	// encoding before these keys existed.
	base := version("")
	if base != "548f58d1" {
		t.Errorf("version of a profile without the new keys = %s, want 548f58d1 (unchanged)", base)
	}
	seen := map[string]string{base: "no key"}
	for _, doc := range []string{"max_run_tokens = 1000\n", "max_run_tokens = 2000\n", "max_run_cost = 1\n", "tool_budget = 12000\n", "pin = [\"a\"]\n", "pin = [\"a\", \"b\"]\n", "call_timeout = 30\n"} {
		v := version(doc)
		if other, dup := seen[v]; dup {
			t.Errorf("%q has version %s, the same as %s", doc, v, other)
		}
		seen[v] = doc
	}
	if version("pin = [\"b\", \"a\"]\n") != version("pin = [\"a\", \"b\"]\n") {
		t.Error("the order of pinned tools changed the version")
	}
}

func FuzzParse(f *testing.F) {
	f.Add(Example)
	f.Add("[profiles.\"a/b\"]\ntemperature = 1\n")
	f.Fuzz(func(t *testing.T, doc string) {
		_, _ = Parse("fuzz.toml", []byte(doc)) // must not panic
	})
}

// The configuration example in README.md is a file that parses, with every key it shows.
func TestReadmeExampleParses(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "```toml\n")
	doc, _, closed := strings.Cut(rest, "```")
	if !ok || !closed {
		t.Fatal("README.md has no ```toml block")
	}
	f, err := Parse("README.md", []byte(doc))
	if err != nil {
		t.Fatalf("README's example: %v", err)
	}
	if d := f.Defaults; d.MaxRunTokens == 0 || d.MaxRunCost == 0 || d.ToolBudget == 0 || len(d.Pin) == 0 || d.CallTimeout == 0 {
		t.Errorf("README's [defaults] does not show every spending key: %+v", d.Spending)
	}
	if p, ok := f.PriceOf("gpt-4o-mini"); !ok || p.CachedPrompt == 0 {
		t.Errorf("README's price does not show cached_prompt: %+v", p)
	}
}

// The built-in profiles are the autopilot in three temperaments, with no file; a file's
// own autopilot profile replaces all three; temperament is checked.
func TestBuiltinTemperaments(t *testing.T) {
	t.Parallel()
	if got := Empty().ProfileNames(); !slices.Equal(got, []string{"autopilot/bold", "autopilot/careful", "autopilot/default"}) {
		t.Fatalf("built-ins %q", got)
	}
	if p, err := Empty().Resolve("autopilot/careful"); err != nil || p.Temperament != "careful" || p.BrainKind() != "autopilot" {
		t.Fatalf("autopilot/careful: %+v, %v", p, err)
	}
	if p, _ := Empty().Resolve("autopilot"); p.Name != "autopilot/default" || p.Version() != "0497cccd" {
		t.Fatalf("the default autopilot changed: %s@%s", p.Name, p.Version())
	}
	f := mustParse(t, "[profiles.\"autopilot/mine\"]\nbrain = \"autopilot\"\ntemperament = \"bold\"\n")
	if got := f.ProfileNames(); !slices.Equal(got, []string{"autopilot/mine"}) {
		t.Fatalf("a file's autopilot profile leaves %q", got)
	}
	for doc, want := range map[string]string{
		"[profiles.\"a/b\"]\nbrain = \"autopilot\"\ntemperament = \"boldd\"\n": `want bold or careful, not "boldd" (did you mean bold?)`,
		"[profiles.\"a/b\"]\nmodel = \"x\"\ntemperament = \"bold\"\n":          `a temperament is the autopilot's`,
	} {
		if _, err := Parse("config.toml", []byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", doc, err, want)
		}
	}
}
