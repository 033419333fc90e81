package agent

import (
	"fmt"

	"github.com/coplayhq/coplay/game"
)

// A model can get stuck: it calls the same read-only tool with the same arguments, gets
// the same answer, and calls it again, spending until a cap under --approve all. The
// runner counts identical call-and-result pairs since the world last changed. At
// LoopTellAt the model is told, once, in plain words; at LoopStopAt play pauses for the
// person, with the reason in the Log (a loop event). crush ends a run after more than 5
// identical pairs within 10 steps (internal/agent/loop_detection.go); coplay stops at
// the same count but counts since the last change rather than in a window, and warns
// the model first, so that it can change course by itself.
//
// What restarts the count: an Act call that succeeded (the agent changed the world), a
// wait (the game's or the model's: time passed), a trigger or the person's advice (new
// input), and the stop itself (the person has seen it).

// Loop thresholds: identical call-and-result pairs since the world last changed.
const (
	LoopTellAt = 4 // the model is told it repeats itself
	LoopStopAt = 6 // play pauses for the person
)

// loopVerdict is what the watch says about one call and its result.
type loopVerdict int

const (
	loopGoOn loopVerdict = iota // nothing to say
	loopTell                    // tell the model (once for this pair)
	loopStop                    // pause play for the person
)

// loopWatch counts identical call-and-result pairs since the last reset. Its zero
// value is ready to use.
type loopWatch struct {
	seen map[string]int
}

// observe counts one call (tool and compact arguments) and the text of its result,
// and says what to do. changed says the call changed the world (an Act call that
// succeeded) or let time pass (a wait): the count starts again. A stop resets the
// watch.
func (w *loopWatch) observe(tool string, args []byte, result string, changed bool) loopVerdict {
	if changed {
		w.reset()
		return loopGoOn
	}
	if w.seen == nil {
		w.seen = map[string]int{}
	}
	key := tool + "\x00" + string(CompactJSON(args)) + "\x00" + result
	w.seen[key]++
	switch n := w.seen[key]; {
	case n >= LoopStopAt:
		w.reset()
		return loopStop
	case n == LoopTellAt:
		return loopTell
	}
	return loopGoOn
}

// reset starts the count again.
func (w *loopWatch) reset() { clear(w.seen) }

// loopNotice is what the model reads at its next step once it repeated a call.
func loopNotice(call string) string {
	return fmt.Sprintf("## Note from the runner\n\nYou have called %s %d times and got the same answer each time, and nothing changed in between: calling it again will not tell you anything new. Do something else: act on what you know, change your plan, call wait if you are waiting for something in the game, or answer without a tool call to ask the person. If you call it again unchanged, play stops for the person.", call, LoopTellAt)
}

// watchLoop counts a call of the step that ran (or was answered) and says what the
// verdict asks for: a notice for the model, or a loop event, which pauses play (the
// Runner's emitAll).
func (p *pipeline) watchLoop(pc *pendingCall) (notice string, loop *Event) {
	if pc.invalid != nil || pc.decided == nil || pc.decided.Decision == Veto {
		return "", nil // never ran: the failure count (countFailure) looks after these
	}
	changed := pc.res.Wait != nil || pc.ran && pc.tool.Kind == game.Act && pc.res.OK()
	call := pc.call.Tool + " " + string(CompactJSON(pc.model.Args))
	switch p.loops.observe(pc.call.Tool, pc.model.Args, pc.text, changed) {
	case loopTell:
		return loopNotice(call), nil
	case loopStop:
		c := pc.call
		return "", &Event{Type: EventLoop, Call: &c, Text: fmt.Sprintf(
			"the model called %s %d times and got the same answer each time, with nothing changed in between, though it was told after %d; play is paused: advise or resume to go on",
			call, LoopStopAt, LoopTellAt)}
	}
	return "", nil
}
