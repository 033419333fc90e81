package agent

import (
	"encoding/json"
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/notes/record"
)

// EventType names an event. The strings are stable: they are journal record types and
// the "type" of headless JSON events (docs/PROTOCOL.md). Each journaled one is defined
// once, by the journal's format (notes/record); the agent names it here.
type EventType string

// Event types, in the order a step usually produces them.
const (
	EventStarted        = EventType(record.TypeStarted)        // the runner started or resumed; Text says with which brain and game
	EventObservation    = EventType(record.TypeObservation)    // Observation is the new world state
	EventStep           = EventType(record.TypeStep)           // a step began; Step is its number
	EventTextDelta      = EventType("text_delta")              // Text is a piece of the model's streaming text (never journaled: not a record type)
	EventText           = EventType(record.TypeText)           // Text is the model's whole message for this step
	EventThinking       = EventType(record.TypeThinking)       // Text is the model's reasoning for this step (shown dimmed; never sent back)
	EventProposed       = EventType(record.TypeProposed)       // Call is a call the brain asked for (validated; see Call.Problems)
	EventDecision       = EventType(record.TypeDecision)       // Decision is what was decided about a call
	EventToolStart      = EventType(record.TypeToolStart)      // Call is about to run
	EventResult         = EventType(record.TypeResult)         // Call finished; Result is its outcome
	EventAdvice         = EventType(record.TypeAdvice)         // Text is advice from the person, now queued; Via says where it was given
	EventNotes          = EventType(record.TypeNotes)          // Notes is the notebook after a change
	EventWaiting        = EventType(record.TypeWaiting)        // Wait says until when and why; zero Until means the wait ended
	EventUsage          = EventType(record.TypeUsage)          // Usage is what the last model call cost
	EventError          = EventType(record.TypeError)          // Text is a problem the person should see
	EventTurnLimit      = EventType(record.TypeTurnLimit)      // the turn hit its iteration cap; Text says so
	EventState          = EventType(record.TypeState)          // State is running, paused, waiting_for_decision, waiting, idle or stopped; Text says why
	EventOutcomeUnknown = EventType(record.TypeOutcomeUnknown) // Call was running when coplay stopped last time; it is not run again
	EventRules          = EventType(record.TypeRules)          // Rules is the session's approval rules (canonical lines) at start and after a rule, unrule or allow command
	EventToolUpdated    = EventType(record.TypeToolUpdated)    // Call (same ID, still waiting) has a new Simulation (the world changed) and/or new Args (revise)
	EventCatalog        = EventType(record.TypeCatalog)        // Catalog: tools were added to what the model is sent whole (load_tools, or a call to a tool not loaded)
	EventKeepPlaying    = EventType(record.TypeKeepPlaying)    // KeepPlaying says whether play is handed over (at start when on, and at each change)
	EventTrigger        = EventType(record.TypeTrigger)        // Trigger is something in the game that wakes the agent (a message, a battle that starts)
	EventNotice         = EventType(record.TypeNotice)         // Text is the runner's word to the person: at start (Config.Notice: a fork whose world has moved on), and when a screen connects or leaves over SSH (Runner.Notice)
	EventLoop           = EventType(record.TypeLoop)           // Call is a call the model repeated with the same result until play paused (loop.go); Text says so
	// A game's server asks the person (ask.go, sampling.go, progress.go).
	EventElicitation = EventType(record.TypeElicitation) // Elicitation: a question for the person, waiting for an answer command
	EventAnswered    = EventType(record.TypeAnswered)    // Elicitation: the answer sent back (or the question withdrawn)
	EventSampling    = EventType(record.TypeSampling)    // Sampling: a request to use the model, waiting for an answer command
	EventSampled     = EventType(record.TypeSampled)     // Sampling: the request's decision, then the model's answer
	EventProgress    = EventType(record.TypeProgress)    // Progress: how far the running call has come
	EventServerLog   = EventType(record.TypeServerLog)   // ServerLog: a log line of the game's server
	// The person plays too (person.go): their own moves are tool_started and tool_result
	// events whose Call.By is "person"; these say who plays and what they asked.
	EventWheel    = EventType(record.TypeWheel)    // Plays says who plays now: "person" (the person holds the wheel: no model request, no autopilot step) or "agent"
	EventQuestion = EventType(record.TypeQuestion) // Text is a question from the person to the agent, answered in words (a reply event)
	EventReply    = EventType(record.TypeReply)    // Text is the agent's answer in words to the person's question
)

// Event is one thing that happened, sent to the UI or the headless consumer and
// recorded in the journal (except text deltas).
type Event struct {
	Seq  uint64    `json:"seq"`
	Time time.Time `json:"time"`
	Type EventType `json:"type"`
	Step int       `json:"step,omitempty"`
	// Seat is the league seat the event belongs to ("" outside a league). A runner never
	// sets it, so its journal is a lone session's; package league stamps it.
	Seat string `json:"seat,omitempty"`

	Text string `json:"text,omitempty"`
	// Via says where advice was given (EventAdvice), a question asked (EventQuestion)
	// or the person's own move played (its EventToolStart), as Decision.Via does for a
	// decision: "screen", "stdin", "attach", "ssh:KEY". Empty in older journals.
	Via         string            `json:"via,omitempty"`
	Call        *Call             `json:"call,omitempty"`
	Decision    *Decision         `json:"decision,omitempty"`
	Result      *game.Result      `json:"result,omitempty"`
	Observation *game.Observation `json:"observation,omitempty"`
	Notes       *NotesView        `json:"notes,omitempty"`
	Wait        *game.Wait        `json:"wait,omitempty"`
	Usage       *Usage            `json:"usage,omitempty"`
	State       State             `json:"state,omitempty"`
	Rules       []string          `json:"rules,omitempty"`        // EventRules: the session's rules, canonical (config and profile rules are not listed)
	Catalog     *CatalogView      `json:"catalog,omitempty"`      // EventCatalog, and at start when the catalogue is too long to send whole
	KeepPlaying *bool             `json:"keep_playing,omitempty"` // EventKeepPlaying: play handed over (true) or not
	Trigger     *game.Trigger     `json:"trigger,omitempty"`      // EventTrigger: what happened in the game
	Elicitation *Elicitation      `json:"elicitation,omitempty"`  // EventElicitation, EventAnswered
	Sampling    *Sampling         `json:"sampling,omitempty"`     // EventSampling, EventSampled
	Progress    *Progress         `json:"progress,omitempty"`     // EventProgress
	ServerLog   *game.LogLine     `json:"server_log,omitempty"`   // EventServerLog
	Plays       string            `json:"plays,omitempty"`        // EventWheel: PlaysPerson or PlaysAgent
}

// Who plays, as EventWheel says.
const (
	PlaysPerson = "person" // the person holds the wheel: the agent neither asks its model nor steps
	PlaysAgent  = "agent"  // the agent plays (the person may still play moves of their own)
)

// ByPerson is Call.By and Decision.By for what the person did themselves.
const ByPerson = record.ByPerson

// Call is a tool call as the person sees it.
type Call struct {
	ID         string           `json:"id"`
	Tool       string           `json:"tool"`
	Args       json.RawMessage  `json:"args"`
	Kind       game.Kind        `json:"kind"`
	Problems   []game.Problem   `json:"problems,omitempty"`   // validation failures: the call will not run
	FromText   bool             `json:"from_text,omitempty"`  // read from the model's text, not a native tool call
	Why        string           `json:"why,omitempty"`        // the brain's reason for this call alone, when it gives one
	Simulation *game.Simulation `json:"simulation,omitempty"` // dry run, when the game can predict
	NeedsOK    bool             `json:"needs_ok"`             // the runner waits for a decision on this call
	// Deferred: a rule with a condition may decide this call, on a dry run of the world
	// as it is when its turn comes (earlier calls of the step have not run yet). When it
	// comes, a decision follows, or tool_updated with needs_ok true if the person decides.
	Deferred bool `json:"deferred,omitempty"`
	// By is "person" on the tool_started and tool_result of the person's own move (the
	// play command): nobody proposed it and nobody decided it. Empty for the model's
	// calls.
	By string `json:"by,omitempty"`
}

// Verdict is a decision about a call.
type Verdict string

// Verdicts. Auto is the runner's own, for tools that need no approval.
const (
	Approve Verdict = "approve"
	Veto    Verdict = record.Veto
	Edit    Verdict = "edit"
	Auto    Verdict = "auto"
)

// Decision is what was decided about one call.
type Decision struct {
	CallID   string          `json:"call_id"`
	Decision Verdict         `json:"decision"`
	Reason   string          `json:"reason,omitempty"` // veto reason
	Args     json.RawMessage `json:"args,omitempty"`   // edit: the new arguments
	By       string          `json:"by,omitempty"`     // "person", "rule" (an approval rule), "policy" (--approve all, read tools)
	Rule     string          `json:"rule,omitempty"`   // by "rule": the rule that decided, canonical
	// Via says where a person's decision was made: "screen", "stdin" (headless),
	// "attach" (a second coplay on this machine), "ssh:KEY" (a screen over SSH, by its
	// key's SHA256 fingerprint with its comment beside it). Empty for rules and policy,
	// and in journals written before it was recorded.
	Via string `json:"via,omitempty"`
}

// CatalogView says how much of the catalogue the model is sent whole.
type CatalogView struct {
	Loaded int      `json:"loaded"`          // tools sent whole with each request
	Total  int      `json:"total"`           // tools in the catalogue
	Added  []string `json:"added,omitempty"` // EventCatalog: the tools just loaded
}

// NotesView is the notebook as the screen shows it.
type NotesView struct {
	Text    string     `json:"text"`
	Version int        `json:"version"`
	Plan    []PlanStep `json:"plan,omitempty"`
}

// PlanStep is one step of the plan.
type PlanStep struct {
	ID     int    `json:"id"`
	Text   string `json:"text"`
	Status string `json:"status"` // todo, doing, done, dropped
}

// State is what the runner is doing.
type State string

// Runner states.
const (
	Running  State = "running"
	Paused   State = "paused"
	Deciding State = "waiting_for_decision"
	Sleeping State = "waiting"
	// Idle means the turn is over and nothing is timed: the runner waits for advice or
	// resume. Text says why the turn ended.
	Idle    State = "idle"
	Stopped State = "stopped"
	// PersonPlays means the person holds the wheel (take_over, or a league seat of
	// the person's): no model request and no autopilot step until it is handed back.
	// The world is still observed, triggers still arrive, moves and questions are
	// taken at once.
	PersonPlays State = "person_plays"
)

// CommandType names a command to the runner.
type CommandType string

// Commands. The strings are the headless "cmd" values (docs/PROTOCOL.md).
const (
	CmdDecide CommandType = "decide" // CallID, Decision, Reason, Args
	CmdAdvise CommandType = "advise" // Text
	CmdPause  CommandType = "pause"
	CmdResume CommandType = "resume"
	CmdStop   CommandType = "stop"
	CmdAllow  CommandType = "allow" // Tool, Allow: the rule "allow TOOL" added (or removed)
	// CmdRule adds an approval rule (Rule, one line: allow|ask|deny TOOL[(FIELD=GLOB, ...)]
	// [if EFFECT OP NUMBER [and ...]] [: REASON]) to the session.
	CmdRule CommandType = "rule"
	// CmdUnrule removes a session rule (Rule), matched on its canonical form.
	CmdUnrule CommandType = "unrule"
	// CmdRevise replaces a waiting call's arguments (CallID, Args) without deciding it: the
	// runner validates them, runs a new dry run and sends tool_updated; the call waits for
	// a decision again, and approving it then runs it as an edit.
	CmdRevise CommandType = "revise"
	// CmdKeepPlaying hands play over (On true) or takes it back: see Config.KeepPlaying.
	CmdKeepPlaying CommandType = "keep_playing"
	// CmdAnswer answers a game's question (ID, Action accept|decline|cancel, Content for
	// an accepted form) or sampling request (accept|decline): see ask.go.
	CmdAnswer CommandType = "answer"
	// CmdPlay is the person's own move (Tool, Args, Force): validated like an edit,
	// then run through the same path as an approved call, with no proposal and no
	// decision; a deny rule refuses it unless Force. See person.go.
	CmdPlay CommandType = "play"
	// CmdTakeOver takes the wheel (On true: no model request, no autopilot step) or
	// hands it back (false).
	CmdTakeOver CommandType = "take_over"
	// CmdAsk asks the agent a question (Text), answered in words with no call.
	CmdAsk CommandType = "ask"
)

// Command is an instruction from the person to the runner.
type Command struct {
	Cmd      CommandType     `json:"cmd"`
	CallID   string          `json:"call_id,omitempty"`
	Decision Verdict         `json:"decision,omitempty"`
	Reason   string          `json:"reason,omitempty"`
	Args     json.RawMessage `json:"args,omitempty"`
	Text     string          `json:"text,omitempty"`
	Tool     string          `json:"tool,omitempty"`
	Allow    bool            `json:"allow,omitempty"`
	Rule     string          `json:"rule,omitempty"`
	On       bool            `json:"on,omitempty"`      // keep_playing, take_over
	Force    bool            `json:"force,omitempty"`   // play: despite a deny rule
	ID       string          `json:"id,omitempty"`      // answer: the question
	Action   string          `json:"action,omitempty"`  // answer: accept, decline, cancel
	Content  json.RawMessage `json:"content,omitempty"` // answer: an accepted form's fields
	// Seat is the league seat the command is for ("" outside a league; in one, pause,
	// resume, stop and rule without a seat are for every seat). A runner ignores it.
	Seat string `json:"seat,omitempty"`
	// Via is where the command was given (Decision.Via). It is set by whoever carries
	// the command to the runner, never read from a command's JSON, so a client cannot
	// claim to be another.
	Via string `json:"-"`
}
