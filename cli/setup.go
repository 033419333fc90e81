package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/anthropic"
	"github.com/coplayhq/coplay/agent/catalog"
	"github.com/coplayhq/coplay/agent/llmtest"
	"github.com/coplayhq/coplay/agent/models"
	"github.com/coplayhq/coplay/agent/openai"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/live"
	"github.com/coplayhq/coplay/notes"
	"github.com/coplayhq/coplay/notes/record"
	"github.com/coplayhq/coplay/secret"
)

// options are the flags shared by the companion and the headless runner.
type options struct {
	game   string
	model  string
	preset string
	// modelURL is --model-url: the model server's URL, over the preset's (a company
	// proxy, a regional endpoint, a test server); the preset's key, catalogue and dialect
	// stay.
	modelURL string
	// allowPlainHTTP is --allow-plain-http: a model key may go over plain http to
	// another machine (model.go, plainHTTP).
	allowPlainHTTP bool
	// thinking is --thinking: Claude's extended thinking budget in tokens (0 = off).
	thinking int
	// textCalls is --text-calls: read tool calls the model writes as text, whatever
	// the model (by default only local servers and models the catalogue does not know).
	textCalls bool
	brain     string
	data      string
	resume    bool
	fork      string // --fork NAME@STEP: a new session from another's step (fork.go)
	approve   string
	maxIter   int

	// Spending: this run's caps, and what each model request carries.
	maxTokens  int64
	maxCost    float64
	toolBudget int
	pins       stringList
	// window is the model's context window in tokens, from the catalogue (0 = unknown:
	// the brain may learn it from its server, or the defaults apply).
	window int
	// callTimeout is how long one game call may run (--call-timeout; 0 = the runner's
	// default, 60 s).
	callTimeout time.Duration

	// The game drivers' own flags (--seed, --base-url, --mcp, ...), and how each
	// driver opens its game once they are parsed.
	drivers *gameFlags
	openers map[string]game.Opener
	pr      profileOptions // the config file and profile (profile.go)
	steer   steerOptions   // notifications and SSH (steer.go)
	join    joinOptions    // --join: a seat of a served world (join.go)

	// seats are --seat NAME=PROFILE: with any, the run is a league (league.go).
	seats seatList
	// seat is, in one seat's options, the seat's name ("" = a lone run).
	seat string
	// given names the flags the command line set (applyConfig): a seat's profile fills
	// only what they leave.
	given map[string]bool
}

// register adds the flags of a command that plays (play, run) to fs, bound to o.
func (o *options) register(fs *pflag.FlagSet) {
	o.steer.register(fs)
	fs.StringVar(&o.game, "game", "universe", "`game` to play: "+driverList())
	fs.StringVar(&o.model, "model", "", "model `name` for an OpenAI-compatible endpoint (OPENAI_API_KEY, OPENAI_BASE_URL)")
	fs.StringVar(&o.preset, "preset", "", "model `preset`: "+strings.Join(presetNames(), ", ")+" (`coplay models` lists their models)")
	fs.IntVar(&o.thinking, "thinking", 0, "let Claude think before it answers, with this many `tokens` (1024 or more; --preset anthropic; 0 = off): shown dimmed in the Log, counted in the tokens")
	fs.StringVar(&o.modelURL, "model-url", "", "the model server's `URL`, over the preset's (a proxy, a regional endpoint); the preset's key variable, prices and dialect stay")
	fs.BoolVar(&o.textCalls, "text-calls", false, "read tool calls the model writes as text (<tool_call>, [TOOL_CALLS], JSON) for a server without a tool-call parser; on by itself for the local presets and models the catalogue does not know, off for models that call tools natively")
	fs.BoolVar(&o.allowPlainHTTP, "allow-plain-http", false, "let the model's key go over plain http to a host that is not this machine, where it travels unencrypted (config.toml: allow_plain_http); loopback needs no leave")
	fs.StringVar(&o.brain, "brain", "", "`brain` to use: autopilot, model (default when --model or OPENAI_* is set), or script:FILE (a cassette)")
	fs.StringVar(&o.data, "data", "", "notebook `file` (default: the user data directory)")
	fs.BoolVar(&o.resume, "resume", false, "continue a session: the one named after the flags, else the newest")
	fs.StringVar(&o.fork, "fork", "", "start a new session from `NAME@STEP`: session NAME as it stood at the start of step STEP (its memory; a built-in world as it was then)")
	fs.StringVar(&o.approve, "approve", "ask", "`policy` for calls that change the game: ask, or all")
	fs.IntVar(&o.maxIter, "max-iterations", 0, "brain calls per turn before the agent stops and asks to go on (`n`; default 10 for a model, 1000 for the autopilot; not used once play is handed over)")
	fs.Int64Var(&o.maxTokens, "max-tokens", 0, "stop the run once it has spent `n` model tokens, prompt and completion (0 = no cap; the session resumes with a fresh budget)")
	fs.Float64Var(&o.maxCost, "max-cost", 0, "stop the run once it has spent `USD` dollars on the model (0 = no cap; needs the model's price: the catalogue's, or [prices] in config.toml)")
	fs.IntVar(&o.toolBudget, "tool-budget", 0, "characters of tool definitions sent with each model request (`n`; default 12000): over it the model gets an index of the rest and loads what it needs")
	fs.Var(&o.pins, "pin", "a `tool` always sent to the model whole, whatever the tool budget (repeat for more)")
	fs.Var(&o.seats, "seat", "play a league: a seat `NAME=PROFILE` in one world, PROFILE being autopilot, script:FILE, a config.toml profile or person (a seat you play yourself) (repeat for each seat; docs/PROTOCOL.md \"Leagues\")")
	fs.DurationVar(&o.callTimeout, "call-timeout", 0, "how long one game call may run before it is cancelled and its outcome is unknown (`duration`, like 90s or 2m; default 60s)")
	o.drivers = addGameFlags(fs)
	o.openers = o.drivers.openers()
	o.join.register(fs)
	o.registerProfile(fs)
}

// driverList says which games there are, for --game's help.
func driverList() string {
	var parts []string
	for _, d := range game.Drivers() {
		parts = append(parts, d.Name+" ("+d.Summary+")")
	}
	return strings.Join(parts, "; ")
}

// driverNames lists the games by name.
func driverNames() []string {
	var names []string
	for _, d := range game.Drivers() {
		names = append(names, d.Name)
	}
	return names
}

// checkGame checks that --game names a driver and that no flag of another game was
// given, then lets the driver check its own flags and environment, with the session's
// saved settings when resuming (state), without starting anything.
func (o *options) checkGame(state []byte) error {
	if _, err := game.LookupDriver(o.game); err != nil {
		return usagef("--game must be one of %s, not %q%s", strings.Join(driverNames(), ", "), o.game, didYouMean(o.game, driverNames()...))
	}
	if err := o.drivers.CheckSet(o.game); err != nil {
		return usagef("%v", err)
	}
	if open := o.openers[o.game]; open != nil {
		if _, err := open(context.Background(), game.Env{CheckOnly: true, State: state, Resuming: o.resume, Getenv: os.Getenv}); err != nil {
			return err
		}
	}
	return nil
}

// play is everything one run of the agent needs, and how to put it away.
type play struct {
	book    *notes.Book
	session *notes.Session
	game    game.Game
	brain   agent.Brain
	runner  *agent.Runner
	title   string           // "SpaceTraders (offline universe)"
	banner  string           // which brain and game, and how to change them
	skipped string           // what the game could not make a tool of, in a line ("" = nothing)
	notice  string           // said once at the start (a fork whose world has moved on)
	held    *game.HeldClock  // a fork's rewound world stands still until first observed (fork.go)
	advice  []string         // a fork's advice given during the step before it, not yet read by the model
	scrub   *secret.Scrubber // every secret this run holds: the environment's and the game's
	// priceFrom says where the model's price came from: "config", "catalogue", "none"
	// ("" for the autopilot, which costs nothing).
	priceFrom string
	live      *live.Server // how a second coplay reads this notebook while it is open
	liveErr   string       // why there is no such socket, said once at the start
	sshAddr   string       // where the session is served over SSH ("" = not)
	sshNote   string       // what the person must know about it: a keys file that is missing ("" = nothing)
	closers   []func() error
	gate      *agent.Gate // a league's approval queue, shared by its seats (nil = the runner's own)
	// resumeNote says what a resume chose that the person may not expect: another kind
	// of brain than before, a session older than the newest (resume.go); "" = nothing.
	resumeNote string
}

// Close saves what should be saved and releases everything, newest first. A nil play
// (setup failed) has nothing to release.
func (p *play) Close() error {
	if p == nil {
		return nil
	}
	var errs []error
	for i := len(p.closers) - 1; i >= 0; i-- {
		errs = append(errs, p.closers[i]())
	}
	p.closers = nil
	return errors.Join(errs...)
}

// check finds every mistake in a lone run's options that can be found without opening
// the notebook or starting anything, so that a bad flag or a missing variable never
// leaves a session behind. Mistakes in the flags are usageErrors.
func (o *options) check() error {
	if err := o.checkFlags(); err != nil {
		return err
	}
	if o.thinking > 0 && !o.wantsAnthropic() {
		return usagef("--thinking is for Claude (--preset anthropic); other reasoning models think by themselves, and coplay shows it")
	}
	kind, err := o.brainKind()
	if err != nil {
		return err
	}
	switch kind {
	case "script":
		file := strings.TrimPrefix(o.brain, "script:")
		if _, err := llmtest.Load(file); err != nil {
			return fmt.Errorf("--brain %s: %s", o.brain, strings.TrimPrefix(err.Error(), "llmtest: "))
		}
	case "model":
		model, priced, err := o.modelPriced()
		if err != nil {
			return fmt.Errorf("cannot use a model: %s", strings.TrimPrefix(err.Error(), "openai: "))
		}
		if o.maxCost > 0 && !priced {
			return usagef("--max-cost needs the price of model %s to count what it spends, and the model catalogue (%s) does not know it: add [prices.%q] with prompt and completion (dollars per million tokens) to config.toml", model, models.Source, model)
		}
	}
	if err := o.checkJoin(false, kind); err != nil {
		return err
	}
	if o.resume || o.fork != "" {
		return nil // the session says which game; start checks it once it is read
	}
	if err := o.checkGame(nil); err != nil {
		return err
	}
	if kind == "autopilot" && !autopilotPlays(o.game) {
		return usagef("the autopilot plays only "+autopilotGames+"; --game %s needs a model: --model NAME with OPENAI_API_KEY, --preset, or --brain script:FILE", o.game)
	}
	return nil
}

// checkFlags finds the mistakes in the flags that every run shares, a lone run's and a
// league's (whose seats' brains are their profiles': seats.go checks those).
func (o *options) checkFlags() error {
	if err := o.steer.check(); err != nil {
		return err
	}
	if o.approve != "ask" && o.approve != "all" {
		return usagef("--approve must be ask or all, not %q%s", o.approve, didYouMean(o.approve, "ask", "all"))
	}
	if o.preset != "" {
		names := presetNames()
		if _, ok := models.PresetNamed(o.preset); !ok {
			return usagef("--preset must be one of %s, not %q%s", strings.Join(names, ", "), o.preset, didYouMean(o.preset, names...))
		}
	}
	if u := o.modelURL; u != "" && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return usagef("--model-url must start with http:// or https://, not %q", u)
	}
	if o.thinking < 0 || (o.thinking > 0 && o.thinking < anthropic.MinThinkingBudget) {
		return usagef("--thinking must be a number of tokens (1024 or more), or 0 for off, not %d", o.thinking)
	}
	if o.maxIter < 0 {
		return usagef("--max-iterations must be a positive number, or 0 for the default, not %d", o.maxIter)
	}
	switch {
	case o.maxTokens < 0:
		return usagef("--max-tokens must be a positive number of tokens, or 0 for no cap, not %d", o.maxTokens)
	case o.maxCost < 0:
		return usagef("--max-cost must be a positive number of dollars, or 0 for no cap, not %g", o.maxCost)
	case o.toolBudget < 0:
		return usagef("--tool-budget must be a positive number of characters, or 0 for the default, not %d", o.toolBudget)
	case o.callTimeout < 0:
		return usagef("--call-timeout must be a positive duration (like 90s), or 0 for the default of 60s, not %s", o.callTimeout)
	}
	return o.checkFork()
}

// presetNames lists the model presets, sorted.
func presetNames() []string { return models.PresetNames() }

// openBook opens the notebook at --data (or the default place) and returns its path.
func (p *play) openBook(o options) (string, error) {
	path := o.data
	if path == "" {
		var err error
		if path, err = notes.DefaultPath(); err != nil {
			return "", fmt.Errorf("no place for the notebook (%v): pass --data FILE", err)
		}
	}
	if o.resume {
		// Resuming must not create a notebook as a side effect.
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("no notebook at %s, so no session to resume: start one without --resume (or pass --data with the notebook's file)", path)
		}
	}
	book, err := openNotebook(path)
	if err != nil {
		return "", err
	}
	p.book = book
	p.closers = append(p.closers, p.book.Close)
	p.serveLive(path)
	// A safety net: nothing should hand the notebook a secret, but if something does
	// (a model echoing a key from an error message), it is scrubbed before it is written.
	p.scrub = scrubber()
	p.book.Redact(secrets()...)
	return path, nil
}

// openSession finds the session to resume (and the game it plays, into o.game), or
// creates a new one once beforeCreate agrees.
func (p *play) openSession(o *options, path, name, brainName string, beforeCreate func() error, created *[]string) error {
	if o.fork != "" {
		return p.forkSession(o, path, brainName, beforeCreate, created)
	}
	if o.resume {
		if err := p.resumeSession(o, path, name, brainName); err != nil {
			return err
		}
	}
	if beforeCreate != nil {
		if err := beforeCreate(); err != nil {
			return err
		}
	}
	if o.resume {
		return nil
	}
	var err error
	if p.session, err = p.book.Create("", o.game, o.sessionModel(brainName)); err != nil {
		return err
	}
	*created = append(*created, p.session.Name())
	return o.recordProfile(p.session)
}

// resumeSession opens the session named name (the last one when name is empty) and
// checks that this coplay and brain can go on playing its game.
func (p *play) resumeSession(o *options, path, name, brainName string) error {
	var err error
	skipped := ""
	if name == "" {
		name, skipped = newestPlayed(p.book)
	}
	if p.session, err = p.book.Session(name); err != nil {
		if errors.Is(err, notes.ErrNotFound) {
			if name == "" {
				return fmt.Errorf("no session to resume in %s: start one without --resume", path)
			}
			return fmt.Errorf("no session %q to resume in %s (`coplay sessions --data %s` lists them)", name, path, path)
		}
		return err
	}
	info, err := p.session.Info()
	if err != nil {
		return err
	}
	if info.Game != "" {
		o.game = info.Game
	}
	p.resumeNote = strings.TrimSpace(skipped + "\n" + o.resumeBrain(info, brainName))
	if brainName, err = o.brainKind(); err != nil {
		return err
	}
	if _, err := game.LookupDriver(o.game); err != nil {
		return fmt.Errorf("session %s plays %q, which this coplay does not know (games: %s)", p.session.Name(), o.game, strings.Join(driverNames(), ", "))
	}
	if brainName == "autopilot" && !autopilotPlays(o.game) {
		return usagef("session %s plays %s, which the autopilot cannot: pass --model NAME or --brain script:FILE", p.session.Name(), o.game)
	}
	state, err := p.session.State()
	if err != nil {
		return err
	}
	if err := o.checkGame(state); err != nil {
		return fmt.Errorf("session %s: %w", p.session.Name(), err)
	}
	return nil
}

// adoptGame makes opened the game this run plays: its secrets scrubbed, its state saved
// when the run ends, and the profile's settings around it.
func (p *play) adoptGame(o options, opened *game.Opened) error {
	var err error
	p.game, p.title = opened.Game, opened.Title
	p.skipped = skippedLine(opened.Game)
	// The game's secrets (an agent token) are scrubbed like the environment's, and a
	// call that holds one is refused naming it.
	p.book.Redact(opened.Secrets...)
	for _, s := range opened.Secrets {
		p.scrub.AddNamed("the game's token", s)
	}
	if opened.Save != nil {
		// Save the game when the run ends too, so a quit loses nothing.
		session := p.session
		p.closers = append(p.closers, func() error {
			data, err := opened.Save()
			if err != nil {
				return err
			}
			return session.SaveState(data)
		})
	}
	p.game, err = o.wrapGame(p.game)
	return err
}

// openBrain builds the brain brainName names: the autopilot, a scripted model or a model
// endpoint, wrapped with the profile's settings, and says which in the banner.
func (p *play) openBrain(o *options, brainName string, opened *game.Opened) error {
	switch brainName {
	case personSeat:
		// The person's own seat: no brain plays it (agent.Config.Person).
		p.brain = agent.PersonBrain{}
		p.banner = "your own seat on " + p.title + " · : plays a move, the seat bar shows what reaches you"
		return nil
	case "autopilot":
		b, ok, err := autopilotFor(opened.Game, o.pr.temperament) // the game before any wrapping
		if !ok {
			return fmt.Errorf("the autopilot plays only %s, not %s: pass --model NAME or --brain script:FILE", autopilotGames, o.game)
		}
		if err != nil {
			return err
		}
		p.brain = b
		p.banner = "autopilot (no model configured) on " + p.title + " · use --model or --brain script:FILE for a model"
		if o.game == "universe" {
			p.banner += ", --game spacetraders for the real game"
		}
	case "script":
		b, closer, err := o.scriptBrain(strings.TrimPrefix(o.brain, "script:"))
		if err != nil {
			return err
		}
		p.closers = append(p.closers, closer.Close)
		if err := skipPlayed(b, p.session, o.brain); err != nil {
			return err
		}
		p.brain = b
		p.banner = "scripted model " + o.brain + " on " + p.title
	default:
		b, _, from, window, err := o.modelBrain()
		if err != nil {
			return err
		}
		p.brain = b
		o.window = window
		p.priceFrom = from
		p.banner = "model " + b.Name() + " on " + p.title + " · price: " + priceWords(from) + " · --preset/--model to change, unset them for the autopilot"
	}
	p.brain = o.wrapBrain(p.brain)
	if o.maxIter == 0 {
		// The cap guards against a model that loops; the autopilot's turns are long by
		// design (it plays until every ship is busy), so it gets a far larger one.
		o.maxIter = 10
		if brainName == "autopilot" {
			o.maxIter = 1000
		}
	}
	return nil
}

// newRunner builds the agent's runner from the options.
func (p *play) newRunner(o options, steps int, opened *game.Opened) error {
	var err error
	p.runner, err = agent.New(agent.Config{
		Game:          p.game,
		Brain:         p.brain,
		Session:       p.session,
		MaxIterations: o.maxIter,
		MaxSteps:      steps,
		ApproveAll:    o.approve == "all",
		KeepPlaying:   o.approve == "all", // handed over: a reply in prose does not stop play
		MaxRunTokens:  o.maxTokens,
		MaxRunCost:    o.maxCost,
		ToolBudget:    o.toolBudget,
		Pinned:        o.pins,
		ContextWindow: o.window,
		HistorySteps:  o.historySteps(),
		SaveState:     opened.Save,
		Rules:         o.fixedRules(),
		CallTimeout:   o.callTimeout,
		// Nothing the game or a model says may carry a key or token on: not to the
		// model, the game, the journal or the screen. The one scrubber names each.
		Scrubber:     p.scrub,
		Gate:         p.gate,
		Secrets:      append(secrets(), opened.Secrets...),
		Notice:       strings.Join(slices.DeleteFunc([]string{p.notice, p.liveErr}, func(s string) bool { return s == "" }), "; "),
		StepObserved: p.release,
		Person:       o.brain == personSeat,
	})
	return pinMistake(err)
}

// pinMistake turns the catalogue's refusal of an unknown pin into the person's mistake
// (exit 2, in the words of the flag); other errors pass unchanged.
func pinMistake(err error) error {
	var pe *catalog.UnknownPinError
	if errors.As(err, &pe) {
		return usagef("--pin: no tool %s in this game (`coplay tools` lists them; a pin in config.toml counts too)", strings.Join(pe.Names, "; "))
	}
	return err
}

// scriptBrain serves a cassette over loopback and points the openai brain at it, with
// the cassette model's price from config.toml when it has one (so a demo shows a bill).
func (o *options) scriptBrain(path string) (*llmtest.ScriptBrain, io.Closer, error) {
	c, err := llmtest.Load(path)
	if err != nil {
		return nil, nil, err
	}
	srv := llmtest.NewServer(c)
	cfg := llmtest.BrainConfig(srv)
	if price, ok := o.pr.file.PriceOf(cfg.Model); ok {
		cfg.PriceIn, cfg.PriceOut, cfg.PriceCached = price.Prompt, price.Completion, price.CachedPrompt
	}
	b, err := openai.New(cfg)
	if err != nil {
		srv.Close()
		return nil, nil, err
	}
	return llmtest.Script(b, srv, path), srv, nil
}

// skipPlayed passes the script over the answers the session's journal holds (one usage
// record each), so that a resumed or forked session goes on where its script was, and
// one whose script is over says so and asks nothing.
// A session played by another cassette (or by a model) starts this script at its
// beginning: its journal holds none of this script's answers.
func skipPlayed(b *llmtest.ScriptBrain, s *notes.Session, brain string) error {
	info, err := s.Info()
	if err != nil {
		return err
	}
	if info.Model != scriptModel(brain) {
		return nil
	}
	n := 0
	err = s.Records(0, func(r notes.Record) error {
		if r.Type == record.TypeUsage {
			n++
		}
		return nil
	})
	b.Skip(n)
	return err
}

// openGame opens the game o names with its driver; the notebook's directory is where
// the driver may keep files (an MCP server's log).
func (p *play) openGame(o options, notebook string, state []byte) (*game.Opened, error) {
	if opened, ok, err := o.openJoined(p.session.Name(), state); ok {
		if err == nil && opened.Close != nil {
			p.closers = append(p.closers, opened.Close)
		}
		return opened, err
	}
	open := o.openers[o.game]
	if open == nil {
		return nil, fmt.Errorf("--game %s cannot be opened", o.game)
	}
	kind, _ := o.brainKind() // a model may serve the game's server (MCP sampling)
	opened, err := open(context.Background(), game.Env{State: state, Resuming: o.resume, Dir: filepath.Dir(notebook), Getenv: os.Getenv, Model: kind == "model", Clock: p.clock()})
	if err != nil {
		return nil, err
	}
	if opened.Close != nil {
		p.closers = append(p.closers, opened.Close)
	}
	return opened, nil
}

// openNotebook opens the notebook at path; its errors say what to do about a notebook
// that is in use or damaged.
func openNotebook(path string) (*notes.Book, error) { return openNotebookWith(path, false) }

// openNotebookWith opens the notebook at path, read-only when readOnly (it then never
// writes to the file).
func openNotebookWith(path string, readOnly bool) (*notes.Book, error) {
	open := notes.Open
	if readOnly {
		open = notes.OpenReadOnly
	}
	book, err := open(path, nil)
	switch {
	case errors.Is(err, notes.ErrLocked):
		return nil, fmt.Errorf("%v: close the other coplay first, or pass --data with another file", err)
	case errors.Is(err, notes.ErrCorrupt):
		return nil, fmt.Errorf("%v; coplay has not changed it: move it aside, or pass --data with another file", err)
	case err != nil:
		return nil, fmt.Errorf("opening the notebook: %v", err)
	}
	return book, nil
}

// sessionModel is what a new session records as its model, for `coplay sessions` and
// the exported transcript: the model's own name (gpt-4o-mini) when a model plays and
// its settings resolve, else the kind of brain (autopilot, script). A setting that
// does not resolve is reported by openBrain, in its words.
func (o *options) sessionModel(brainName string) string {
	if brainName == "script" {
		return scriptModel(o.brain) // the cassette, for a resume to find (resume.go)
	}
	if brainName != "model" {
		return brainName
	}
	if model, _, err := o.modelPriced(); err == nil && model != "" {
		return model
	}
	return brainName
}

// brainKind says which brain the options ask for: "autopilot", "script", or "model".
// An explicit --brain wins over --model, --preset and the environment.
func (o *options) brainKind() (string, error) {
	switch {
	case o.brain == "autopilot" || o.brain == "model":
		return o.brain, nil
	case o.brain == personSeat && o.seat != "":
		return personSeat, nil
	case o.brain == personSeat:
		return "", usagef("--brain person is for a league's seat: --seat NAME=person (with another seat beside it)")
	case strings.HasPrefix(o.brain, "script:"):
		if strings.TrimPrefix(o.brain, "script:") == "" {
			return "", usagef("--brain script:FILE needs the cassette's file after the colon")
		}
		return "script", nil
	case o.brain != "":
		return "", usagef("--brain must be autopilot, model or script:FILE, not %q%s", o.brain, didYouMean(o.brain, "autopilot", "model"))
	case o.model != "" || o.preset != "":
		return "model", nil
	case os.Getenv("OPENAI_API_KEY") != "" || os.Getenv("OPENAI_BASE_URL") != "":
		return "model", nil
	}
	return "autopilot", nil
}

// interruptContext is canceled on SIGINT or SIGTERM, with the cause "interrupted
// (SIGINT)" or "interrupted (SIGTERM)": the run stops in those words, and a game call in
// flight is cut short and journaled as outcome unknown.
func interruptContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-sigs:
			name := "SIGTERM"
			if s == os.Interrupt {
				name = "SIGINT"
			}
			cancel(errors.New("interrupted (" + name + ")"))
		case <-ctx.Done():
		}
		signal.Stop(sigs)
	}()
	return ctx, func() { cancel(context.Canceled) }
}
