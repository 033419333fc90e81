package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/autopilot"
	"github.com/coplayhq/coplay/agent/llmtest"
	"github.com/coplayhq/coplay/agent/openai"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/spacetraders"
	"github.com/coplayhq/coplay/game/universe"
	"github.com/coplayhq/coplay/notes"
)

// options are the flags shared by the companion and the headless runner.
type options struct {
	game        string
	baseURL     string
	model       string
	preset      string
	brain       string
	data        string
	resume      bool
	seed        int64
	speed       float64
	noRateLimit bool
	approve     string
	maxIter     int
	pr          profileOptions // the config file and profile (profile.go)
}

func (o *options) register(fs *flag.FlagSet) {
	fs.StringVar(&o.game, "game", "universe", "`game` to play: universe (offline, built in) or spacetraders (the real server, needs SPACETRADERS_TOKEN)")
	fs.StringVar(&o.baseURL, "base-url", "", "SpaceTraders API `URL` for --game spacetraders (default https://api.spacetraders.io/v2)")
	fs.StringVar(&o.model, "model", "", "model `name` for an OpenAI-compatible endpoint (OPENAI_API_KEY, OPENAI_BASE_URL)")
	fs.StringVar(&o.preset, "preset", "", "endpoint `preset`: openai, openrouter, ollama, lmstudio, vllm")
	fs.StringVar(&o.brain, "brain", "", "`brain` to use: autopilot, model (default when --model or OPENAI_* is set), or script:FILE (a cassette)")
	fs.StringVar(&o.data, "data", "", "notebook `file` (default: the user data directory)")
	fs.BoolVar(&o.resume, "resume", false, "continue a session: the one named after the flags, else the newest")
	fs.Int64Var(&o.seed, "seed", 1, "offline universe `seed` for a new session")
	fs.Float64Var(&o.speed, "speed", 0, "offline universe speed `factor` (0 = the default)")
	fs.BoolVar(&o.noRateLimit, "no-rate-limit", false, "turn off the offline universe's rate limit")
	fs.StringVar(&o.approve, "approve", "ask", "`policy` for calls that change the game: ask, or all")
	fs.IntVar(&o.maxIter, "max-iterations", 0, "brain calls per turn before the agent stops and asks to go on (`n`; default 10 for a model, 1000 for the autopilot)")
	o.registerProfile(fs)
}

// play is everything one run of the agent needs, and how to put it away.
type play struct {
	book    *notes.Book
	session *notes.Session
	game    game.Game
	brain   agent.Brain
	runner  *agent.Runner
	title   string // "SpaceTraders (offline universe)"
	banner  string // which brain and game, and how to change them
	closers []func() error
}

// Close saves what should be saved and releases everything, newest first.
func (p *play) Close() error {
	var errs []error
	for i := len(p.closers) - 1; i >= 0; i-- {
		errs = append(errs, p.closers[i]())
	}
	return errors.Join(errs...)
}

// setup opens the notebook and session, starts the game and the brain, and builds the
// runner. name is the session to resume, when o.resume is set ("" = the newest).
func setup(o options, name string, steps int) (p *play, err error) {
	p = &play{}
	defer func() {
		if err != nil {
			p.Close()
		}
	}()
	if o.approve != "ask" && o.approve != "all" {
		return nil, fmt.Errorf("--approve must be ask or all, not %q", o.approve)
	}
	path := o.data
	if path == "" {
		if path, err = notes.DefaultPath(); err != nil {
			return nil, err
		}
	}
	if p.book, err = notes.Open(path, nil); err != nil {
		return nil, err
	}
	p.closers = append(p.closers, p.book.Close)
	// A safety net: nothing should hand the notebook a secret, but if something does
	// (a model echoing a key from an error message), it is scrubbed before it is written.
	p.book.Redact(secrets()...)

	brainName, err := o.brainKind()
	if err != nil {
		return nil, err
	}
	if o.resume {
		if p.session, err = p.book.Session(name); err != nil {
			if errors.Is(err, notes.ErrNotFound) {
				return nil, fmt.Errorf("no session %q to resume in %s (see `coplay sessions`)", name, path)
			}
			return nil, err
		}
		info, err := p.session.Info()
		if err != nil {
			return nil, err
		}
		if info.Game != "" {
			o.game = info.Game
		}
	} else {
		if o.game != "universe" && o.game != "spacetraders" {
			return nil, fmt.Errorf("--game must be universe or spacetraders, not %q", o.game)
		}
		if p.session, err = p.book.Create("", o.game, brainName); err != nil {
			return nil, err
		}
		if err := o.recordProfile(p.session); err != nil {
			return nil, err
		}
	}

	var saveState func() ([]byte, error)
	var st *spacetraders.Game
	switch o.game {
	case "universe":
		state, err := p.session.State()
		if err != nil {
			return nil, err
		}
		off, err := spacetraders.StartOffline(universe.Config{Seed: o.seed, Speed: o.speed, RateLimit: !o.noRateLimit}, state, "")
		if err != nil {
			return nil, fmt.Errorf("starting the offline universe: %w", err)
		}
		p.closers = append(p.closers, off.Close)
		// Save the universe when the run ends too, so a quit loses nothing.
		p.closers = append(p.closers, func() error {
			data, err := off.Save()
			if err != nil {
				return err
			}
			return p.session.SaveState(data)
		})
		saveState = off.Save
		st = off.Game
		p.title = "SpaceTraders (offline universe)"
	case "spacetraders":
		token := os.Getenv("SPACETRADERS_TOKEN")
		if token == "" {
			return nil, errors.New("--game spacetraders needs SPACETRADERS_TOKEN (an agent token; `coplay register` makes one)")
		}
		base := o.baseURL
		if base == "" {
			base = "https://api.spacetraders.io/v2"
		}
		st = spacetraders.New(spacetraders.Config{BaseURL: base, Token: token})
		p.title = "SpaceTraders (" + base + ")"
	default:
		return nil, fmt.Errorf("session plays %q, which this coplay does not know", o.game)
	}
	if p.game, err = o.wrapGame(st); err != nil {
		return nil, err
	}

	switch {
	case brainName == "autopilot":
		p.brain = autopilot.New(st)
		p.banner = "autopilot (no model configured) on " + p.title + " · use --model or --brain script:FILE for a model, --game spacetraders for the real game"
	case strings.HasPrefix(o.brain, "script:"):
		b, closer, err := llmtest.NewBrain(strings.TrimPrefix(o.brain, "script:"))
		if err != nil {
			return nil, err
		}
		p.closers = append(p.closers, closer.Close)
		p.brain = b
		p.banner = "scripted model " + o.brain + " on " + p.title
	default:
		cfg, err := o.modelConfig()
		if err != nil {
			return nil, err
		}
		b, err := openai.New(cfg)
		if err != nil {
			return nil, err
		}
		p.brain = b
		p.banner = "model " + b.Name() + " on " + p.title + " · --preset/--model to change, unset them for the autopilot"
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
	p.runner, err = agent.New(agent.Config{
		Game:          p.game,
		Brain:         p.brain,
		Session:       p.session,
		MaxIterations: o.maxIter,
		MaxSteps:      steps,
		ApproveAll:    o.approve == "all",
		HistorySteps:  o.historySteps(),
		SaveState:     saveState,
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// brainKind says which brain the options ask for: "autopilot", "script", or "model".
func (o *options) brainKind() (string, error) {
	switch {
	case o.brain == "autopilot":
		return "autopilot", nil
	case strings.HasPrefix(o.brain, "script:"):
		return "script", nil
	case o.brain == "model" || o.model != "" || o.preset != "":
		return "model", nil
	case o.brain == "":
		if os.Getenv("OPENAI_API_KEY") != "" || os.Getenv("OPENAI_BASE_URL") != "" {
			return "model", nil
		}
		return "autopilot", nil
	}
	return "", fmt.Errorf("--brain must be autopilot, model or script:FILE, not %q", o.brain)
}

// interruptContext is canceled on SIGINT or SIGTERM.
func interruptContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
