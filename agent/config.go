package agent

import (
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/notes"
	"github.com/coplayhq/coplay/secret"
)

// Defaults for Config fields left zero.
const (
	DefaultMaxIterations = 10
	DefaultHistorySteps  = 24
	// FailureLimit is how many times in a row the same call (tool and arguments) may
	// fail before the runner ends the turn and tells the person.
	FailureLimit = 3
)

// Config is what a Runner plays with.
type Config struct {
	Game          game.Game
	Brain         Brain
	Session       *notes.Session
	MaxIterations int  // steps per turn; 0 = DefaultMaxIterations
	MaxSteps      int  // stop after this many steps of this run (steps that observed the world); 0 = no limit (headless --steps)
	ApproveAll    bool // --approve all: Act calls run without asking
	HistorySteps  int  // the most steps kept verbatim in the prompt (when full, all but the newest quarter fold into the summary at once); 0 = DefaultHistorySteps
	Now           func() time.Time
	// SaveState, if set, returns the game's state; it is saved to the session after each
	// executed Act call and when the run stops.
	SaveState func() ([]byte, error)
	// Secrets (API tokens, keys) are replaced by Redacted in everything from the game or
	// a failure (results, observations, dry runs, waits, error text) before it is
	// emitted, journaled or handed to the model. Secrets shorter than 8 bytes are ignored.
	Secrets []string
	// PromptBudget is the most characters a prompt may have (0 = DefaultPromptBudget,
	// sized for a 32k-token model): older steps are dropped, then long messages cut.
	PromptBudget int
	// Rules are approval rules from config.toml and the profile. They apply with the
	// session's own rules but are not written into the session. New refuses a rule that
	// does not parse or names a tool the catalogue does not have.
	Rules []FixedRule
	// KeepPlaying starts the run with play handed over (see unattended.go): an answer
	// without calls costs a pause rather than ending the turn, and the per-turn cap
	// does not apply. The command line sets it with --approve all; the person toggles
	// it with CmdKeepPlaying.
	KeepPlaying bool
	// QuietPause is the first pause after a step that did nothing while play is
	// handed over (0 = DefaultQuietPause); it doubles with each such step in a row.
	QuietPause time.Duration
	// MaxRunTokens and MaxRunCost are this run's spend caps (0 = none): once the
	// tokens (prompt and completion) or the cost in dollars reach them, the run stops
	// before the next model call, saying which cap and what was spent. A resumed
	// session starts with a fresh budget.
	MaxRunTokens int64
	MaxRunCost   float64
	// ToolBudget is the most characters of tool definitions sent with a request (0 =
	// catalog.DefaultBudget): a catalogue over it is sent in part, with an index of the
	// rest that the model loads from (load_tools). Pinned tools are always sent whole.
	ToolBudget int
	Pinned     []string
	// ContextWindow is the model's context in tokens (0 = unknown: the defaults, sized
	// for a 32k-token model). The prompt, the tools and the tool index are sized so that
	// a request and its answer fit in it (window.go); a brain that learns the window
	// itself (Preparer) sets it when this is 0.
	ContextWindow int
	// CallTimeout is how long one game call (a tool call, an observation, a dry run) may
	// run before it is cancelled and journaled as outcome unknown (0 =
	// DefaultCallTimeout; deadline.go).
	CallTimeout time.Duration
	// Scrubber is the one scrubber (package secret) of every secret the process holds,
	// each named ("OPENAI_API_KEY", "the game's token"): scrubbed from everything the
	// runner sends the model, the game, the journal and the reader, and a call whose
	// arguments hold one is refused before the gate, naming it (scrub.go). Secrets
	// are added to it. nil: a scrubber of Secrets alone.
	Scrubber *secret.Scrubber
	// StepObserved, if set, is called after each step has observed the world (a fork
	// releases its held clock there: the first observation shows the world as it was).
	StepObserved func(step int)
	// Gate is the approval queue this runner's calls wait in (gate.go), shared with
	// other runners that play the same world; nil: a queue of its own.
	Gate *Gate
	// Notice, when set, is said once at the start: to the person as a notice event and
	// to the model at the first step (a fork of a live game: the world has moved on).
	Notice string
	// Person makes this runner a league seat of the person's own (--seat NAME=person):
	// no model and no autopilot (Brain may be nil), the wheel held for good; it plays
	// only the person's moves, and shows the world and the triggers that reach it.
	Person bool
}
