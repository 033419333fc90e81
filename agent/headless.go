package agent

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

// NeedsPerson reports whether a state is one in which the run waits for a person
// (a decision, advice after a turn, a resume, or their own moves: they hold the wheel).
func NeedsPerson(s State) bool { return s == Idle || s == Deciding || s == Paused || s == PersonPlays }
