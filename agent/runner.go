package agent

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/coplayhq/coplay/game"
)

// Runner is the play loop. Build one with New, start it with Run (or through package league), read its
// Events and Send it Commands from any goroutine.
//
// A turn is a series of steps. Each step observes the game, asks the Brain, validates
// its calls, gates them (Read and Note tools run; Act tools wait for the person unless
// always allowed or ApproveAll), runs each in the order the brain gave them as soon as
// it and every call before it are decided (showing the world after each and dry-running
// the calls still waiting again), and feeds the results back. A turn ends
// when the brain answers without calls, when it reaches MaxIterations (EventTurnLimit),
// when the same call fails FailureLimit times in a row, or when the model fails; the
// runner then waits until the game's Observation.IdleUntil if it has one, otherwise
// until advice or resume (state "idle"). It never stops silently and never polls.
type Runner struct {
	cfg    Config
	events chan Event
	cmds   chan command
	done   chan struct{}
	ran    atomic.Bool
	scrub  scrubber // Config.Secrets, set once in New

	// The parts. Each keeps its own state and returns values and events; only the
	// Runner emits, flushes and waits (docs/ARCHITECTURE.md, "The agent's parts").
	tools  *toolbox     // the catalogue and the runner's own tools (tools.go)
	gate   *Gate        // the approval queue, maybe shared with other runners (gate.go)
	policy *policy      // this seat's rules and approval mode (policy.go)
	jr     *journal     // the phase not yet committed, and its encoder (journal.go)
	prompt *prompter    // the step's input and the messages within the window (prompt.go)
	calls  *pipeline    // the calls on their way through a step (pipeline.go)
	trig   triggerQueue // the game's triggers for the next step (trigger.go)
	asks   askState     // a game's questions, sampling requests, progress and logs (ask.go)
	play   playState    // play handed over, and this run's spend (unattended.go)
	faults faultState   // stops, calls in flight and the game's own waits (deadline.go)
	person personDesk   // the person's own moves and questions, and the wheel (person.go)

	// The loop's own state. Owned by the Run goroutine.
	ctx   context.Context
	at    loopState
	fatal error // the journal could not be written: the run stops
}

// loopState is where the loop is: the step, the turn, and what the person asked.
type loopState struct {
	step     int
	runSteps int
	iter     int
	paused   bool
	state    State
	wake     bool // a command asked the agent to stop waiting
}

// New checks cfg and builds a Runner. The catalogue is the game's tools followed by the
// notebook's (update_notes, set_plan, update_step).
func New(cfg Config) (*Runner, error) {
	switch {
	case cfg.Game == nil:
		return nil, errors.New("agent.New: Config.Game is nil")
	case cfg.Brain == nil && !cfg.Person:
		return nil, errors.New("agent.New: Config.Brain is nil")
	case cfg.Session == nil:
		return nil, errors.New("agent.New: Config.Session is nil")
	}
	if cfg.Person {
		cfg.Brain = PersonBrain{}
	}
	if cfg.MaxIterations <= 0 {
		cfg.MaxIterations = DefaultMaxIterations
	}
	if cfg.HistorySteps <= 0 {
		cfg.HistorySteps = DefaultHistorySteps
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	info, err := cfg.Session.Info()
	if err != nil {
		return nil, fmt.Errorf("agent.New: reading session: %w", err)
	}
	r := &Runner{
		cfg:    cfg,
		events: make(chan Event, 256),
		cmds:   make(chan command, 256),
		done:   make(chan struct{}),
		gate:   cfg.Gate,
		at:     loopState{step: info.Steps},
		jr:     newJournal(cfg.Session, info.Records),
		calls:  newPipeline(cfg.Session),
		scrub:  newScrubber(cfg.Scrubber, cfg.Secrets),
		trig:   triggerQueue{ch: triggersOf(cfg.Game)},
		play: playState{on: cfg.KeepPlaying, maxTokens: cfg.MaxRunTokens, maxCost: cfg.MaxRunCost,
			brain: cfg.Brain.Name()},
		person: personDesk{seat: cfg.Person},
	}
	fitWindow(&r.cfg)
	r.prompt = newPrompter(cfg.Game, cfg.Session, r.cfg)
	if r.tools, err = newToolbox(r.cfg, r.scrub, func() int { return r.at.step }, info.LoadedTools); err != nil {
		return nil, fmt.Errorf("agent.New: %w", err)
	}
	if r.gate == nil {
		r.gate = NewGate()
	}
	if r.policy, err = newPolicy(cfg.Session, cfg.Rules, r.tools.reg.Tools(), cfg.ApproveAll, cfg.Session.Name()); err != nil {
		return nil, fmt.Errorf("agent.New: %w", err)
	}
	return r, nil
}

// Events returns the runner's events. The channel is buffered and closed when Run
// returns; the runner waits for a slow reader rather than drop events.
func (r *Runner) Events() <-chan Event { return r.events }

// Tools returns the full catalogue (the game's tools and the notebook's).
func (r *Runner) Tools() []game.Tool { return r.tools.registry().Tools() }

// Send gives the runner a command. It checks what can be checked at once: the command
// is well formed, a decision or revise names a call that is waiting for one, an edit's
// or revise's arguments pass the tool's validation (that is their one validation). A
// decision or an answer settles its call or question as it is sent (the Gate): one that
// comes after another, from any screen, is refused (*LostError for a call). A refused
// command returns an error, to its sender alone: it is neither journaled nor shown to
// anyone else, and nothing else happens. Send never blocks for long: when the runner
// has stopped, or its queue stays full for a second, it returns an error.
func (r *Runner) Send(c Command) error { return r.send(c, "") }

// send is Send with a prefix for error messages (the headless line number).
func (r *Runner) send(c Command, where string) error {
	cmd, err := r.check(c)
	var release func()
	if err == nil {
		release, err = settleAsSent(r.gate, &r.asks, r.policy.seat, &cmd)
	}
	if err != nil {
		if where != "" {
			err = fmt.Errorf("%s: %w", where, err)
		}
		return err
	}
	if err := r.enqueue(cmd); err != nil {
		release()
		return err
	}
	return nil
}

// Notice journals text as a notice event, which every screen shows: a screen that
// connected over SSH, with its key, or left. It is not a person's command: headless
// clients cannot send it.
func (r *Runner) Notice(text string) error { return r.enqueue(command{notice: text}) }

func (r *Runner) enqueue(c command) error {
	select {
	case <-r.done:
		return errors.New("agent: the runner has stopped")
	default:
	}
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case r.cmds <- c:
		return nil
	case <-r.done:
		return errors.New("agent: the runner has stopped")
	case <-t.C:
		return errors.New("agent: the runner is not taking commands (queue full)")
	}
}

// Run plays until a stop command, ctx is done, or MaxSteps steps have run. It returns
// nil after a stop or the step limit, ctx's error when cancelled, and an error when the
// journal cannot be written (decisions must be durable before calls run). Run may be
// called once.
func (r *Runner) Run(ctx context.Context) (err error) {
	if !r.ran.CompareAndSwap(false, true) {
		return errors.New("agent: Run called twice")
	}
	// The game reports its own waits (rate limits, retries) through the context; they run
	// on this goroutine, inside Observe, Call or Simulate.
	r.ctx = game.WithWaitFunc(ctx, r.gameWaits)
	// The game reaches the person and the model through the Host (ask.go).
	r.ctx = game.WithHost(r.ctx, host{r})
	// Note tools' edits are written with the phase's commit, not one commit each: a
	// step's notebook bookkeeping then costs no fsync of its own.
	r.cfg.Session.DeferEdits()
	defer func() {
		r.saveState()
		r.faults.stopping = true
		r.emitAll(r.person.dropped("the run stopped first"))
		r.emit(Event{Type: EventState, State: Stopped, Text: r.stopText(err)})
		r.flush()
		close(r.done)
		close(r.events)
	}()
	r.emit(Event{Type: EventStarted, Text: fmt.Sprintf("%s playing %s (session %s)",
		r.cfg.Brain.Name(), r.cfg.Game.Info().Title, r.cfg.Session.Name())})
	if r.cfg.Notice != "" {
		r.emit(Event{Type: EventNotice, Text: r.scrub.text(r.cfg.Notice)})
	}
	r.prepare()
	warnings, ruleLines := r.policy.start()
	r.emitAll(warnings)
	if cat := r.tools.cat; cat.Deferred() {
		r.emit(r.tools.catalogEvent(nil, fmt.Sprintf(
			"the catalogue is too long to send whole: %d of %d tools are sent, the model loads the others from an index (load_tools)",
			len(cat.Sent()), cat.Total())))
	}
	if r.play.on {
		on := true
		r.emit(Event{Type: EventKeepPlaying, KeepPlaying: &on, Text: keepPlayingText(true)})
	}
	if r.person.seat {
		r.emit(wheelEvent(true))
	}
	r.emitAll(ruleLines)
	if err := r.recover(); err != nil {
		return err
	}
	return r.loop()
}

func (r *Runner) stopText(err error) string {
	switch {
	case errors.Is(err, context.Canceled) && r.ctx.Err() != nil:
		return "stopped: " + interruptedText(r.ctx)
	case err != nil:
		return "stopped: " + err.Error()
	case r.play.capStop != "":
		return "stopped: " + r.play.capStop
	case r.cfg.MaxSteps > 0 && r.at.runSteps >= r.cfg.MaxSteps:
		return fmt.Sprintf("stopped after the step limit of %d steps", r.cfg.MaxSteps)
	}
	if r.faults.stopWhy != "" {
		return "stopped: " + r.faults.stopWhy
	}
	return "stopped by the person"
}

// loop runs turns until told to stop.
func (r *Runner) loop() error {
	newTurn := true
	for {
		r.drain()
		// The step boundary: the person's moves and questions that came while the
		// model answered or a call ran are taken here.
		r.servePerson(true)
		if err := r.check2(); err != nil || r.faults.stopping {
			return err
		}
		if r.at.paused {
			r.setState(Paused, "paused: resume to go on")
			r.waitFor(time.Time{}, func() bool { return !r.at.paused })
			continue
		}
		if r.person.holds() {
			// No model request and no autopilot step while the person holds the wheel.
			// The world is observed and shown each time something wakes the agent (a
			// trigger, a command); moves and questions are taken at once (waitFor).
			newTurn = true
			if obs, err := r.observe(); err == nil {
				r.emit(Event{Type: EventObservation, Observation: &obs})
			} else if r.ctx.Err() == nil {
				r.emitError("observing %s: %v", r.cfg.Game.Info().Name, err)
			}
			r.setState(PersonPlays, personPlaysText(r.person.seat))
			r.waitFor(time.Time{}, nil)
			continue
		}
		if r.cfg.MaxSteps > 0 && r.at.runSteps >= r.cfg.MaxSteps {
			return nil
		}
		if r.play.capStop = r.play.capReached(); r.play.capStop != "" {
			r.emitError("%s; the run stops (a resumed session starts with a fresh budget)", r.play.capStop)
			return nil
		}
		if r.over() {
			return nil
		}
		if newTurn {
			r.at.iter = 0
			clear(r.calls.fails)
			newTurn = false
		}
		out := r.doStep()
		if !out.noCount {
			r.at.iter++
		}
		if err := r.check2(); err != nil || r.faults.stopping {
			return err
		}
		if r.cfg.MaxSteps > 0 && r.at.runSteps >= r.cfg.MaxSteps {
			return nil // the last step ran: no waiting or idling for a next one
		}
		if r.over() {
			return nil // the script's last answer was played: no idling for a next one
		}
		if !out.prose && out.endTurn == "" && !out.noCount {
			r.play.quietRun = 0
		}
		switch {
		case out.wait != nil:
			r.sleep(*out.wait)
		case out.endTurn != "" && r.play.on:
			newTurn = true
			if out.prose {
				r.prompt.notice(proseNotice)
			}
			r.sleep(r.play.playOn(out, r.cfg.QuietPause, r.cfg.Now()))
		case out.endTurn != "":
			newTurn = true
			if !out.idleUntil.IsZero() && out.idleUntil.After(r.cfg.Now()) {
				r.sleep(game.Wait{Until: out.idleUntil, Reason: out.idleReason})
			} else {
				r.idle(out.endTurn)
			}
		case r.at.iter >= r.cfg.MaxIterations && !r.play.on:
			newTurn = true
			r.emit(Event{Type: EventTurnLimit, Text: fmt.Sprintf(
				"the turn reached its cap of %d steps and stopped; advise or resume to go on", r.cfg.MaxIterations)})
			r.idle("the turn reached its iteration cap")
		}
	}
}

// over stops the run when its brain has nothing more to say (brain.Finite: a script
// whose answers are all played), with the brain's words as the reason, and reports
// whether it did. The brain is not asked again: a finished script costs nothing more.
func (r *Runner) over() bool {
	f, ok := r.cfg.Brain.(Finite)
	if !ok {
		return false
	}
	why := f.Over()
	if why == "" {
		return false
	}
	r.faults.stop(why)
	return true
}

// check2 reports a fatal error or a cancelled context.
func (r *Runner) check2() error {
	if r.fatal != nil {
		return r.fatal
	}
	return r.ctx.Err()
}

// idle waits for advice, resume or stop after a turn ended.
func (r *Runner) idle(why string) {
	if r.prompt.fresh || r.trig.any() {
		return // advice or a trigger came while the turn ended: it starts the next one
	}
	r.setState(Idle, why+"; waiting for advice or resume")
	r.waitFor(time.Time{}, nil)
}

// sleep waits until w.Until, or advice, resume or stop, whichever comes first.
func (r *Runner) sleep(w game.Wait) {
	if !w.Until.After(r.cfg.Now()) || r.prompt.fresh || r.trig.any() {
		return // nothing to wait for, or advice or a trigger to deliver first
	}
	r.emit(Event{Type: EventWaiting, Wait: &w, Text: fmt.Sprintf("waiting until %s, because %s",
		w.Until.Format(time.TimeOnly), w.Reason)})
	r.setState(Sleeping, "")
	why := "the time came"
	if r.waitFor(w.Until, nil) {
		why = "woken early"
	}
	r.emit(Event{Type: EventWaiting, Wait: &game.Wait{Reason: why}, Text: "the wait ended: " + why})
	r.setState(Running, "")
}

// waitFor handles commands until done() is true, stop, ctx, or the timer at until
// (zero: no timer). A nil done waits for a command that wakes the agent (advice,
// resume, pause, stop); woken reports such a wake.
func (r *Runner) waitFor(until time.Time, done func() bool) (woken bool) {
	r.at.wake = false
	if done == nil {
		done = func() bool {
			if r.at.wake {
				r.at.wake, woken = false, true
			}
			return woken
		}
	}
	var timer <-chan time.Time
	if !until.IsZero() {
		t := time.NewTimer(until.Sub(r.cfg.Now()))
		defer t.Stop()
		timer = t.C
	}
	for !r.faults.stopping && r.fatal == nil && !done() {
		r.flush() // what led here is on screen and on disk before blocking
		if r.fatal != nil {
			return woken
		}
		if r.person.waiting() {
			// Idle, paused, sleeping or waiting for a decision: the person's moves run
			// and their questions are answered at once; play does not resume for them.
			r.servePerson(true)
			// A trigger that came while a move ran wakes the agent as one that comes
			// while it waits does (drain, inside the move, takes wakes for itself).
			r.at.wake = r.at.wake || r.trig.any() && !r.at.paused
			continue
		}
		select {
		case c := <-r.cmds:
			r.handle(c)
		case <-timer:
			return woken
		case <-r.ctx.Done():
			return woken
		case t, ok := <-r.trig.ch:
			if !ok {
				r.trig.ch = nil // the game closed it: no more triggers
				continue
			}
			r.onTrigger(t)
		}
	}
	return woken
}

// onTrigger journals a game's trigger and wakes the agent unless the person paused it;
// a stale one is dropped (trigger.go).
func (r *Runner) onTrigger(t game.Trigger) {
	if ev, ok := r.trig.add(t, r.scrub); ok {
		r.emit(ev)
		r.at.wake = r.at.wake || !r.at.paused
	}
}

// drain handles the commands already queued, without waiting.
func (r *Runner) drain() {
	for {
		select {
		case c := <-r.cmds:
			r.handle(c)
		default:
			r.at.wake = false
			for t, ok := r.trig.next(); ok; t, ok = r.trig.next() {
				r.onTrigger(t)
			}
			r.at.wake = false
			return
		}
	}
}

// handle applies one command on the Run goroutine.
func (r *Runner) handle(c command) {
	if c.host != nil {
		r.onHost(c.host)
		return
	}
	if c.inEnded {
		r.emitAll(r.faults.stdinEnded(r.play.on))
		return
	}
	if c.orphaned {
		r.emitAll(r.faults.orphaned())
		return
	}
	if c.notice != "" {
		r.emit(Event{Type: EventNotice, Text: r.scrub.text(c.notice)})
		return
	}
	switch c.Cmd {
	case CmdAdvise:
		r.prompt.advise(c.Text)
		r.emit(Event{Type: EventAdvice, Text: c.Text, Via: c.Via})
		r.at.wake = true
	case CmdPause:
		r.at.paused = true
		r.at.wake = true // a wait or an idle turn ends here: the pause shows at once
	case CmdResume:
		r.at.paused = false
		r.at.wake = true
	case CmdStop:
		r.faults.stop(c.why)
	case CmdKeepPlaying:
		if c.On != r.play.on {
			r.play.on = c.On
			r.emit(Event{Type: EventKeepPlaying, KeepPlaying: &c.On, Text: keepPlayingText(c.On)})
			r.at.wake = r.at.wake || c.On // an idle turn goes on at once
		}
	case CmdAllow:
		if c.Allow {
			r.emitAll(r.policy.add(c.rule))
		} else {
			r.emitAll(r.policy.remove(c.rule))
		}
	case CmdRule:
		r.emitAll(r.policy.add(c.rule))
	case CmdUnrule:
		if c.unreadable {
			r.emitAll(r.policy.removeUnreadable(c.Rule))
		} else {
			r.emitAll(r.policy.remove(c.rule))
		}
	case CmdDecide:
		r.decide(c)
	case CmdRevise:
		r.revise(c)
	case CmdAnswer:
		r.asks.answer(r.desk(), c)
		r.emitAll(r.asks.take())
	case CmdPlay, CmdAsk, CmdTakeOver:
		evs, wake := r.person.take(c)
		r.emitAll(evs)
		r.at.wake = r.at.wake || wake
	}
}

// setState emits a state event.
func (r *Runner) setState(s State, text string) {
	if s == r.at.state && s == Running {
		return // one "running" per change, not one per step
	}
	r.at.state = s
	r.emit(Event{Type: EventState, State: s, Text: text})
}

// saveState stores the game's state in the session, when the caller gave a way to get it.
func (r *Runner) saveState() {
	if r.cfg.SaveState == nil {
		return
	}
	data, err := r.cfg.SaveState()
	if err != nil {
		r.emitError("saving the game's state: %v", err)
		return
	}
	r.jr.state(data) // committed with the phase it belongs to
}

// gameWaits is the game's WaitFunc: a wait of the game's own (a rate limit, a retry
// back-off) becomes a waiting event and the Sleeping state, shown at once, and its end
// a waiting event with a zero Until and the state from before. It runs synchronously on
// the Run goroutine, inside Observe, Call or Simulate.
func (r *Runner) gameWaits(w game.Wait) {
	w.Reason = r.scrub.text(w.Reason)
	if w.Until.IsZero() {
		if !r.faults.gameWait {
			return
		}
		r.faults.gameWait = false
		why := w.Reason
		if why == "" {
			why = "the game went on"
		}
		r.emit(Event{Type: EventWaiting, Wait: &game.Wait{Reason: why}, Text: "the wait ended: " + why})
		if r.faults.waitState == "" {
			r.faults.waitState = Running
		}
		r.setState(r.faults.waitState, "")
		r.flush()
		return
	}
	if !r.faults.gameWait {
		r.faults.gameWait, r.faults.waitState = true, r.at.state
	}
	r.emit(Event{Type: EventWaiting, Wait: &w, Text: fmt.Sprintf("the game waits until %s, because %s",
		w.Until.Format(time.TimeOnly), w.Reason)})
	r.setState(Sleeping, "the game waits: "+w.Reason)
	r.flush()
}
