package agent

import (
	"fmt"
	"time"

	"github.com/coplayhq/coplay/game"
)

// Play handed over ("keep playing"): the person has let the agent play on by itself,
// with --approve all or the screen's toggle. A turn then never ends on the model's
// words: an answer without calls, a model failure or a call failing again and again
// costs a pause (until the game's next event when it has one), and play goes on. The
// spend caps (Config.MaxRunTokens, MaxRunCost) end the run instead of the per-turn cap.

// Defaults for the pause after a step that did nothing while play is handed over.
const (
	DefaultQuietPause = time.Second // the first pause; it doubles with each quiet step in a row
	maxQuietPause     = 2 * time.Minute
)

// proseNotice is what the model reads at the step after it answered without calls
// while play is handed over.
const proseNotice = "## Note from the runner\n\nYour last answer had no tool call, so nothing happened in the game. Play is handed over to you: act with a tool call, or call wait with the seconds until something is worth doing."

// unreadNotice heads what the model reads at its next step about a tool call it wrote
// as text that could not be read (Reply.Unread).
const unreadNotice = "## Note from the runner\n\nA tool call in your last answer could not be read, so it did not run: "

// keepPlayingText describes the mode for the person.
func keepPlayingText(on bool) string {
	if on {
		return "keep playing: on (an answer without calls does not stop play; the spend caps do)"
	}
	return "keep playing: off (an answer without calls hands the turn back to you)"
}

// playOn is the end of a turn while play is handed over: a wait until the game's next
// event (every ship travelling) when it has one, otherwise a pause that doubles with
// each step in a row that did nothing; then the next step.
//
// It returns the wait; the Runner sleeps it (and, after an answer without calls, tells
// the model at the next step: proseNotice). base is Config.QuietPause.
func (p *playState) playOn(out stepOutcome, base time.Duration, now time.Time) game.Wait {
	p.quietRun++
	if base <= 0 {
		base = DefaultQuietPause
	}
	d := min(base<<min(p.quietRun-1, 16), maxQuietPause)
	until := now.Add(d)
	why := "play goes on after a pause: " + out.endTurn
	if out.idleUntil.After(now) {
		// Nothing can act before the game's next event: waiting for it beats asking
		// the model again sooner.
		until, why = out.idleUntil, out.idleReason
	}
	return game.Wait{Until: until, Reason: why}
}

// playState is how play is handed over and what this run has spent against its caps.
// It emits nothing. Owned by the Run goroutine.
type playState struct {
	on          bool   // play is handed over (keep playing)
	quietRun    int    // steps in a row that did nothing while play is handed over
	run         Usage  // spent by this run
	costUnknown bool   // a model call of this run had no price
	capStop     string // the spend cap that stopped the run
	maxTokens   int64  // Config.MaxRunTokens
	maxCost     float64
	brain       string // the brain's name, for messages
}

// spend adds a model call's usage to this run's totals.
func (p *playState) spend(u Usage) {
	p.run.PromptTokens += u.PromptTokens
	p.run.CompletionTokens += u.CompletionTokens
	p.run.CachedTokens += u.CachedTokens
	p.run.Cost += u.Cost
	if u.PromptTokens+u.CompletionTokens > 0 && !u.CostKnown {
		p.costUnknown = true
	}
	p.run.CostUpper = p.run.CostUpper || u.CostUpper
}

// capReached says which spend cap this run has reached, or "".
func (p *playState) capReached() string {
	run := &p.run
	tokens := run.PromptTokens + run.CompletionTokens
	spent := fmt.Sprintf("%d tokens this run (%d prompt, %d of them cached; %d completion)",
		tokens, run.PromptTokens, run.CachedTokens, run.CompletionTokens)
	switch {
	case p.maxTokens > 0 && int64(tokens) >= p.maxTokens:
		return fmt.Sprintf("the token cap of %d was reached: %s", p.maxTokens, spent)
	case p.maxCost > 0 && p.costUnknown:
		return fmt.Sprintf("the cost cap of $%.4f cannot be kept: %s has no price (add [prices.%q] to config.toml); %s",
			p.maxCost, p.brain, p.brain, spent)
	case p.maxCost > 0 && run.Cost >= p.maxCost:
		if run.CostUpper {
			// Without a cached_prompt price the cost is an upper bound: the cap stops the
			// run early rather than late, and says so.
			return fmt.Sprintf("the cost cap of $%.4f was reached: at most $%.4f spent (cached tokens counted at the prompt price: the model has no cached_prompt price), %s",
				p.maxCost, run.Cost, spent)
		}
		return fmt.Sprintf("the cost cap of $%.4f was reached: $%.4f spent, %s", p.maxCost, run.Cost, spent)
	}
	return ""
}
