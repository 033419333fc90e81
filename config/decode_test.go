package config

import (
	"strings"
	"testing"
)

// toml matches a key to a field ignoring case; coplay's keys are exact, so a key in
// another case is unknown, and the exact key beside it is the one read.
func TestKeysAreExact(t *testing.T) {
	got := strings.Join(parseErrs(t, "[defaults]\nModel = \"a\"\n"), "\n")
	if want := `config.toml:2: key defaults.Model: unknown key (did you mean model?)`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	for range 20 { // toml visits a table's keys in map order: the exact one must win every time
		got = strings.Join(parseErrs(t, "[profiles.\"a/b\"]\ntemperature = 3\nTemperature = 1\n"), "\n")
		want := "config.toml:2: key profiles.\"a/b\".temperature: want a temperature from 0 to 2, not 3\n" +
			"config.toml:3: key profiles.\"a/b\".Temperature: unknown key (did you mean temperature?)"
		if got != want {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	}
	got = strings.Join(parseErrs(t, "[Defaults]\nmodel = \"a\"\n"), "\n")
	if want := `config.toml:1: key Defaults: unknown key (did you mean defaults?)`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// An unknown table is one problem, not one per key inside it; so is a dotted key.
func TestUnknownTableIsOneProblem(t *testing.T) {
	got := parseErrs(t, "[defaults.sub]\nk = 1\nl = {m = 2}\n[defaults]\nmodel = \"m\"\nextra.deep.er = 1\n[sandbox]\nx = 1\n")
	want := []string{
		`config.toml:1: key defaults.sub: unknown key (known: game, brain, model, preset, base_url, api_key_env, approve, notify, speed, no_rate_limit, allow_plain_http, profile, rules, max_run_tokens, max_run_cost, tool_budget, pin, call_timeout)`,
		`config.toml:6: key defaults.extra: unknown key (known: game, brain, model, preset, base_url, api_key_env, approve, notify, speed, no_rate_limit, allow_plain_http, profile, rules, max_run_tokens, max_run_cost, tool_budget, pin, call_timeout)`,
		`config.toml:7: key sandbox: unknown key (known: defaults, prices, profiles, league)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Problems on one line (an inline table) come in file order, the table's own after its
// keys'.
func TestInlineTableProblemsInOrder(t *testing.T) {
	got := parseErrs(t, "[prices]\nm = {x = 1, prompt = -1}\n")
	want := []string{
		`config.toml:2: key prices.m.x: unknown key (known: prompt, completion, cached_prompt)`,
		`config.toml:2: key prices.m.prompt: want dollars per million tokens, 0 or more, not -1`,
		`config.toml:2: key prices.m: missing completion (dollars per million completion tokens)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestDidYouMean(t *testing.T) {
	keys := []string{"tools", "hide_tools", "tool_budget", "completion", "cached_prompt", "base_url", "model"}
	for s, want := range map[string]string{
		"hidden_tools": " (did you mean hide_tools?)", // fewest edits beat containing tools
		"tool_budgte":  " (did you mean tool_budget?)",
		"complete":     " (did you mean completion?)", // another ending
		"cached":       " (did you mean cached_prompt?)",
		"url":          " (did you mean base_url?)",
		"MODEL":        " (did you mean model?)",
		"colour":       "",
	} {
		if got := didYouMean(s, keys, false); got != want {
			t.Errorf("didYouMean(%q) = %q, want %q", s, got, want)
		}
	}
	if got := didYouMean("zzz", []string{"a", "b"}, true); got != " (known: a, b)" {
		t.Errorf("with list: %q", got)
	}
}
