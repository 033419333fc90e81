package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/coplayhq/coplay/eval"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/secret"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/llmtest"
	"github.com/coplayhq/coplay/config"
	"github.com/coplayhq/coplay/game/spacetraders"
	"github.com/coplayhq/coplay/game/universe"
	"github.com/coplayhq/coplay/notes"
)

func init() { addCommand(newEvalCmd) }

// evalSpeed is the offline universe's speed factor in eval: travel and cooldowns take
// milliseconds, so an episode is bound by the brain, not by the game's clock.
const evalSpeed = 1000

// evalGames are the built-in games eval plays: offline and seeded, so that an episode is
// the same world for every profile. Each maps to the metric it is scored by.
var evalGames = map[string]string{"universe": "credits", "arena": "score"}

// evalArenaSpeed is the arena's speed factor in eval when --speed is not given: fast
// enough that battles start and end within an episode, slow enough that the world does
// not run ahead of the steps (its triggers come every few game minutes).
const evalArenaSpeed = 600

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }
func (l *stringList) Type() string       { return "stringList" }

// evalFlags are the flags of `coplay eval`.
type evalFlags struct {
	lf                                                  leagueFlags
	seedList, out, configPath, gameName, fromSpec, data string
	steps, parallel                                     int
	asJSON                                              bool
	speed                                               float64
}

// newEvalCmd is `coplay eval`.
func newEvalCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "compare profiles: play each on seeds of a built-in world (universe, arena), headless, and report",
		Long: "usage: coplay eval --profile P [--profile Q ...] --seeds LIST --steps N [--json] [--out DIR]\n" +
			"       coplay eval --league --profile P --profile Q [...] | --seat NAME=PROFILE --seat ... [--game arena|universe] --seeds LIST ...",
		Args: noArgs,
	}
	fs := cmd.Flags()
	var f evalFlags
	fs.Var(&f.lf.profiles, "profile", "a `profile` to play (NAME, NAME/EXPERIMENT or NAME/EXPERIMENT@VERSION); repeat to compare")
	fs.BoolVar(&f.lf.on, "league", false, "play every --profile in one world per seed, a seat each (named after the profile; seats and so arena communities shuffled per seed), and rate them against each other (OpenSkill)")
	fs.Var(&f.lf.seats, "seat", "a league seat and what plays it, `NAME=PROFILE` (PROFILE: autopilot, script:FILE, or a profile); repeat for each seat, instead of --profile; implies --league")
	fs.StringVar(&f.seedList, "seeds", "1", "`seeds` of the built-in world: a list such as 1,2,3 or 1-5")
	fs.IntVar(&f.steps, "steps", 200, "steps per episode (`n`)")
	fs.BoolVar(&f.asJSON, "json", false, "print JSON instead of tables")
	fs.StringVar(&f.out, "out", "", "also write eval.json, report.md and credits.png (a league: rating.png) to `dir`")
	fs.StringVar(&f.configPath, "config", "", "configuration `file` (default $XDG_CONFIG_HOME/coplay/config.toml)")
	fs.IntVar(&f.parallel, "parallel", runtime.NumCPU(), "episodes played at once (`n`)")
	fs.Float64Var(&f.speed, "speed", evalSpeed, "offline world speed `factor` (the arena's default in eval is 600)")
	fs.StringVar(&f.gameName, "game", "universe", "the built-in `game` to play: universe or arena")
	_ = fs.SetAnnotation("game", valuesKey, slices.Sorted(maps.Keys(evalGames)))
	fs.StringVar(&f.fromSpec, "from", "", "play each profile from the world session NAME observed at the start of step STEP (`NAME@STEP`; its game, one episode per profile) instead of new seeded worlds")
	fs.StringVar(&f.data, "data", "", "notebook `file` that holds the --from session (default: the user data directory)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return runEval(f, cmd.Flags(), commandLine(cmd)[1:], cmd.OutOrStdout(), cmd.ErrOrStderr())
	}
	return cmd
}

// runEval plays every profile on every seed and prints the results. fs holds the flags
// f was parsed from; args is the command line after `coplay eval`, for the report.
func runEval(f evalFlags, fs *pflag.FlagSet, args []string, stdout, stderr io.Writer) error {
	switch {
	case len(f.lf.profiles) == 0 && len(f.lf.seats) == 0:
		return usagef("name at least one --profile (e.g. --profile autopilot/bold --profile autopilot/careful); `coplay config profiles` lists them")
	case f.steps <= 0:
		return fmt.Errorf("--steps must be at least 1, not %d", f.steps)
	case f.parallel <= 0:
		return fmt.Errorf("--parallel must be at least 1, not %d", f.parallel)
	case f.speed <= 0:
		return fmt.Errorf("--speed must be above 0, not %g", f.speed)
	case evalGames[f.gameName] == "":
		return usagef("eval plays the built-in seeded games universe and arena, not --game %q%s", f.gameName, didYouMean(f.gameName, "universe", "arena"))
	}
	seeds, err := eval.ParseSeeds(f.seedList)
	if err != nil {
		return fmt.Errorf("--seeds: %w", err)
	}
	set := map[string]bool{}
	fs.Visit(func(fl *pflag.Flag) { set[fl.Name] = true })
	if f.lf.wanted() {
		if err := f.lf.check(f.fromSpec); err != nil {
			return err
		}
	}
	var from *evalFrom
	if f.fromSpec != "" {
		if set["seeds"] {
			return usagef("--from plays from a session's step, not from --seeds: use one of them")
		}
		if from, err = loadEvalFrom(f.fromSpec, f.data); err != nil {
			return err
		}
		if set["game"] && f.gameName != from.game {
			return usagef("--from %s plays %s, not --game %s", f.fromSpec, from.game, f.gameName)
		}
		f.gameName, seeds = from.game, []int64{0}
	}
	if f.gameName == "arena" && !set["speed"] {
		f.speed = evalArenaSpeed
	}
	file, err := loadConfigFile(f.configPath, set["config"])
	if err != nil {
		return err
	}
	world := evalWorld{game: f.gameName, seeds: seeds, speed: f.speed, from: from}
	scrub := scrubber()
	if f.lf.wanted() {
		seats, err := leagueSeats(context.Background(), file, f.lf, f.gameName)
		if err != nil {
			return err
		}
		rep, err := playEvalLeague(seats, file, world, f.steps, f.parallel, stderr)
		if err != nil {
			return err
		}
		return printLeague(secret.NewWriter(stdout, scrub), rep, f.asJSON, f.out, args, scrub)
	}
	plans, err := planProfiles(file, f.lf.profiles, f.gameName)
	if err != nil {
		return err
	}
	rep, err := playEval(plans, file, world, f.steps, f.parallel, stderr)
	if err != nil {
		return err
	}
	if f.out != "" {
		if err := eval.WriteOut(f.out, rep, f.steps, args, scrub); err != nil {
			return err
		}
	}
	return printEval(secret.NewWriter(stdout, scrub), secret.NewWriter(stderr, scrub), rep, f.asJSON, f.out)
}

// planProfiles resolves every profile before anything is played: a typo in the second
// profile should not cost the first one's episodes.
func planProfiles(file *config.File, specs []string, gameName string) ([]evalPlan, error) {
	var plans []evalPlan
	seen := map[string]bool{}
	for _, spec := range specs {
		pl, err := planProfile(file, spec, gameName)
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

// evalWorld is the game an eval plays, its seeds and its speed.
type evalWorld struct {
	game  string
	seeds []int64
	speed float64
	from  *evalFrom // play from a session's step rather than seeds (eval_from.go)
}

// playEval plays every plan on every seed and gathers the report.
func playEval(plans []evalPlan, file *config.File, w evalWorld, steps int, parallel int, stderr io.Writer) (eval.Report, error) {
	var jobs []eval.Job
	var ids []eval.ProfileID
	for _, pl := range plans {
		ids = append(ids, eval.ProfileID{Name: pl.prof.Name, Version: pl.prof.Version()})
		for _, seed := range w.seeds {
			jobs = append(jobs, eval.Job{
				Profile: pl.prof.Name, Version: pl.prof.Version(), Seed: seed, Steps: steps, Game: w.game, Metric: evalGames[w.game],
				From: w.from.String(),
				Open: func(ctx context.Context) (*eval.Setup, error) {
					var state []byte // nil: a new world of seed
					if w.from != nil {
						var err error
						if state, err = w.from.world(); err != nil {
							return nil, err
						}
					}
					if w.game == "universe" {
						return openUniverseEpisode(pl, file, seed, w.speed, state)
					}
					return openDriverEpisode(ctx, w.game, pl, file, seed, w.speed, state)
				},
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
func printEval(w *secret.Writer, stderr io.Writer, rep eval.Report, asJSON bool, out string) error {
	if asJSON {
		// Tables carry these lines; JSON readers have model_failures and model_error,
		// and the person who ran it still sees why on stderr.
		eval.WriteModelFailures(stderr, rep, "coplay eval: ")
		if err := writeIndented(w, rep); err != nil {
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

// writeIndented writes v to w as indented JSON.
func writeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
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
func planProfile(file *config.File, spec, gameName string) (evalPlan, error) {
	o := options{game: gameName, approve: "all"}
	if err := o.takeProfile(file, spec, map[string]bool{"game": true, "approve": true}); err != nil {
		return evalPlan{}, err
	}
	prof := config.Profile{Name: spec, Brain: spec} // script:FILE is no profile of the file
	if o.pr.prof != nil {
		prof = *o.pr.prof
	}
	kind, err := o.brainKind()
	if err != nil {
		return evalPlan{}, fmt.Errorf("profile %s: %w", spec, err)
	}
	if kind == "model" {
		if _, _, err := o.modelPriced(); err != nil {
			return evalPlan{}, fmt.Errorf("profile %s: %w", spec, err)
		}
	}
	if kind == "autopilot" && !autopilotPlays(gameName) {
		return evalPlan{}, fmt.Errorf("profile %s: the autopilot plays only %s", spec, autopilotGames)
	}
	tools, err := game.Open(context.Background(), gameName, game.Env{ToolsOnly: true, Getenv: os.Getenv})
	if err != nil {
		return evalPlan{}, err
	}
	if tools.Close != nil {
		defer tools.Close()
	}
	if _, err := o.wrapGame(tools.Game); err != nil {
		return evalPlan{}, err
	}
	return evalPlan{spec: spec, prof: prof, opts: o}, nil
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
func openUniverseEpisode(pl evalPlan, file *config.File, seed int64, speed float64, state []byte) (*eval.Setup, error) {
	var u *universe.Universe
	if state == nil {
		u = universe.New(universe.Config{Seed: seed, Speed: speed})
	} else { // --from: the world a session saved
		var err error
		if u, err = universe.Restore(state, universe.Config{Speed: speed}); err != nil {
			return nil, err
		}
	}
	token, known := u.AgentToken(spacetraders.DefaultAgentSymbol)
	if !known {
		var err error
		if token, err = u.Register(spacetraders.DefaultAgentSymbol, "COSMIC"); err != nil {
			return nil, err
		}
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

// openDriverEpisode opens a seeded built-in game other than the universe (which eval
// serves over loopback to count its requests) through its driver, and the plan's brain.
func openDriverEpisode(ctx context.Context, name string, pl evalPlan, file *config.File, seed int64, speed float64, state []byte) (*eval.Setup, error) {
	opened, err := game.Open(ctx, name, game.Env{Getenv: os.Getenv, State: state, Resuming: state != nil, Options: game.Values{"seed": seed, "speed": speed}})
	if err != nil {
		return nil, err
	}
	return driverSetup(pl, file, opened)
}

// driverSetup is the plan's episode on a game its driver opened (alone, or as a
// league's seat): closing the setup closes the game.
func driverSetup(pl evalPlan, file *config.File, opened *game.Opened) (*eval.Setup, error) {
	closeGame := func() {
		if opened.Close != nil {
			opened.Close()
		}
	}
	_, triggered := opened.Game.(game.Triggers)
	setup := &eval.Setup{Look: opened.Game.Observe, Secrets: append(secrets(), opened.Secrets...), Close: closeGame, Triggered: triggered}
	if err := pl.fill(setup, file, opened.Game); err != nil {
		closeGame()
		return nil, err
	}
	return setup, nil
}

// fill puts the plan's game, brain, runner settings and price into s, for game st (as
// its driver opened it, before the profile wraps it).
func (pl evalPlan) fill(s *eval.Setup, file *config.File, st game.Game) error {
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
		if model, _, err := o.modelPriced(); err == nil {
			// config.toml's price, else the catalogue's (the same as a run's).
			preset := o.preset
			if price, from := o.modelPrice(preset, model); from != priceFromNone {
				s.Price = &price
			}
			s.Config.ContextWindow = modelWindow(preset, model)
		}
	}
	return nil
}

// evalBrain builds the plan's brain for st: the autopilot, a scripted model or a
// model endpoint. kind is "autopilot", "script" or "model".
func evalBrain(o *options, st game.Game) (b agent.Brain, closer io.Closer, kind string, err error) {
	if kind, err = o.brainKind(); err != nil {
		return nil, nil, "", err
	}
	switch kind {
	case "autopilot":
		ap, ok, err := autopilotFor(st, o.pr.temperament)
		if !ok {
			return nil, nil, "", fmt.Errorf("the autopilot plays only %s", autopilotGames)
		}
		return ap, nil, kind, err
	case "script":
		b, c, err := llmtest.NewBrain(strings.TrimPrefix(o.brain, "script:"))
		return b, c, kind, err
	}
	mb, _, _, _, err := o.modelBrain()
	return mb, nil, kind, err
}
