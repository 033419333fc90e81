package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/autopilot"
	"github.com/coplayhq/coplay/agent/llmtest"
	"github.com/coplayhq/coplay/agent/openai"
	"github.com/coplayhq/coplay/config"
	"github.com/coplayhq/coplay/game"
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
	seeds, err := parseSeeds(*seedList)
	if err != nil {
		return fmt.Errorf("--seeds: %w", err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	file, err := loadConfigFile(*configPath, set["config"])
	if err != nil {
		return err
	}
	// Everything that can be checked before playing is: a typo in the second profile
	// should not cost the first one's episodes.
	var plans []evalPlan
	seen := map[string]bool{}
	for _, spec := range profiles {
		pl, err := planProfile(file, spec)
		if err != nil {
			return err
		}
		if seen[pl.prof.ID()] {
			continue // the same profile named twice ("looker" and "looker/fast")
		}
		seen[pl.prof.ID()] = true
		plans = append(plans, pl)
	}
	var jobs []evalJob
	for _, pl := range plans {
		for _, seed := range seeds {
			jobs = append(jobs, evalJob{plan: pl, seed: seed, steps: *steps, speed: *speed})
		}
	}

	ctx, cancel := interruptContext()
	defer cancel()
	prog := newProgress(stderr, len(jobs)*(*steps))
	episodes := make([]episode, len(jobs))
	sem := make(chan struct{}, *parallel)
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			episodes[i] = playEpisode(ctx, j, file, prog.step)
		}()
	}
	wg.Wait()
	prog.done()
	if err := ctx.Err(); err != nil {
		return errors.New("eval interrupted: no report")
	}

	rep := evalReport{Episodes: episodes, Profiles: summarize(plans, episodes)}
	if *out != "" {
		if err := writeEvalOut(*out, rep, *steps, args); err != nil {
			return err
		}
	}
	// The report carries what brains said only as numbers, but error texts come from
	// models and servers: scrub every known secret on the way out all the same.
	w := newRedactor(stdout, secrets()...)
	if *asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		writeEvalTables(w, rep)
		if *out != "" {
			fmt.Fprintf(w, "\nwrote %s, %s and %s\n", filepath.Join(*out, "eval.json"), filepath.Join(*out, "report.md"), filepath.Join(*out, "credits.png"))
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

// parseSeeds reads "1,2,3", "1-5" or a mix.
func parseSeeds(s string) ([]int64, error) {
	var out []int64
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.ParseInt(lo, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a seed (want numbers such as 1,2,3 or a range 1-5)", part)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseInt(hi, 10, 64); err != nil || b < a {
				return nil, fmt.Errorf("%q is not a range of seeds (want LOW-HIGH)", part)
			}
			if b-a >= 10000 {
				return nil, fmt.Errorf("%q: more than 10000 seeds", part)
			}
		}
		for x := a; x <= b; x++ {
			out = append(out, x)
		}
	}
	return out, nil
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

// evalJob is one episode to play.
type evalJob struct {
	plan  evalPlan
	seed  int64
	steps int
	speed float64
}

// episode is what one profile did on one seed.
type episode struct {
	Profile            string  `json:"profile"`
	Version            string  `json:"version"`
	Seed               int64   `json:"seed"`
	Steps              int     `json:"steps"`
	CreditsStart       int64   `json:"credits_start"`
	CreditsEnd         int64   `json:"credits_end"`
	CreditsPer1000     float64 `json:"credits_per_1000_steps"`
	ContractsFulfilled int     `json:"contracts_fulfilled"`
	InvalidCalls       int     `json:"invalid_calls"`
	FailedCalls        int     `json:"failed_calls"`
	// ModelFailures counts the steps whose model call failed (a cut stream, a timeout
	// after the brain's retries): they used no tokens the server reported.
	ModelFailures int   `json:"model_failures"`
	GameRequests  int64 `json:"game_requests"`
	PromptTokens  int64 `json:"prompt_tokens"`
	// CachedTokens are the prompt tokens the provider served from its prompt cache
	// (some of PromptTokens), billed at the model's cached_prompt price.
	CachedTokens     int64    `json:"cached_tokens"`
	CompletionTokens int64    `json:"completion_tokens"`
	Cost             *float64 `json:"cost"` // null: the model has no price in the config file
	// CostUpper says Cost counts cached tokens at the prompt price (the model has no
	// cached_prompt price): the real bill is at most Cost.
	CostUpper   bool    `json:"cost_upper"`
	WallSeconds float64 `json:"wall_seconds"`
	Error       string  `json:"error,omitempty"` // why the episode ended early, if it did

	credits []creditPoint // credits over steps, for the chart
}

// creditPoint is the credits seen at a step.
type creditPoint struct {
	step    int
	credits int64
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

// playEpisode plays one profile on one seed in its own universe and notebook, with
// every call approved, and measures it from the runner's events.
func playEpisode(ctx context.Context, j evalJob, file *config.File, onStep func()) (ep episode) {
	ep = episode{Profile: j.plan.prof.Name, Version: j.plan.prof.Version(), Seed: j.seed}
	start := time.Now()
	defer func() { ep.WallSeconds = time.Since(start).Seconds() }()
	fail := func(err error) episode { ep.Error = err.Error(); return ep }

	dir, err := os.MkdirTemp("", "coplay-eval-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(dir)

	u := universe.New(universe.Config{Seed: j.seed, Speed: j.speed})
	token, err := u.Register(spacetraders.DefaultAgentSymbol, "COSMIC")
	if err != nil {
		return fail(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fail(fmt.Errorf("listen on loopback: %w", err))
	}
	counter := &countingHandler{h: u.Handler()}
	srv := &http.Server{Handler: counter, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // ErrServerClosed on Close
	defer srv.Close()
	st := spacetraders.New(spacetraders.Config{
		BaseURL: "http://" + ln.Addr().String() + "/v2", Token: token, Offline: true, TimeScale: j.speed,
		// The universe has no rate limit here; the client's limiter gets room to spare.
		RateLimit: spacetraders.RateLimit{PerSecond: 1000, Burst: 1000, BurstWindow: time.Second},
	})

	o := j.plan.opts
	g, err := o.wrapGame(st)
	if err != nil {
		return fail(err)
	}
	brain, closer, kind, err := evalBrain(&o, st)
	if err != nil {
		return fail(err)
	}
	if closer != nil {
		defer closer.Close()
	}
	brain = o.wrapBrain(brain)

	book, err := notes.Open(filepath.Join(dir, "eval.db"), nil)
	if err != nil {
		return fail(err)
	}
	defer book.Close()
	book.Redact(secrets()...)
	sess, err := book.Create("eval", "universe", kind)
	if err != nil {
		return fail(err)
	}
	if err := o.recordProfile(sess); err != nil {
		return fail(err)
	}
	maxIter := o.maxIter
	if maxIter == 0 {
		maxIter = 10
		if kind == "autopilot" {
			maxIter = 1000
		}
	}
	r, err := agent.New(agent.Config{
		Game: g, Brain: brain, Session: sess, MaxIterations: maxIter, MaxSteps: j.steps,
		ApproveAll: true, HistorySteps: o.historySteps(), Rules: o.fixedRules(),
	})
	if err != nil {
		return fail(err)
	}

	runErr := make(chan error, 1)
	go func() { runErr <- r.Run(ctx) }()
	var price config.Price
	priced := false
	for ev := range r.Events() {
		switch ev.Type {
		case agent.EventStep:
			ep.Steps++
			onStep()
		case agent.EventObservation:
			if c, ok := creditsOf(ev.Observation); ok {
				if len(ep.credits) == 0 {
					ep.CreditsStart = c
				}
				ep.credits = append(ep.credits, creditPoint{step: ep.Steps, credits: c})
			}
		case agent.EventProposed:
			if ev.Call != nil && len(ev.Call.Problems) > 0 {
				ep.InvalidCalls++
			}
		case agent.EventResult:
			switch {
			case ev.Result == nil:
			case !ev.Result.OK():
				ep.FailedCalls++
			case ev.Call != nil && ev.Call.Tool == "fulfill_contract":
				ep.ContractsFulfilled++
			}
		case agent.EventError:
			if strings.HasPrefix(ev.Text, "the model (") { // the runner's "the model (NAME) failed: ..."
				ep.ModelFailures++
			}
		case agent.EventUsage:
			if ev.Usage != nil {
				ep.PromptTokens += int64(ev.Usage.PromptTokens)
				ep.CachedTokens += int64(ev.Usage.CachedTokens)
				ep.CompletionTokens += int64(ev.Usage.CompletionTokens)
			}
		case agent.EventState:
			// Nobody sits at an eval: a turn that ended goes on at once, as if the
			// person pressed resume. Calls never wait (every call is approved).
			switch ev.State {
			case agent.Idle:
				_ = r.Send(agent.Command{Cmd: agent.CmdResume})
			case agent.Deciding:
				ep.Error = "a call waited for a person: " + ev.Text
				_ = r.Send(agent.Command{Cmd: agent.CmdStop})
			}
		}
	}
	if err := <-runErr; err != nil && ep.Error == "" {
		ep.Error = err.Error()
	}
	ep.GameRequests = counter.n.Load()
	// The last step's calls changed the credits after its observation: look once more,
	// outside the count of the brain's requests.
	if obs, err := st.Observe(context.WithoutCancel(ctx)); err == nil {
		if c, ok := creditsOf(&obs); ok {
			ep.credits = append(ep.credits, creditPoint{step: ep.Steps, credits: c})
		}
	}
	if n := len(ep.credits); n > 0 {
		ep.CreditsEnd = ep.credits[n-1].credits
	}
	if ep.Steps > 0 {
		ep.CreditsPer1000 = float64(ep.CreditsEnd-ep.CreditsStart) * 1000 / float64(ep.Steps)
	}
	if kind == "model" {
		if cfg, err := o.modelConfig(); err == nil {
			price, priced = file.PriceOf(cfg.Model)
		}
	}
	switch {
	case ep.PromptTokens == 0 && ep.CompletionTokens == 0:
		zero := 0.0 // no model call: nothing was spent
		ep.Cost = &zero
	case priced:
		c, upper := price.Cost(ep.PromptTokens, ep.CachedTokens, ep.CompletionTokens)
		ep.Cost, ep.CostUpper = &c, upper
	}
	return ep
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

// creditsOf reads the credits metric of an observation.
func creditsOf(obs *game.Observation) (int64, bool) {
	if obs == nil {
		return 0, false
	}
	for _, m := range obs.Metrics {
		if m.Name == "credits" {
			return int64(m.Value), true
		}
	}
	return 0, false
}

// evalReport is the whole result, as --json prints it.
type evalReport struct {
	Episodes []episode       `json:"episodes"`
	Profiles []profileResult `json:"profiles"`
}

// profileResult aggregates one profile's episodes: every number is the mean over its
// episodes (Aggregate says so in the JSON), except Episodes and Seeds.
type profileResult struct {
	Profile            string   `json:"profile"`
	Version            string   `json:"version"`
	Aggregate          string   `json:"aggregate"` // "mean": every number below is a mean over the episodes
	Episodes           int      `json:"episodes"`
	Seeds              []int64  `json:"seeds"`
	Steps              float64  `json:"steps"`
	CreditsStart       float64  `json:"credits_start"`
	CreditsEnd         float64  `json:"credits_end"`
	CreditsPer1000     float64  `json:"credits_per_1000_steps"`
	ContractsFulfilled float64  `json:"contracts_fulfilled"`
	InvalidCalls       float64  `json:"invalid_calls"`
	FailedCalls        float64  `json:"failed_calls"`
	GameRequests       float64  `json:"game_requests"`
	PromptTokens       float64  `json:"prompt_tokens"`
	CachedTokens       float64  `json:"cached_tokens"`
	CompletionTokens   float64  `json:"completion_tokens"`
	Cost               *float64 `json:"cost"` // null when any episode's cost is unknown
	// CostUpper says some episode's cost is an upper bound (cached tokens at the prompt
	// price), and so is the mean.
	CostUpper   bool    `json:"cost_upper"`
	WallSeconds float64 `json:"wall_seconds"`
	Errors      int     `json:"errors"` // episodes that ended early
}

// summarize aggregates the episodes per plan, in the order the profiles were given.
func summarize(plans []evalPlan, eps []episode) []profileResult {
	var out []profileResult
	for _, pl := range plans {
		r := profileResult{Profile: pl.prof.Name, Version: pl.prof.Version(), Aggregate: "mean", Seeds: []int64{}}
		cost, costKnown := 0.0, true
		for _, e := range eps {
			if e.Profile != r.Profile || e.Version != r.Version {
				continue
			}
			r.Episodes++
			r.Seeds = append(r.Seeds, e.Seed)
			r.Steps += float64(e.Steps)
			r.CreditsStart += float64(e.CreditsStart)
			r.CreditsEnd += float64(e.CreditsEnd)
			r.CreditsPer1000 += e.CreditsPer1000
			r.ContractsFulfilled += float64(e.ContractsFulfilled)
			r.InvalidCalls += float64(e.InvalidCalls)
			r.FailedCalls += float64(e.FailedCalls)
			r.GameRequests += float64(e.GameRequests)
			r.PromptTokens += float64(e.PromptTokens)
			r.CachedTokens += float64(e.CachedTokens)
			r.CompletionTokens += float64(e.CompletionTokens)
			r.WallSeconds += e.WallSeconds
			if e.Cost == nil {
				costKnown = false
			} else {
				cost += *e.Cost
				r.CostUpper = r.CostUpper || e.CostUpper
			}
			if e.Error != "" {
				r.Errors++
			}
		}
		n := float64(r.Episodes)
		for _, f := range []*float64{&r.Steps, &r.CreditsStart, &r.CreditsEnd, &r.CreditsPer1000, &r.ContractsFulfilled,
			&r.InvalidCalls, &r.FailedCalls, &r.GameRequests, &r.PromptTokens, &r.CachedTokens, &r.CompletionTokens, &r.WallSeconds} {
			*f /= n
		}
		if costKnown {
			c := cost / n
			r.Cost = &c
		}
		out = append(out, r)
	}
	return out
}

// costText is a cost for a table: never $0 for an unknown one, and "≤ $x" for an upper
// bound (cached tokens counted at the prompt price).
func costText(c *float64, upper bool) string {
	switch {
	case c == nil:
		return "cost unknown"
	case upper:
		return fmt.Sprintf("≤ $%.4f", *c)
	}
	return fmt.Sprintf("$%.4f", *c)
}

// cachedText is cached tokens with their share of the prompt tokens: "41200 (88%)".
func cachedText(cached, prompt float64) string {
	if prompt <= 0 {
		return fmt.Sprintf("%.0f", cached)
	}
	return fmt.Sprintf("%.0f (%.0f%%)", cached, 100*cached/prompt)
}

// writeEvalTables prints the episode and profile tables.
func writeEvalTables(w io.Writer, rep evalReport) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "Episodes")
	fmt.Fprintln(tw, "profile\tseed\tsteps\tcredits start\tend\tper 1k steps\tcontracts\tinvalid\tfailed\trequests\tprompt tok\tcached\tcompl tok\tcost\twall s\t")
	for _, e := range rep.Episodes {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%.0f\t%d\t%d\t%d\t%d\t%d\t%s\t%d\t%s\t%.1f\t\n", e.Profile+"@"+e.Version, e.Seed, e.Steps,
			e.CreditsStart, e.CreditsEnd, e.CreditsPer1000, e.ContractsFulfilled, e.InvalidCalls, e.FailedCalls,
			e.GameRequests, e.PromptTokens, cachedText(float64(e.CachedTokens), float64(e.PromptTokens)), e.CompletionTokens,
			costText(e.Cost, e.CostUpper), e.WallSeconds)
	}
	tw.Flush()
	for _, e := range rep.Episodes {
		if e.Error != "" {
			fmt.Fprintf(w, "  %s seed %d ended early: %s\n", e.Profile, e.Seed, e.Error)
		}
	}
	fmt.Fprintln(w, "\nProfiles (means over episodes)")
	fmt.Fprintln(tw, "profile\tepisodes\tsteps\tcredits start\tend\tper 1k steps\tcontracts\tinvalid\tfailed\trequests\tprompt tok\tcached\tcompl tok\tcost\twall s\t")
	for _, p := range rep.Profiles {
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.0f\t%.0f\t%.0f\t%.1f\t%.1f\t%.1f\t%.0f\t%.0f\t%s\t%.0f\t%s\t%.1f\t\n", p.Profile+"@"+p.Version, p.Episodes, p.Steps,
			p.CreditsStart, p.CreditsEnd, p.CreditsPer1000, p.ContractsFulfilled, p.InvalidCalls, p.FailedCalls,
			p.GameRequests, p.PromptTokens, cachedText(p.CachedTokens, p.PromptTokens), p.CompletionTokens, costText(p.Cost, p.CostUpper), p.WallSeconds)
	}
	tw.Flush()
	if hasUpperCost(rep) {
		fmt.Fprintln(w, "\n≤ $x: the model has no cached_prompt price in [prices], so cached tokens count at the prompt price; the real bill is at most this.")
	}
}

// progress draws a bar of steps done on a terminal's stderr; elsewhere it is silent.
type progress struct {
	w      io.Writer
	total  int
	n      atomic.Int64
	stop   chan struct{}
	wg     sync.WaitGroup
	active bool
}

func newProgress(w io.Writer, total int) *progress {
	p := &progress{w: w, total: total, stop: make(chan struct{})}
	f, ok := w.(*os.File)
	if !ok {
		return p
	}
	if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return p
	}
	p.active = true
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				p.draw()
				fmt.Fprintln(p.w)
				return
			case <-t.C:
				p.draw()
			}
		}
	}()
	return p
}

func (p *progress) step() { p.n.Add(1) }

func (p *progress) draw() {
	const width = 40
	n := min(int(p.n.Load()), p.total)
	filled := width * n / max(p.total, 1)
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d steps", strings.Repeat("#", filled), strings.Repeat(".", width-filled), n, p.total)
}

func (p *progress) done() {
	if p.active {
		close(p.stop)
		p.wg.Wait()
	}
}

// writeEvalOut writes eval.json, report.md and credits.png to dir.
func writeEvalOut(dir string, rep evalReport, steps int, args []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	sec := secrets()
	if err := os.WriteFile(filepath.Join(dir, "eval.json"), scrub(append(data, '\n'), sec), 0o644); err != nil {
		return err
	}
	if err := drawCreditsChart(filepath.Join(dir, "credits.png"), rep, steps); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# coplay eval\n\n`coplay eval %s`\n\n", strings.Join(args, " "))
	b.WriteString("## Profiles (means over episodes)\n\n")
	b.WriteString("| profile | episodes | steps | credits start | credits end | per 1k steps | contracts | invalid | failed | requests | prompt tokens | cached tokens | completion tokens | cost | wall s |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, p := range rep.Profiles {
		fmt.Fprintf(&b, "| %s@%s | %d | %.0f | %.0f | %.0f | %.0f | %.1f | %.1f | %.1f | %.0f | %.0f | %s | %.0f | %s | %.1f |\n",
			p.Profile, p.Version, p.Episodes, p.Steps, p.CreditsStart, p.CreditsEnd, p.CreditsPer1000, p.ContractsFulfilled,
			p.InvalidCalls, p.FailedCalls, p.GameRequests, p.PromptTokens, cachedText(p.CachedTokens, p.PromptTokens), p.CompletionTokens,
			costText(p.Cost, p.CostUpper), p.WallSeconds)
	}
	b.WriteString("\n![credits over steps](credits.png)\n\n## Episodes\n\n")
	b.WriteString("| profile | seed | steps | credits start | credits end | per 1k steps | contracts | invalid | failed | requests | prompt tokens | cached tokens | completion tokens | cost | wall s |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, e := range rep.Episodes {
		fmt.Fprintf(&b, "| %s@%s | %d | %d | %d | %d | %.0f | %d | %d | %d | %d | %d | %s | %d | %s | %.1f |\n",
			e.Profile, e.Version, e.Seed, e.Steps, e.CreditsStart, e.CreditsEnd, e.CreditsPer1000, e.ContractsFulfilled,
			e.InvalidCalls, e.FailedCalls, e.GameRequests, e.PromptTokens, cachedText(float64(e.CachedTokens), float64(e.PromptTokens)),
			e.CompletionTokens, costText(e.Cost, e.CostUpper), e.WallSeconds)
	}
	for _, e := range rep.Episodes {
		if e.Error != "" {
			fmt.Fprintf(&b, "\n- %s seed %d ended early: %s\n", e.Profile, e.Seed, e.Error)
		}
	}
	b.WriteString("\nCounts: contracts are successful fulfill_contract calls; invalid calls failed schema validation and never ran; failed calls ran and the game refused them (or their outcome was lost); requests are HTTP requests that reached the game server; cached tokens are the prompt tokens the provider served from its prompt cache (with their share of the prompt tokens). Costs use the config file's [prices]; a model without a price is \"cost unknown\", and a cost marked ≤ counts cached tokens at the prompt price (the model has no cached_prompt price): the real bill is at most that.\n")
	return os.WriteFile(filepath.Join(dir, "report.md"), scrub([]byte(b.String()), sec), 0o644)
}

// hasUpperCost reports whether some cost in rep is an upper bound.
func hasUpperCost(rep evalReport) bool {
	for _, e := range rep.Episodes {
		if e.Cost != nil && e.CostUpper {
			return true
		}
	}
	return false
}

// scrub replaces every secret (8 bytes or longer) in data.
func scrub(data []byte, secrets []string) []byte {
	s := string(data)
	for _, k := range secrets {
		if len(k) >= 8 {
			s = strings.ReplaceAll(s, k, "[REDACTED]")
		}
	}
	return []byte(s)
}
