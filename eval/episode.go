package eval

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/config"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/notes"
)

// Setup is one episode's game and brain, ready to play. The caller builds it from a
// profile (Job.Open); Play runs it and measures it.
type Setup struct {
	// Game is what the runner plays, wrapped with the profile's settings.
	Game game.Game
	// Brain plays it.
	Brain agent.Brain
	// Kind is the brain's kind for the session: "autopilot", "script" or "model".
	Kind string
	// Config holds the profile's runner settings (MaxIterations, HistorySteps, Rules);
	// Play sets Game, Brain, Session, MaxSteps and ApproveAll itself.
	Config agent.Config
	// Record writes the profile into the episode's session; may be nil.
	Record func(*notes.Session) error
	// Requests returns how many requests reached the game server so far; may be nil.
	Requests func() int64
	// Look observes the game once more after the run, outside the count of the brain's
	// requests (the last step's calls changed the score after its observation); may be nil.
	Look func(ctx context.Context) (game.Observation, error)
	// Price is the model's price; nil when it has none (or the brain is no model).
	Price *config.Price
	// Triggered says the game wakes the agent itself (game.Triggers): a turn that ended
	// then waits for the world's next event instead of going on at once.
	Triggered bool
	// Secrets are scrubbed from the episode's notebook.
	Secrets []string
	// Close releases the game and the brain; may be nil.
	Close func()
}

// Job is one episode to play: a profile on a seed.
type Job struct {
	Profile, Version string
	Seed             int64
	Steps            int
	// Game names the game for the episode's session ("universe").
	Game string
	// Metric is the observation metric the episode is scored by ("credits").
	Metric string
	// From is the session step the world was restored from (NAME@STEP; "" = a new
	// world of Seed).
	From string
	// Open builds the episode's game and brain.
	Open func(ctx context.Context) (*Setup, error)
}

// Episode is what one profile did on one seed.
type Episode struct {
	Profile string `json:"profile"`
	Version string `json:"version"`
	Seed    int64  `json:"seed"`
	From    string `json:"from,omitempty"` // the session step its world was restored from (NAME@STEP)
	Steps   int    `json:"steps"`
	// Score names the observation metric the game scores a player by ("credits" for
	// SpaceTraders, "score" for the arena); ScoreStart, ScoreEnd and ScorePer1000 are it
	// at the first observation, after the last step, and its change per 1000 steps.
	Score        string  `json:"score"`
	ScoreStart   float64 `json:"score_start"`
	ScoreEnd     float64 `json:"score_end"`
	ScorePer1000 float64 `json:"score_per_1000_steps"`
	// The credits fields are the score of a game scored by credits (SpaceTraders), kept
	// under the names eval has always printed; zero for other games.
	CreditsStart       int64   `json:"credits_start"`
	CreditsEnd         int64   `json:"credits_end"`
	CreditsPer1000     float64 `json:"credits_per_1000_steps"`
	ContractsFulfilled int     `json:"contracts_fulfilled"`
	InvalidCalls       int     `json:"invalid_calls"`
	FailedCalls        int     `json:"failed_calls"`
	// ModelFailures counts the steps whose model call failed (a cut stream, a timeout
	// after the brain's retries): they used no tokens the server reported.
	ModelFailures int `json:"model_failures"`
	// ModelError is what the first failed model call said (an endpoint that refuses
	// connections, a wrong key), so an eval of a dead endpoint says why, not only 0 tokens.
	ModelError   string `json:"model_error,omitempty"`
	GameRequests int64  `json:"game_requests"`
	PromptTokens int64  `json:"prompt_tokens"`
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

	credits []creditPoint // the score over steps, for the chart
}

// creditPoint is the score seen at a step.
type creditPoint struct {
	step    int
	credits float64
}

// Run plays jobs, parallel at a time, and returns their episodes in the order of jobs.
// onStep is called for every step played, from any goroutine.
func Run(ctx context.Context, jobs []Job, parallel int, onStep func()) []Episode {
	return runAll(ctx, jobs, parallel, onStep, Play)
}

// runAll plays jobs with play, parallel at a time, and returns what each gave in the
// order of jobs.
func runAll[J, E any](ctx context.Context, jobs []J, parallel int, onStep func(), play func(context.Context, J, func()) E) []E {
	out := make([]E, len(jobs))
	sem := make(chan struct{}, max(parallel, 1))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i] = play(ctx, j, onStep)
		}()
	}
	wg.Wait()
	return out
}

// Play plays one job in its own game and notebook, with every call approved, and
// measures it from the runner's events. It is a league of one seat, played as a league
// episode's seats are (playSeats), as coplay run plays a lone run.
func Play(ctx context.Context, j Job, onStep func()) (ep Episode) {
	ep = Episode{Profile: j.Profile, Version: j.Version, Seed: j.Seed, From: j.From, Score: cmp.Or(j.Metric, "credits")}
	start := time.Now()
	defer func() { ep.WallSeconds = time.Since(start).Seconds() }()
	fail := func(err error) Episode { ep.Error = err.Error(); return ep }

	dir, err := os.MkdirTemp("", "coplay-eval-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(dir)
	st, err := j.Open(ctx)
	if err != nil {
		return fail(err)
	}
	if st.Close != nil {
		defer st.Close()
	}
	book, err := notes.Open(filepath.Join(dir, "eval.db"), nil)
	if err != nil {
		return fail(err)
	}
	defer book.Close()
	book.Redact(st.Secrets...)
	if err := playSeats(ctx, book, j, []*seatRun{{st: st, m: meter{ep: &ep, metric: ep.Score, onStep: onStep, triggered: st.Triggered}}}); err != nil {
		return fail(err)
	}
	return ep
}

// newRunner creates the session name in book and a runner over st in it, its calls
// waiting in gate (nil: a queue of its own).
func newRunner(book *notes.Book, name string, j Job, st *Setup, gate *agent.Gate) (*agent.Runner, error) {
	sess, err := book.Create(name, cmp.Or(j.Game, "universe"), st.Kind)
	if err == nil && st.Record != nil {
		err = st.Record(sess)
	}
	if err != nil {
		return nil, err
	}
	cfg := st.Config
	cfg.Game, cfg.Brain, cfg.Session, cfg.MaxSteps, cfg.ApproveAll, cfg.Gate = st.Game, st.Brain, sess, j.Steps, true, gate
	return agent.New(cfg)
}

// meter counts an episode from the runner's events.
type meter struct {
	ep        *Episode
	metric    string
	onStep    func()
	triggered bool // the game wakes the agent: an idle turn waits for it
}

// event counts one event, and keeps the run going as nobody sits at an eval: send
// gives the seat a command.
func (m meter) event(send func(agent.Command) error, ev agent.Event) {
	ep := m.ep
	switch ev.Type {
	case agent.EventStep:
		ep.Steps++
		m.onStep()
	case agent.EventObservation:
		if c, ok := metricOf(ev.Observation, m.metric); ok {
			if len(ep.credits) == 0 {
				ep.ScoreStart = c
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
			if ep.ModelError == "" {
				ep.ModelError = ev.Text
			}
		}
	case agent.EventUsage:
		if ev.Usage != nil {
			ep.PromptTokens += int64(ev.Usage.PromptTokens)
			ep.CachedTokens += int64(ev.Usage.CachedTokens)
			ep.CompletionTokens += int64(ev.Usage.CompletionTokens)
		}
	case agent.EventLoop:
		// The model repeats a call that answers the same and play paused for a person,
		// who is not there: the episode ends, saying why.
		ep.Error = "the model was stuck: " + ev.Text
		_ = send(agent.Command{Cmd: agent.CmdStop})
	case agent.EventState:
		// Nobody sits at an eval: a turn that ended goes on at once, as if the person
		// pressed resume, unless the game wakes the agent itself. Calls never wait
		// (every call is approved).
		switch ev.State {
		case agent.Idle:
			if m.triggered {
				return
			}
			_ = send(agent.Command{Cmd: agent.CmdResume})
		case agent.Deciding:
			ep.Error = "a call waited for a person: " + ev.Text
			_ = send(agent.Command{Cmd: agent.CmdStop})
		}
	}
}

// finish takes the last look, the score's end and rate, and the cost.
func (m meter) finish(ctx context.Context, st *Setup) {
	ep := m.ep
	if st.Requests != nil {
		ep.GameRequests = st.Requests()
	}
	if st.Look != nil {
		if obs, err := st.Look(context.WithoutCancel(ctx)); err == nil {
			if c, ok := metricOf(&obs, m.metric); ok {
				ep.credits = append(ep.credits, creditPoint{step: ep.Steps, credits: c})
			}
		}
	}
	if n := len(ep.credits); n > 0 {
		ep.ScoreEnd = ep.credits[n-1].credits
	}
	if ep.Steps > 0 {
		ep.ScorePer1000 = (ep.ScoreEnd - ep.ScoreStart) * 1000 / float64(ep.Steps)
	}
	if ep.Score == "credits" {
		ep.CreditsStart, ep.CreditsEnd = int64(ep.ScoreStart), int64(ep.ScoreEnd)
		ep.CreditsPer1000 = float64(ep.CreditsEnd-ep.CreditsStart) * 1000 / float64(max(ep.Steps, 1))
		if ep.Steps == 0 {
			ep.CreditsPer1000 = 0
		}
	}
	switch {
	case ep.PromptTokens == 0 && ep.CompletionTokens == 0:
		zero := 0.0 // no model call: nothing was spent
		ep.Cost = &zero
	case st.Price != nil:
		c, upper := st.Price.Cost(ep.PromptTokens, ep.CachedTokens, ep.CompletionTokens)
		ep.Cost, ep.CostUpper = &c, upper
	}
}

// metricOf reads the metric named name of an observation.
func metricOf(obs *game.Observation, name string) (float64, bool) {
	if obs == nil {
		return 0, false
	}
	for _, m := range obs.Metrics {
		if m.Name == name {
			return m.Value, true
		}
	}
	return 0, false
}
