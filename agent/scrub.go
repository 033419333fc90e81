package agent

import (
	"encoding/json"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/secret"
)

// Redacted replaces a secret in what the runner passes on.
const Redacted = secret.Redacted

// scrubber applies the one secret rule (package secret) to the game's types: text that
// came from the game or a failure is scrubbed before it is emitted (screen, journal) or
// handed to the model.
type scrubber struct{ s *secret.Scrubber }

// newScrubber is the runner's scrubber: s (a new one when nil) with secrets added.
func newScrubber(s *secret.Scrubber, secrets []string) scrubber {
	if s == nil {
		s = secret.New()
	}
	s.Add(secrets...)
	return scrubber{s}
}

// text returns t with every secret replaced.
func (s scrubber) text(t string) string { return s.s.String(t) }

// texts returns ts with every secret replaced, in a new slice (nil for none).
func (s scrubber) texts(ts []string) []string {
	if len(ts) == 0 {
		return ts
	}
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = s.text(t)
	}
	return out
}

// json returns raw JSON with every secret replaced inside its strings.
func (s scrubber) json(raw json.RawMessage) json.RawMessage { return s.s.JSON(raw) }

// SecretError refuses a call whose arguments hold the value of a secret coplay holds
// (a model's key, a game's token): it is never sent, whoever wrote it.
type SecretError struct {
	Tool string
	Name string // the secret's name: "OPENAI_API_KEY", "the game's token", "a secret"
}

// Error says which secret, in the words the model and the person read.
func (e *SecretError) Error() string {
	return "arguments hold the value of " + e.Name + "; not sent"
}

// problem is the refusal as a validation problem, for the proposal event.
func (e *SecretError) problem() game.Problem {
	return game.Problem{Path: "arguments", Expected: "no secret's value (coplay never sends one)",
		Got: "the value of " + e.Name, Hint: "leave the key or token out: the game is reached with it already"}
}

// held returns a *SecretError when args hold a secret's value, in any of the forms it
// travels in, or nil.
func (s scrubber) held(tool string, args []byte) error {
	if name, ok := s.s.Find(string(args)); ok {
		return &SecretError{Tool: tool, Name: name}
	}
	return nil
}

// result scrubs what a game returned.
func (s scrubber) result(r game.Result) game.Result {
	if s.s.Empty() {
		return r
	}
	r.Output = s.text(r.Output)
	if r.Err != nil {
		e := *r.Err
		e.Message = s.text(e.Message)
		e.Data = s.s.JSON(e.Data)
		r.Err = &e
	}
	if r.Wait != nil {
		w := *r.Wait
		w.Reason = s.text(w.Reason)
		r.Wait = &w
	}
	return r
}

// observation scrubs the text of an observation.
func (s scrubber) observation(o game.Observation) game.Observation {
	if s.s.Empty() {
		return o
	}
	o.Summary = s.text(o.Summary)
	o.IdleReason = s.text(o.IdleReason)
	if len(o.Timers) > 0 {
		timers := make([]game.Timer, len(o.Timers))
		for i, t := range o.Timers {
			t.Label = s.text(t.Label)
			timers[i] = t
		}
		o.Timers = timers
	}
	return o
}
