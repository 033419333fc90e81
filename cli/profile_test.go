package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/openai"
	"github.com/coplayhq/coplay/config"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/spacetraders"
	"github.com/coplayhq/coplay/notes"
)

// parseWithConfig parses args the way play and run do, with doc as the config file. The
// tests that call it are serial: the options find the file, and the keys, in the
// process's environment (t.Setenv).
func parseWithConfig(t *testing.T, doc string, args ...string) (options, error) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	if doc != "" {
		if err := os.MkdirAll(filepath.Join(dir, "coplay"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "coplay", "config.toml"), []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	var o options
	o.register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return o, applyConfig(&o, fs)
}

// flagValue is the value of a flag of o's flag set (a game driver's, like --speed).
func flagValue(o options, name string) string {
	if f := o.drivers.Lookup(name); f != nil {
		return f.Value.String()
	}
	return "(no flag --" + name + ")"
}

const precedenceDoc = `
[defaults]
model = "file-model"
approve = "all"
speed = 50
no_rate_limit = true

[profiles."looker/fast"]
model = "profile-model"
base_url = "http://127.0.0.1:1/v1"
api_key_env = "COPLAY_TEST_KEY"
max_iterations = 7
history_steps = 4
temperature = 0.5
`

func TestFlagsBeatTheFileWhichBeatsBuiltins(t *testing.T) {
	// Nothing given anywhere: the built-in defaults.
	o, err := parseWithConfig(t, "")
	if err != nil {
		t.Fatal(err)
	}
	if o.approve != "ask" || o.model != "" || flagValue(o, "speed") != "0" || flagValue(o, "no-rate-limit") != "false" || o.game != "universe" || o.profileID() != "" {
		t.Errorf("built-in defaults changed: %+v", o)
	}
	// The file's defaults fill what no flag gave.
	o, err = parseWithConfig(t, precedenceDoc)
	if err != nil {
		t.Fatal(err)
	}
	if o.model != "file-model" || o.approve != "all" || flagValue(o, "speed") != "50" || flagValue(o, "no-rate-limit") != "true" {
		t.Errorf("file defaults not applied: model %q approve %q speed %v no-rate-limit %v", o.model, o.approve, flagValue(o, "speed"), flagValue(o, "no-rate-limit"))
	}
	// Flags beat the file, even when they say the built-in value.
	o, err = parseWithConfig(t, precedenceDoc, "--model", "flag-model", "--approve", "ask", "--speed", "3", "--no-rate-limit=false")
	if err != nil {
		t.Fatal(err)
	}
	if o.model != "flag-model" || o.approve != "ask" || flagValue(o, "speed") != "3" || flagValue(o, "no-rate-limit") != "false" {
		t.Errorf("flags did not win: model %q approve %q speed %v no-rate-limit %v", o.model, o.approve, flagValue(o, "speed"), flagValue(o, "no-rate-limit"))
	}
	// A profile beats the defaults; flags beat the profile.
	o, err = parseWithConfig(t, precedenceDoc, "--profile", "looker")
	if err != nil {
		t.Fatal(err)
	}
	if o.model != "profile-model" || o.maxIter != 7 || o.brain != "model" || o.historySteps() != 4 || o.approve != "all" {
		t.Errorf("profile not applied: model %q max-iterations %d brain %q history %d approve %q", o.model, o.maxIter, o.brain, o.historySteps(), o.approve)
	}
	if !strings.HasPrefix(o.profileID(), "looker/fast@") {
		t.Errorf("profileID = %q", o.profileID())
	}
	o, err = parseWithConfig(t, precedenceDoc, "--profile", "looker/fast", "--max-iterations", "2", "--model", "m2", "--brain", "autopilot")
	if err != nil {
		t.Fatal(err)
	}
	if o.model != "m2" || o.maxIter != 2 || o.brain != "autopilot" {
		t.Errorf("flags did not beat the profile: model %q max-iterations %d brain %q", o.model, o.maxIter, o.brain)
	}
}

func TestConfigFlagAndErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.toml")
	if _, err := parseWithConfig(t, "", "--config", missing); err == nil || !strings.Contains(err.Error(), "nope.toml") {
		t.Errorf("missing --config file: %v", err)
	}
	other := filepath.Join(t.TempDir(), "other.toml")
	if err := os.WriteFile(other, []byte("[defaults]\nmodel = \"from-other\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err := parseWithConfig(t, precedenceDoc, "--config", other)
	if err != nil || o.model != "from-other" {
		t.Errorf("--config did not replace the default file: model %q, %v", o.model, err)
	}
	if _, err := parseWithConfig(t, "[defaults]\napprove = 1\n"); err == nil || !strings.Contains(err.Error(), "config.toml:2: key defaults.approve: want a string") {
		t.Errorf("a bad default file: %v", err)
	}
	if _, err := parseWithConfig(t, precedenceDoc, "--profile", "looker/slow"); err == nil || !strings.Contains(err.Error(), `no profile "looker/slow"`) {
		t.Errorf("unknown profile: %v", err)
	}
	o, _ = parseWithConfig(t, precedenceDoc, "--profile", "looker")
	ver := o.pr.prof.Version()
	if _, err := parseWithConfig(t, precedenceDoc, "--profile", "looker/fast@"+ver); err != nil {
		t.Errorf("pinned to the current version: %v", err)
	}
	changed := strings.Replace(precedenceDoc, "temperature = 0.5", "temperature = 0.6", 1)
	if _, err := parseWithConfig(t, changed, "--profile", "looker/fast@"+ver); err == nil || !strings.Contains(err.Error(), "its definition has changed") {
		t.Errorf("pinned to an old version: %v", err)
	}
}

func TestModelConfigFromProfile(t *testing.T) {
	t.Setenv("COPLAY_TEST_KEY", "")
	o, err := parseWithConfig(t, precedenceDoc+"\n[prices.profile-model]\nprompt = 1\ncompletion = 2\ncached_prompt = 0.25\n", "--profile", "looker")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.modelConfig(); err == nil || !strings.Contains(err.Error(), "profile looker/fast names the environment variable COPLAY_TEST_KEY") {
		t.Errorf("unset key variable: %v", err)
	}
	secret := "sk-test-" + strings.Repeat("x", 24)
	t.Setenv("COPLAY_TEST_KEY", secret)
	cfg, err := o.modelConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.APIKey != secret || cfg.BaseURL != "http://127.0.0.1:1/v1" || cfg.Model != "profile-model" ||
		cfg.Temperature == nil || *cfg.Temperature != 0.5 || cfg.PriceIn != 1 || cfg.PriceOut != 2 || cfg.PriceCached != 0.25 {
		t.Errorf("config = %v", cfg)
	}
	found := false
	for _, s := range secrets() {
		found = found || s == secret
	}
	if !found {
		t.Error("the key named by api_key_env is not among the secrets scrubbed from output")
	}
}

func TestMaxTokensTransport(t *testing.T) {
	t.Parallel()
	var got map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewDecoder(r.Body).Decode(&got)
	}))
	defer srv.Close()
	c := &http.Client{Transport: openai.EditRequests(http.DefaultTransport, withMaxTokens(77))}
	resp, err := c.Post(srv.URL+"/v1/chat/completions", "application/json", bytes.NewReader([]byte(`{"model":"m","messages":[]}`)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got["max_tokens"] != float64(77) || got["model"] != "m" {
		t.Errorf("request body = %v", got)
	}
}

func TestProfileToolsAndPrompt(t *testing.T) {
	t.Parallel()
	st := spacetraders.New(spacetraders.Config{BaseURL: "http://127.0.0.1:1/v2", Offline: true})
	o := options{pr: profileOptions{hide: []string{"jettison_cargo", "set_plan"}, prompt: "Prefer contracts."}}
	g, err := o.wrapGame(st)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := g.(game.Simulator); !ok {
		t.Error("the wrapped game lost its dry runs")
	}
	for _, tool := range g.Tools() {
		if tool.Name == "jettison_cargo" {
			t.Error("a hidden tool is still in the catalogue")
		}
	}
	if len(g.Tools()) != len(st.Tools())-1 {
		t.Errorf("%d tools, want %d", len(g.Tools()), len(st.Tools())-1)
	}
	if !strings.HasSuffix(g.Info().Rules, "# From the player's profile\n\nPrefer contracts.") {
		t.Errorf("rules end %q", tail(g.Info().Rules, 80))
	}
	if _, err := g.Call(t.Context(), "jettison_cargo", json.RawMessage(`{}`)); err == nil {
		t.Error("a hidden tool ran")
	}
	seen := &toolsBrain{}
	req := agent.Request{Tools: append(g.Tools(), game.Tool{Name: "set_plan"}, game.Tool{Name: "update_notes"})}
	if _, err := o.wrapBrain(seen).Next(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(seen.tools, "set_plan") || !slices.Contains(seen.tools, "update_notes") {
		t.Errorf("the brain was shown %v", seen.tools)
	}
	o = options{pr: profileOptions{tools: []string{"observe_game", "navigate_shp"}}}
	if _, err := o.wrapGame(st); err == nil || !strings.Contains(err.Error(), `no tool "navigate_shp"`) || !strings.Contains(err.Error(), "did you mean navigate_ship?") {
		t.Errorf("unknown tool: %v", err)
	}
}

func TestSessionRecordsProfile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := []string{"XDG_CONFIG_HOME=" + dir}
	data := filepath.Join(dir, "coplay.db")
	coplayRun(t, env, "", "run", "--profile", "autopilot", "--approve", "all", "--data", data,
		"--no-rate-limit", "--speed", "400", "--steps", "2")
	book, err := notes.Open(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	list, err := book.List()
	book.Close()
	want := "autopilot/default@" + must(config.Empty().Resolve("autopilot")).Version()
	if err != nil || len(list) != 1 || list[0].Profile != want {
		t.Fatalf("sessions = %+v, %v; want profile %s", list, err, want)
	}
	var out, errOut bytes.Buffer
	if code := runEnv(t, env, []string{"sessions", "--data", data}, &out, &errOut); code != 0 || !strings.Contains(out.String(), want) {
		t.Errorf("coplay sessions does not show the profile:\n%s", out.String())
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestConfigCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := []string{"XDG_CONFIG_HOME=" + dir}
	var out, errOut bytes.Buffer
	if code := runEnv(t, env, []string{"config", "init"}, &out, &errOut); code != 0 {
		t.Fatalf("init: exit %d: %s", code, errOut.String())
	}
	path := filepath.Join(dir, "coplay", "config.toml")
	if b, err := os.ReadFile(path); err != nil || string(b) != config.Example {
		t.Fatalf("init wrote %q, %v", b, err)
	}
	os.WriteFile(path, []byte("# mine\n"), 0o600)
	errOut.Reset()
	if code := runEnv(t, env, []string{"config", "init"}, &out, &errOut); code == 0 || !strings.Contains(errOut.String(), "already exists") {
		t.Errorf("init over a file: exit %d, %s", code, errOut.String())
	}
	if b, _ := os.ReadFile(path); string(b) != "# mine\n" {
		t.Error("init overwrote an existing file without --force")
	}
	if code := runEnv(t, env, []string{"config", "init", "--force"}, &out, &errOut); code != 0 {
		t.Errorf("init --force: exit %d", code)
	}
	out.Reset()
	if code := runEnv(t, env, []string{"config", "check"}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "config.toml: ok") {
		t.Errorf("check of the example: exit %d, %s %s", code, out.String(), errOut.String())
	}
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("[profiles.\"looker/fast\"]\nmodel = \"m\"\ntemprature = 0.7\n"), 0o600)
	errOut.Reset()
	code := runEnv(t, env, []string{"config", "check", bad}, &out, &errOut)
	want := bad + `:3: key profiles."looker/fast".temprature: unknown key (did you mean temperature?)`
	if code != 1 || !strings.Contains(errOut.String(), want) {
		t.Errorf("check of a bad file: exit %d\n%s\nwant %s", code, errOut.String(), want)
	}
	out.Reset()
	if code := runEnv(t, env, []string{"config", "profiles"}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "looker/fast") || !strings.Contains(out.String(), "autopilot/default") {
		t.Errorf("profiles: exit %d\n%s", code, out.String())
	}
}

// toolsBrain records the tools it is shown.
type toolsBrain struct{ tools []string }

func (b *toolsBrain) Name() string { return "tools" }

func (b *toolsBrain) Next(_ context.Context, req agent.Request) (agent.Reply, error) {
	for _, t := range req.Tools {
		b.tools = append(b.tools, t.Name)
	}
	return agent.Reply{}, nil
}

// TestConfigAndProfileRulesApply: the file's [defaults] rules and the profile's apply
// to a headless run (a deny decides by rule, naming it) and are not written into the
// session; a profile rule naming a tool the game lacks stops the start with the
// closest names.
func TestConfigAndProfileRulesApply(t *testing.T) {
	t.Parallel()
	doc := `[defaults]
rules = ["deny orbit_ship: stay docked"]

[profiles."p/x"]
brain = "autopilot"
rules = ["deny navigate_ship: not today", "deny dock_ship: not today"]
`
	dir := t.TempDir()
	env := []string{"XDG_CONFIG_HOME=" + dir}
	if err := os.MkdirAll(filepath.Join(dir, "coplay"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "coplay", "config.toml"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "coplay.db")
	out, _ := coplayRun(t, env, "", "run", "--profile", "p/x", "--approve", "all", "--data", data,
		"--no-rate-limit", "--speed", "400", "--steps", "3")
	byRule := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev agent.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			continue
		}
		if ev.Type == agent.EventToolStart && (ev.Call.Tool == "orbit_ship" || ev.Call.Tool == "navigate_ship" || ev.Call.Tool == "dock_ship") {
			t.Errorf("a denied tool ran: %s", line)
		}
		if ev.Type == agent.EventDecision && ev.Decision.By == "rule" {
			if ev.Decision.Decision != agent.Veto {
				t.Errorf("decision %+v", ev.Decision)
			}
			byRule[ev.Decision.Rule]++
		}
		if ev.Type == agent.EventRules {
			t.Errorf("the fixed rules were reported as the session's: %s", line)
		}
	}
	if len(byRule) == 0 {
		t.Fatalf("no call was decided by a rule in 3 steps of the autopilot:\n%s", tail(out, 2000))
	}
	book, err := notes.Open(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer book.Close()
	list, _ := book.List()
	s, err := book.Session(list[0].Name)
	if err != nil {
		t.Fatal(err)
	}
	if lines, err := s.RuleLines(); err != nil || len(lines) != 0 {
		t.Errorf("session rules = %q, %v; want none (config and profile rules stay outside)", lines, err)
	}

	// A profile rule for a tool the game does not have: refused at start.
	doc = strings.Replace(doc, "deny dock_ship", "deny dok_ship", 1)
	if err := os.WriteFile(filepath.Join(dir, "coplay", "config.toml"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, errOut bytes.Buffer
	if code := runEnv(t, env, []string{"run", "--profile", "p/x", "--data", filepath.Join(dir, "other.db"), "--steps", "1"}, &stdout, &errOut); code == 0 ||
		!strings.Contains(errOut.String(), `no tool "dok_ship"; did you mean dock_ship`) || !strings.Contains(errOut.String(), "profile p/x") {
		t.Errorf("exit %d: %s", code, errOut.String())
	}
}

// TestUnknownProfileIsExit2: an unknown profile is the person's mistake, exit 2, on
// every path that takes one (the flag, a seat, eval's profiles and seats, the config
// file's default), and eval with no profile is too; each names what was wrong.
func TestUnknownProfileIsExit2(t *testing.T) {
	t.Parallel()
	cfg, withDefault := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(withDefault, "coplay"), 0o700)
	os.WriteFile(filepath.Join(withDefault, "coplay", "config.toml"), []byte("[defaults]\nprofile = \"nope\"\n"), 0o600)
	data := filepath.Join(t.TempDir(), "coplay.db")
	for _, c := range []struct {
		cfg  string
		args []string
		want string
	}{
		{cfg, []string{"--profile", "nope"}, `--profile: no profile "nope"`},
		{cfg, []string{"run", "--headless", "--profile", "nope"}, `--profile: no profile "nope"`},
		{cfg, []string{"eval", "--profile", "nope"}, `--profile: no profile "nope"`},
		{cfg, []string{"eval", "--profile", "autopilot", "--profile", "nope"}, `--profile: no profile "nope"`},
		{cfg, []string{"eval", "--league", "--profile", "autopilot", "--profile", "nope"}, `--profile: no profile "nope"`},
		{cfg, []string{"eval", "--seat", "A=autopilot", "--seat", "B=nope"}, `--seat B=nope: no profile "nope"`},
		{cfg, []string{"--seat", "A=autopilot", "--seat", "B=nope"}, `--seat B=nope: no profile "nope"`},
		{cfg, []string{"run", "--headless", "--seat", "A=autopilot", "--seat", "B=autopilot/nope"}, `--seat B=autopilot/nope: no profile "autopilot/nope"`},
		{cfg, []string{"eval"}, "name at least one --profile"},
		{withDefault, []string{"run", "--headless"}, `defaults.profile: no profile "nope"`},
	} {
		var out, errOut strings.Builder
		args := append(slices.Clone(c.args), "--data", data)
		if c.args[0] == "eval" {
			args = c.args
		}
		if code := runEnv(t, []string{"XDG_CONFIG_HOME=" + c.cfg, "OPENAI_API_KEY=", "OPENAI_BASE_URL="}, args, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("coplay %q: exit %d, %q; want 2 and %q", c.args, code, errOut.String(), c.want)
		}
	}
	if _, err := os.Stat(data); err == nil {
		t.Errorf("a mistake left a notebook at %s", data)
	}
}
