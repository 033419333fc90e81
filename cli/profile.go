package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/models"
	"github.com/coplayhq/coplay/agent/openai"
	"github.com/coplayhq/coplay/config"
	"github.com/coplayhq/coplay/game"
)

// profileOptions is what the config file and a profile add to the flags: the settings
// that have no flag of their own. The zero value changes nothing.
type profileOptions struct {
	configPath string // --config
	spec       string // --profile

	file *config.File
	prof *config.Profile // the chosen profile; nil = none

	baseURL     string // the model endpoint
	keyEnv      string // the environment variable holding the model's key
	temperature *float64
	maxTokens   int
	history     int
	prompt      string   // added to the game's rules in the system prompt
	tools       []string // the only tools the brain may use (nil = all)
	hide        []string // tools the brain may not use
	temperament string   // how much the autopilot risks ("" = balanced)
	// The file's defaults for the universe driver's flags, when none was given.
	speed       float64
	noRateLimit *bool
}

// configSecretEnvs names the environment variables the config file points keys at, so
// secrets() scrubs them like OPENAI_API_KEY.
var configSecretEnvs []string

// registerProfile adds --config and --profile to fs.
func (o *options) registerProfile(fs *pflag.FlagSet) {
	fs.StringVar(&o.pr.configPath, "config", "", "configuration `file` (default $XDG_CONFIG_HOME/coplay/config.toml; see `coplay config`)")
	fs.StringVar(&o.pr.spec, "profile", "", "play with a profile from the config file: `NAME`, NAME/EXPERIMENT, or NAME/EXPERIMENT@VERSION to pin its definition")
}

// applyConfig reads the config file and fills every option whose flag was not given
// from the chosen profile, then from the file's [defaults]: flags beat the file, and
// the file beats the built-in defaults. fs must be parsed.
func applyConfig(o *options, fs *pflag.FlagSet) error {
	set := map[string]bool{}
	fs.Visit(func(f *pflag.Flag) { set[f.Name] = true })
	o.given = set
	path, explicit := o.pr.configPath, set["config"]
	if !explicit {
		var err error
		if path, err = config.DefaultPath(); err != nil {
			path = "" // no home directory: no config file, built-in defaults only
		}
	}
	file := config.Empty()
	if path != "" {
		var err error
		if file, err = config.Load(path, explicit); err != nil {
			return err
		}
	}
	if err := o.apply(file, set); err != nil {
		return err
	}
	// The universe's speed and rate limit are its driver's flags: the file's defaults
	// go in as if given on the command line.
	if o.pr.speed > 0 && fs.Lookup("speed") != nil {
		if err := fs.Set("speed", strconv.FormatFloat(o.pr.speed, 'g', -1, 64)); err != nil {
			return fmt.Errorf("%s: defaults.speed: %w", o.configWhere(), err)
		}
	}
	if o.pr.noRateLimit != nil && fs.Lookup("no-rate-limit") != nil {
		if err := fs.Set("no-rate-limit", strconv.FormatBool(*o.pr.noRateLimit)); err != nil {
			return fmt.Errorf("%s: defaults.no_rate_limit: %w", o.configWhere(), err)
		}
	}
	return nil
}

// apply fills o from file where set (the flags given) leaves room.
func (o *options) apply(file *config.File, set map[string]bool) error {
	o.pr.file = file
	d := file.Defaults
	str := func(flagName string, dst *string, vals ...string) {
		if set[flagName] {
			return
		}
		for _, v := range vals {
			if v != "" {
				*dst = v
				return
			}
		}
	}
	spec := o.pr.spec
	if !set["profile"] {
		spec = d.Profile
	}
	var p config.Profile
	if spec != "" {
		var err error
		if p, err = file.Resolve(spec); err != nil {
			if !set["profile"] {
				// The file named it: say where, with the same status as the flag's mistake.
				return usagef("%s: defaults.profile: %v", file.Path, err)
			}
			return usagef("--profile: %v", err) // a profile that is not there is the person's mistake, as any flag's
		}
		o.pr.prof = &p
	}
	brain := p.Brain
	if brain == "" && o.pr.prof != nil {
		brain = p.BrainKind() // a profile says what plays, whatever the environment holds
	}
	str("brain", &o.brain, brain, d.Brain)
	str("game", &o.game, d.Game)
	str("approve", &o.approve, d.Approve)
	str("notify", &o.steer.notify, d.Notify)
	if o.pr.prof != nil {
		// A profile is a whole definition: its endpoint does not mix with the
		// defaults' (a profile on a preset must not inherit a default base_url).
		str("model", &o.model, p.Model)
		str("preset", &o.preset, p.Preset)
		o.pr.baseURL, o.pr.keyEnv = p.BaseURL, p.APIKeyEnv
	} else {
		str("model", &o.model, d.Model)
		str("preset", &o.preset, d.Preset)
		o.pr.baseURL, o.pr.keyEnv = d.BaseURL, d.APIKeyEnv
	}
	if set["preset"] || set["model"] && o.pr.prof == nil {
		// The command line named another endpoint or model: the file's endpoint is not
		// the one meant.
		o.pr.baseURL = ""
	}
	if o.brain == "" && o.pr.baseURL != "" {
		o.brain = "model" // an endpoint in the file means a model plays
	}
	if !set["speed"] && d.Speed > 0 {
		o.pr.speed = d.Speed
	}
	if !set["no-rate-limit"] && d.NoRateLimit != nil {
		o.pr.noRateLimit = d.NoRateLimit
	}
	if !set["allow-plain-http"] {
		o.allowPlainHTTP = d.AllowPlainHTTP
	}
	if !set["max-iterations"] && p.MaxIterations > 0 {
		o.maxIter = p.MaxIterations
	}
	o.applySpending(p.Spending, d.Spending, set)
	o.pr.temperature, o.pr.maxTokens, o.pr.history = p.Temperature, p.MaxTokens, p.HistorySteps
	o.pr.prompt, o.pr.tools, o.pr.hide = p.Prompt, p.Tools, p.HideTools
	o.pr.temperament = p.Temperament
	if o.pr.keyEnv != "" {
		configSecretEnvs = append(configSecretEnvs, o.pr.keyEnv)
	}
	return nil
}

// applySpending fills the spend caps, the tool budget and the pins whose flags were not
// given: from the profile, then from [defaults].
func (o *options) applySpending(prof, def config.Spending, set map[string]bool) {
	if !set["max-tokens"] {
		o.maxTokens = int64(cmp.Or(prof.MaxRunTokens, def.MaxRunTokens))
	}
	if !set["max-cost"] {
		o.maxCost = cmp.Or(prof.MaxRunCost, def.MaxRunCost)
	}
	if !set["tool-budget"] {
		o.toolBudget = cmp.Or(prof.ToolBudget, def.ToolBudget)
	}
	if !set["pin"] {
		o.pins = prof.Pin
		if len(o.pins) == 0 {
			o.pins = def.Pin
		}
	}
	if secs := cmp.Or(prof.CallTimeout, def.CallTimeout); !set["call-timeout"] && secs > 0 {
		o.callTimeout = time.Duration(secs * float64(time.Second))
	}
}

// fixedRules are the approval rules from the config file's [defaults] and the chosen
// profile: applied to the run (agent.Config.Rules), shown in the rules dialog, never
// written into the session.
func (o *options) fixedRules() []agent.FixedRule {
	var out []agent.FixedRule
	if o.pr.file != nil {
		for _, l := range o.pr.file.Defaults.Rules {
			out = append(out, agent.FixedRule{Line: l, From: "config.toml"})
		}
	}
	if o.seat != "" && o.pr.file != nil {
		for _, l := range o.pr.file.League.Rules {
			out = append(out, agent.FixedRule{Line: l, From: "config.toml [league]"})
		}
	}
	if o.pr.prof != nil {
		for _, l := range o.pr.prof.Rules {
			out = append(out, agent.FixedRule{Line: l, From: "profile " + o.pr.prof.Name})
		}
	}
	return out
}

// profileID is the chosen profile as NAME/EXPERIMENT@VERSION, or "".
func (o *options) profileID() string {
	if o.pr.prof == nil {
		return ""
	}
	return o.pr.prof.ID()
}

// recordProfile notes the profile in a new session, so `coplay sessions` shows which
// definition played it.
func (o *options) recordProfile(s interface{ SetProfile(string) error }) error {
	if id := o.profileID(); id != "" {
		return s.SetProfile(id)
	}
	return nil
}

// modelConfig is the openai.Config for a model brain: the endpoint and key from the
// profile or the file's defaults when they name one, otherwise from the environment
// (openai.ConfigFromEnv); --model-url over either; the profile's temperature and
// max_tokens; the price from config.toml's [prices], else from the model catalogue.
func (o *options) modelConfig() (openai.Config, error) {
	var cfg openai.Config
	p, hasPreset := models.PresetNamed(o.preset)
	switch {
	case o.modelURL != "" && !hasPreset && o.pr.keyEnv == "":
		// A server named on the command line: whether it needs a key is its business.
		cfg = openai.Config{Model: o.model, BaseURL: o.modelURL, APIKey: os.Getenv("OPENAI_API_KEY"), Stream: true}
		if cfg.Model == "" {
			return cfg, fmt.Errorf("no model for --model-url %s: pass --model with a name the server knows", o.modelURL)
		}
	case o.pr.baseURL == "" && o.pr.keyEnv == "":
		var err error
		if cfg, err = openai.ConfigFromEnv(o.model, o.preset); err != nil {
			return cfg, err
		}
	default:
		cfg = openai.Config{Model: o.model, Preset: o.preset, BaseURL: o.pr.baseURL, Stream: true}
		switch {
		case o.pr.keyEnv != "":
			cfg.APIKey = os.Getenv(o.pr.keyEnv)
			if cfg.APIKey == "" {
				return cfg, fmt.Errorf("%s names the environment variable %s for the model's key, and it is not set", o.configWhere(), o.pr.keyEnv)
			}
		case hasPreset:
			// A preset behind another URL (a company proxy) keeps its own key variable.
			cfg.APIKey = p.Key(os.Getenv)
			if p.NeedsKey && cfg.APIKey == "" {
				return cfg, fmt.Errorf("preset %q needs an API key: set %s", p.Name, p.KeyVars())
			}
		default:
			cfg.APIKey = os.Getenv("OPENAI_API_KEY")
		}
		if o.preset != "" && !hasPreset {
			return cfg, fmt.Errorf("unknown preset %q", cfg.Preset)
		}
		if cfg.Model == "" {
			cfg.Model = p.Model
		}
		if cfg.Model == "" {
			return cfg, fmt.Errorf("%s names an endpoint but no model: set model", o.configWhere())
		}
	}
	if o.modelURL != "" {
		cfg.BaseURL = o.modelURL // the preset's key, catalogue and dialect stay
	}
	cfg.TextCalls = o.textCalls
	keyName := "OPENAI_API_KEY"
	switch {
	case o.pr.keyEnv != "":
		keyName = o.pr.keyEnv
	case hasPreset && p.KeyVars() != "":
		keyName = p.KeyVars()
	}
	if err := o.plainHTTP(cfg.BaseURL, cfg.APIKey, keyName); err != nil {
		return cfg, err
	}
	if t := o.pr.temperature; t != nil {
		f := float32(*t)
		cfg.Temperature = &f
	}
	price, _ := o.modelPrice(cfg.Preset, cfg.Model)
	cfg.PriceIn, cfg.PriceOut, cfg.PriceCached = price.Prompt, price.Completion, price.CachedPrompt
	if o.pr.maxTokens > 0 {
		cfg.HTTPClient = &http.Client{Transport: openai.EditRequests(http.DefaultTransport, withMaxTokens(o.pr.maxTokens))}
	}
	return cfg, nil
}

// configWhere names where the model settings came from, for messages.
func (o *options) configWhere() string {
	if o.pr.prof != nil {
		return "profile " + o.pr.prof.Name
	}
	return "the config file's [defaults]"
}

// historySteps is the profile's history_steps (0 = the runner's default).
func (o *options) historySteps() int { return o.pr.history }

// withMaxTokens adds max_tokens to a chat-completions request body that has none: the
// profile's max_tokens, until openai.Config has a field for it.
func withMaxTokens(n int) func(body []byte) ([]byte, bool) {
	return func(body []byte) ([]byte, bool) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, false
		}
		if _, has := m["max_tokens"]; has {
			return nil, false
		}
		m["max_tokens"] = json.RawMessage(fmt.Sprint(n))
		b, err := json.Marshal(m)
		return b, err == nil
	}
}

// notebookTools are the tools the runner adds to every game's.
var notebookTools = []string{agent.ToolUpdateNotes, agent.ToolSetPlan, agent.ToolUpdateStep}

// wrapGame applies the profile's tools, hide_tools and prompt to g: hidden game tools
// are not in the catalogue (so a call to one is refused as unknown), and the prompt
// addition follows the game's rules in the system prompt. Tool names are checked
// against g's catalogue and the notebook's.
func (o *options) wrapGame(g game.Game) (game.Game, error) {
	if len(o.pr.tools) == 0 && len(o.pr.hide) == 0 && o.pr.prompt == "" {
		return g, nil
	}
	known := slices.Clone(notebookTools)
	for _, t := range g.Tools() {
		known = append(known, t.Name)
	}
	for _, list := range [][]string{o.pr.tools, o.pr.hide} {
		for _, name := range list {
			if !slices.Contains(known, name) {
				msg := fmt.Sprintf("%s: no tool %q in %s", o.configWhere(), name, g.Info().Title)
				if s := game.Closest(name, known, 1); len(s) > 0 {
					msg += " (did you mean " + s[0] + "?)"
				}
				return nil, errors.New(msg)
			}
		}
	}
	pg := &profileGame{Game: g, allowed: o.allowedTool, prompt: o.pr.prompt}
	if sim, ok := g.(game.Simulator); ok {
		return &profileSimGame{profileGame: pg, sim: sim}, nil
	}
	return pg, nil
}

// allowedTool reports whether the profile lets the brain use the named tool.
func (o *options) allowedTool(name string) bool {
	if len(o.pr.tools) > 0 && !slices.Contains(o.pr.tools, name) {
		return false
	}
	return !slices.Contains(o.pr.hide, name)
}

// wrapBrain hides the profile's hidden notebook tools from the brain (the game's are
// already gone from the catalogue; the runner adds the notebook's itself).
func (o *options) wrapBrain(b agent.Brain) agent.Brain {
	for _, t := range notebookTools {
		if !o.allowedTool(t) {
			return profileBrain{Brain: b, allowed: o.allowedTool}
		}
	}
	return b
}

// profileGame is a game seen through a profile.
type profileGame struct {
	game.Game
	allowed func(string) bool
	prompt  string
}

// Triggers passes on the game's triggers, when it has any (nil never delivers).
func (g *profileGame) Triggers() <-chan game.Trigger {
	if t, ok := g.Game.(game.Triggers); ok {
		return t.Triggers()
	}
	return nil
}

// Info adds the profile's prompt to the rules, which the system prompt carries.
func (g *profileGame) Info() game.Info {
	info := g.Game.Info()
	if g.prompt != "" {
		info.Rules = strings.TrimRight(info.Rules, "\n") + "\n\n# From the player's profile\n\n" + strings.TrimSpace(g.prompt)
	}
	return info
}

// Tools is the game's catalogue without the tools the profile hides.
func (g *profileGame) Tools() []game.Tool {
	var out []game.Tool
	for _, t := range g.Game.Tools() {
		if g.allowed(t.Name) {
			out = append(out, t)
		}
	}
	return out
}

// Call refuses hidden tools, should anything call one without the catalogue.
func (g *profileGame) Call(ctx context.Context, name string, args json.RawMessage) (game.Result, error) {
	if !g.allowed(name) {
		return game.Result{}, fmt.Errorf("tool %s is hidden by the profile", name)
	}
	return g.Game.Call(ctx, name, args)
}

// profileSimGame is a profileGame whose game has dry runs.
type profileSimGame struct {
	*profileGame
	sim game.Simulator
}

// Simulate is the game's dry run.
func (g *profileSimGame) Simulate(ctx context.Context, name string, args json.RawMessage) (game.Simulation, bool, error) {
	return g.sim.Simulate(ctx, name, args)
}

// profileBrain is a brain that is not shown the tools its profile hides.
type profileBrain struct {
	agent.Brain
	allowed func(string) bool
}

// Over passes on the brain's end (agent.Finite): a script's, when it is over.
func (b profileBrain) Over() string {
	if f, ok := b.Brain.(agent.Finite); ok {
		return f.Over()
	}
	return ""
}

// Next asks the brain with the hidden tools left out of the request.
func (b profileBrain) Next(ctx context.Context, req agent.Request) (agent.Reply, error) {
	tools := make([]game.Tool, 0, len(req.Tools))
	for _, t := range req.Tools {
		if b.allowed(t.Name) {
			tools = append(tools, t)
		}
	}
	req.Tools = tools
	return b.Brain.Next(ctx, req)
}
