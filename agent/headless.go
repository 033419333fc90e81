package agent

import (
	"cmp"
	"slices"
)

// Input is a runner's command input as a driver of lines uses it: package league's
// Headless, which reads commands from stdin and must tell the runner when they end.
type Input struct{ r *Runner }

// Input returns the runner's input, for a driver of its own.
func (r *Runner) Input() Input { return Input{r} }

// SendLine sends a command read from a line of input; a refusal is returned, to its
// sender alone (never emitted), its message beginning with where ("stdin line 3").
func (in Input) SendLine(c Command, where string) error { return in.r.send(c, where) }

// EndInput says the person's input reached its end: with play handed over, the runner
// plays on while it needs nobody.
func (in Input) EndInput() error { return in.r.enqueue(command{inEnded: true}) }

// Orphan says the input has ended and the runner waits for a person who can no longer
// answer: it stops, saying "stdin closed".
func (in Input) Orphan() error { return in.r.enqueue(command{orphaned: true}) }

// Waiting returns the events that put to the person what waits for them now: the
// runner's calls waiting for a decision (from the Gate's queue) and the game's
// questions waiting for an answer, each as its reader received it, in seq order. A
// screen that attaches late is shown these (package live, through package league).
func (in Input) Waiting() []Event {
	r := in.r
	var out []Event
	for _, w := range r.gate.Queue() {
		if w.Seat == r.policy.seat && w.Event.Type != "" {
			out = append(out, w.Event)
		}
	}
	out = append(out, r.asks.waiting()...)
	slices.SortStableFunc(out, func(a, b Event) int { return cmp.Compare(a.Seq, b.Seq) })
	return out
}

// NeedsPerson reports whether a state is one in which the run waits for a person
// (a decision, advice after a turn, a resume, or their own moves: they hold the wheel).
func NeedsPerson(s State) bool { return s == Idle || s == Deciding || s == Paused || s == PersonPlays }
