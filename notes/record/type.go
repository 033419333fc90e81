package record

// Type names a record: the agent event it journals. The strings are stable: they are
// stored in every notebook and are the "type" of the headless protocol's events
// (docs/PROTOCOL.md). A type is added, never renamed or removed; the agent's EventType
// constants are these (agent/event.go).
type Type string

// Record types, in the order a step usually produces them. What each one's data holds
// is Encode's.
const (
	TypeStarted        Type = "started"              // the runner started or resumed; text says with which brain and game
	TypeObservation    Type = "observation"          // the world the step sees, as what changed since the last one (Observation)
	TypeStep           Type = "step"                 // a step began; the record's Step is its number
	TypeText           Type = "text"                 // the model's whole message for the step
	TypeThinking       Type = "thinking"             // the model's reasoning for the step (never sent back)
	TypeProposed       Type = "tool_proposed"        // a call the brain asked for (Call), awaiting a decision
	TypeDecision       Type = "decision"             // what was decided about a call (Decision)
	TypeToolStart      Type = "tool_started"         // the call is about to run: a call decided but never started did not run
	TypeResult         Type = "tool_result"          // the call finished, successfully or with a game error
	TypeAdvice         Type = "advice"               // advice from the person, queued for the next step
	TypeNotes          Type = "notes_changed"        // the notes or plan changed (Notes)
	TypeWaiting        Type = "waiting"              // the runner waits until a time, or its wait ended
	TypeUsage          Type = "usage"                // what a model call cost
	TypeError          Type = "error"                // a problem the person should see
	TypeTurnLimit      Type = "turn_limit"           // the turn hit its iteration cap
	TypeState          Type = "state"                // the runner's state changed
	TypeOutcomeUnknown Type = "outcome_unknown"      // closes a call that was running when coplay stopped: it is not run again
	TypeRules          Type = "rules_changed"        // the session's approval rules (Rules)
	TypeToolUpdated    Type = "tool_updated"         // a waiting call has a new dry run or new arguments (Call)
	TypeCatalog        Type = "tools_loaded"         // tools were added to what the model is sent whole
	TypeKeepPlaying    Type = "keep_playing"         // play was handed over, or taken back
	TypeTrigger        Type = "trigger"              // something in the game woke the agent
	TypeNotice         Type = "notice"               // the runner's word to the person
	TypeLoop           Type = "loop"                 // a call the model repeated with the same result until play paused
	TypeElicitation    Type = "elicitation"          // a game's server asks the person a question
	TypeAnswered       Type = "elicitation_answered" // the answer sent back, or the question withdrawn
	TypeSampling       Type = "sampling"             // a game's server asks to use the model
	TypeSampled        Type = "sampling_answered"    // the request's decision, then the model's answer
	TypeProgress       Type = "progress"             // how far the running call has come
	TypeServerLog      Type = "server_log"           // a log line of the game's server
	TypeWheel          Type = "wheel"                // who plays: the person took the wheel (plays "person") or handed it back
	TypeQuestion       Type = "question"             // the person asked the agent a question (text)
	TypeReply          Type = "reply"                // the agent's answer in words to the person's question (text)
)

// ByPerson is a call's By on the start of the person's own move (play): nobody
// proposed it and nobody decided it.
const ByPerson = "person"

// Veto is the verdict of a decision that does not let its call run; every other
// (approve, edit, auto) does.
const Veto = "veto"
