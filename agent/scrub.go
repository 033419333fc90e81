package agent

import (
	"encoding/json"
	"strings"

	"github.com/coplayhq/coplay/game"
)

// Redacted replaces a secret in what the runner passes on.
const Redacted = "[REDACTED]"

// minSecret is the shortest secret scrubbed: shorter strings would match ordinary words
// (the same rule as the headless redactor).
const minSecret = 8

// scrubber replaces Config.Secrets in text that came from the game or a failure, before
// it is emitted (screen, journal) or handed to the model. Secrets never come from the
// model's side, so its own text is not scrubbed here.
type scrubber struct {
	plain   []string // as they appear in text
	escaped []string // as they appear inside a JSON string
}

func newScrubber(secrets []string) scrubber {
	var s scrubber
	for _, sec := range secrets {
		if len(sec) < minSecret {
			continue
		}
		s.plain = append(s.plain, sec)
		b, _ := json.Marshal(sec)
		s.escaped = append(s.escaped, string(b[1:len(b)-1]))
	}
	return s
}

// text returns t with every secret replaced.
func (s scrubber) text(t string) string {
	for _, sec := range s.plain {
		if strings.Contains(t, sec) {
			t = strings.ReplaceAll(t, sec, Redacted)
		}
	}
	return t
}

// json returns raw JSON with every secret replaced inside its strings; the result is
// still valid JSON because Redacted needs no escaping.
func (s scrubber) json(raw json.RawMessage) json.RawMessage {
	if len(s.escaped) == 0 || len(raw) == 0 {
		return raw
	}
	t := string(raw)
	for i, sec := range s.escaped {
		t = strings.ReplaceAll(t, sec, Redacted)
		t = strings.ReplaceAll(t, s.plain[i], Redacted)
	}
	if !json.Valid([]byte(t)) {
		q, _ := json.Marshal(t)
		return q
	}
	return json.RawMessage(t)
}

// result scrubs what a game returned.
func (s scrubber) result(r game.Result) game.Result {
	if len(s.plain) == 0 {
		return r
	}
	r.Output = s.text(r.Output)
	if r.Err != nil {
		e := *r.Err
		e.Message = s.text(e.Message)
		e.Data = s.json(e.Data)
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
	if len(s.plain) == 0 {
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
