package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/coplayhq/coplay/eval"
	"github.com/coplayhq/coplay/secret"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/autopilot"
	"github.com/coplayhq/coplay/agent/llmtest"
	"github.com/coplayhq/coplay/agent/openai"
	"github.com/coplayhq/coplay/config"
	"github.com/coplayhq/coplay/game/spacetraders"
	"github.com/coplayhq/coplay/game/universe"
	"github.com/coplayhq/coplay/notes"
)

func init() {
	commands["eval"] = command{summary: "compare profiles: play each on seeds of the offline universe, headless, and report", run: runEval}
}

// evalSpeed is the offline universe's speed factor in eval: travel and cooldowns take
// milliseconds, so an episode is bound by the brain, not by the game's clock.
const evalSpeed = 1000

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

// runEval plays every profile on every seed and prints the results.
func runEval(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var profiles stringList
	fs.Var(&profiles, "profile", "a `profile` to play (NAME, NAME/EXPERIMENT or NAME/EXPERIMENT@VERSION); repeat to compare")
	seedList := fs.String("seeds", "1", "offline universe `seeds`: a list such as 1,2,3 or 1-5")
	steps := fs.Int("steps", 200, "steps per episode (`n`)")
	asJSON := fs.Bool("json", false, "print JSON instead of tables")
	out := fs.String("out", "", "also write eval.json, report.md and credits.png to `dir`")
	configPath := fs.String("config", "", "configuration `file` (default $XDG_CONFIG_HOME/coplay/config.toml)")
	parallel := fs.Int("parallel", runtime.NumCPU(), "episodes played at once (`n`)")
	speed := fs.Float64("speed", evalSpeed, "offline universe speed `factor`")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: coplay eval --profile P [--profile Q ...] --seeds LIST --steps N [--json] [--out DIR]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	case len(profiles) == 0:
		return errors.New("name at least one --profile (e.g. --profile autopilot); `coplay config profiles` lists them")
	case *steps <= 0:
		return fmt.Errorf("--steps must be at least 1, not %d", *steps)
	case *parallel <= 0:
		return fmt.Errorf("--parallel must be at least 1, not %d", *parallel)
	case *speed <= 0:
		return fmt.Errorf("--speed must be above 0, not %g", *speed)
	}
	seeds, err := eval.ParseSeeds(*seedList)
	if err != nil {
		return fmt.Errorf("--seeds: %w", err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	file, err := loadConfigFile(*configPath, set["config"])
	if err != nil {
		return err
	}
	plans, err := planProfiles(file, profiles)
	if err != nil {
		return err
	}
	rep, err := playEval(plans, file, seeds, *steps, *speed, *parallel, stderr)
	if err != nil {
		return err
	}
	scrub := scrubber()
	if *out != "" {
		if err := eval.WriteOut(*out, rep, *steps, args, scrub); err != nil {
			return err
		}
	}
	return printEval(secret.NewWriter(stdout, scrub), rep, *asJSON, *out)
}

// planProfiles resolves every profile before anything is played: a typo in the second
// profile should not cost the first one's episodes.
func planProfiles(file *config.File, specs []string) ([]evalPlan, error) {
	var plans []evalPlan
	seen := map[string]bool{}
	for _, spec := range specs {
		pl, err := planProfile(file, spec)
		if err != nil {
			return nil, err
		}
		if seen[pl.prof.ID()] {
			continue // the same profile named twice ("looker" and "looker/fast")
		}
		seen[pl.prof.ID()] = true
		plans = append(plans, pl)
	}
	return plans, nil
}

// playEval plays every plan on every seed and gathers the report.
func playEval(plans []evalPlan, file *config.File, seeds []int64, steps int, speed float64, parallel int, stderr io.Writer) (eval.Report, error) {
	var jobs []eval.Job
	var ids []eval.ProfileID
	for _, pl := range plans {
		ids = append(ids, eval.ProfileID{Name: pl.prof.Name, Version: pl.prof.Version()})
		for _, seed := range seeds {
			jobs = append(jobs, eval.Job{
				Profile: pl.prof.Name, Version: pl.prof.Version(), Seed: seed, Steps: steps, Game: "universe", Metric: "credits",
				Open: func(context.Context) (*eval.Setup, error) { return openUniverseEpisode(pl, file, seed, speed) },
			})
		}
	}
	ctx, cancel := interruptContext()
	defer cancel()
	prog := eval.NewProgress(stderr, len(jobs)*steps)
	episodes := eval.Run(ctx, jobs, parallel, prog.Step)
	prog.Done()
	if err := ctx.Err(); err != nil {
		return eval.Report{}, errors.New("eval interrupted: no report")
	}
	return eval.Report{Episodes: episodes, Profiles: eval.Summarize(ids, episodes)}, nil
}

// printEval writes the report as JSON or tables. The report carries what brains said
// only as numbers, but error texts come from models and servers: w scrubs every known
// secret on the way out all the same.
func printEval(w *secret.Writer, rep eval.Report, asJSON bool, out string) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		eval.WriteTables(w, rep)
		if out != "" {
			fmt.Fprintf(w, "\nwrote %s, %s and %s\n", filepath.Join(out, "eval.json"), filepath.Join(out, "report.md"), filepath.Join(out, "credits.png"))
		}
	}
	return w.Flush()
}

// loadConfigFile reads --config, or the default file when it exists.
func loadConfigFile(path string, explicit bool) (*config.File, error) {
	if !explicit {
		var err error
		if path, err = config.DefaultPath(); err != nil {
			return config.Empty(), nil
		}
	}
	return config.Load(path, explicit)
}

// evalPlan is a resolved profile, ready to play.
type evalPlan struct {
	spec string
	prof config.Profile
	opts options
}

// planProfile resolves spec and checks that it can be played: its brain can be built
// (a model's key variable is set) and its tools exist.
func planProfile(file *config.File, spec string) (evalPlan, error) {
	o := options{game: "universe", approve: "all", pr: profileOptions{spec: spec}}
	if err := o.apply(file, map[string]bool{"profile": true, "game": true, "approve": true}); err != nil {
		return evalPlan{}, err
	}
	kind, err := o.brainKind()
	if err != nil {
		return evalPlan{}, fmt.Errorf("profile %s: %w", spec, err)
	}
	if kind == "model" {
		if _, err := o.modelConfig(); err != nil {
			return evalPlan{}, fmt.Errorf("profile %s: %w", spec, err)
		}
	}
	if _, err := o.wrapGame(spacetraders.New(spacetraders.Config{Offline: true})); err != nil {
		return evalPlan{}, err
	}
	return evalPlan{spec: spec, prof: *o.pr.prof, opts: o}, nil
}

// countingHandler counts the requests that reach the game server.
type countingHandler struct {
	h http.Handler
	n atomic.Int64
}

func (c *countingHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.n.Add(1)
	c.h.ServeHTTP(w, r)
}

// openUniverseEpisode starts a universe of seed on loopback (its requests counted), and
// the plan's game and brain on it.
func openUniverseEpisode(pl evalPlan, file *config.File, seed int64, speed float64) (*eval.Setup, error) {
	u := universe.New(universe.Config{Seed: seed, Speed: speed})
	token, err := u.Register(spacetraders.DefaultAgentSymbol, "COSMIC")
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen on loopback: %w", err)
	}
	counter := &countingHandler{h: u.Handler()}
	srv := &http.Server{Handler: counter, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // ErrServerClosed on Close
	st := spacetraders.New(spacetraders.Config{
		BaseURL: "http://" + ln.Addr().String() + "/v2", Token: token, Offline: true, TimeScale: speed,
		// The universe has no rate limit here; the client's limiter gets room to spare.
		RateLimit: spacetraders.RateLimit{PerSecond: 1000, Burst: 1000, BurstWindow: time.Second},
	})
	setup := &eval.Setup{Requests: counter.n.Load, Look: st.Observe, Secrets: secrets(), Close: func() { srv.Close() }}
	if err := pl.fill(setup, file, st); err != nil {
		srv.Close()
		return nil, err
	}
	return setup, nil
}

// fill puts the plan's game, brain, runner settings and price into s, for game st.
func (pl evalPlan) fill(s *eval.Setup, file *config.File, st *spacetraders.Game) error {
	o := pl.opts
	g, err := o.wrapGame(st)
	if err != nil {
		return err
	}
	brain, closer, kind, err := evalBrain(&o, st)
	if err != nil {
		return err
	}
	if closer != nil {
		closeGame := s.Close
		s.Close = func() { closer.Close(); closeGame() }
	}
	maxIter := o.maxIter
	if maxIter == 0 {
		maxIter = 10
		if kind == "autopilot" {
			maxIter = 1000
		}
	}
	s.Game, s.Brain, s.Kind = g, o.wrapBrain(brain), kind
	s.Record = func(sess *notes.Session) error { return o.recordProfile(sess) }
	s.Config = agent.Config{MaxIterations: maxIter, HistorySteps: o.historySteps(), Rules: o.fixedRules()}
	if kind == "model" {
		if cfg, err := o.modelConfig(); err == nil {
			if price, ok := file.PriceOf(cfg.Model); ok {
				s.Price = &price
			}
		}
	}
	return nil
}

// evalBrain builds the plan's brain for st: the autopilot, a scripted model or a
// model endpoint. kind is "autopilot", "script" or "model".
func evalBrain(o *options, st *spacetraders.Game) (b agent.Brain, closer io.Closer, kind string, err error) {
	if kind, err = o.brainKind(); err != nil {
		return nil, nil, "", err
	}
	switch kind {
	case "autopilot":
		return autopilot.New(st), nil, kind, nil
	case "script":
		b, c, err := llmtest.NewBrain(strings.TrimPrefix(o.brain, "script:"))
		return b, c, kind, err
	}
	cfg, err := o.modelConfig()
	if err != nil {
		return nil, nil, "", err
	}
	ob, err := openai.New(cfg)
	return ob, nil, kind, err
}
