package agent

import (
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/secret"
)

// Redacted replaces a secret in what the runner passes on.
const Redacted = secret.Redacted

// scrubber applies the one secret rule (package secret) to the game's types: text that
// came from the game or a failure is scrubbed before it is emitted (screen, journal) or
// handed to the model.
type scrubber struct{ s *secret.Scrubber }

func newScrubber(secrets []string) scrubber { return scrubber{secret.New(secrets...)} }

// text returns t with every secret replaced.
func (s scrubber) text(t string) string { return s.s.String(t) }

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
