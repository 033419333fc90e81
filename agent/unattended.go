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

// setKeepPlaying switches the mode and tells the reader.
func (r *Runner) setKeepPlaying(on bool) {
	r.keepPlaying = on
	v := on
	r.emit(Event{Type: EventKeepPlaying, KeepPlaying: &v, Text: keepPlayingText(on)})
	if on {
		r.wake = true // an idle turn goes on at once
	}
}

// playOn is the end of a turn while play is handed over: a wait until the game's next
// event (every ship travelling) when it has one, otherwise a pause that doubles with
// each step in a row that did nothing; then the next step.
func (r *Runner) playOn(out stepOutcome) {
	r.quietRun++
	if out.prose {
		r.prompt.notice(proseNotice)
	}
	base := r.cfg.QuietPause
	if base <= 0 {
		base = DefaultQuietPause
	}
	d := min(base<<min(r.quietRun-1, 16), maxQuietPause)
	until := r.cfg.Now().Add(d)
	why := "play goes on after a pause: " + out.endTurn
	if out.idleUntil.After(r.cfg.Now()) {
		// Nothing can act before the game's next event: waiting for it beats asking
		// the model again sooner.
		until, why = out.idleUntil, out.idleReason
	}
	r.sleep(game.Wait{Until: until, Reason: why})
}

// spend adds a model call's usage to the session's and this run's totals.
func (r *Runner) spend(u Usage) {
	r.jr.spend(u)
	r.run.PromptTokens += u.PromptTokens
	r.run.CompletionTokens += u.CompletionTokens
	r.run.CachedTokens += u.CachedTokens
	r.run.Cost += u.Cost
	if u.PromptTokens+u.CompletionTokens > 0 && !u.CostKnown {
		r.costUnknown = true
	}
	r.run.CostUpper = r.run.CostUpper || u.CostUpper
}

// capReached says which spend cap this run has reached, or "".
func (r *Runner) capReached() string {
	tokens := r.run.PromptTokens + r.run.CompletionTokens
	spent := fmt.Sprintf("%d tokens this run (%d prompt, %d of them cached; %d completion)",
		tokens, r.run.PromptTokens, r.run.CachedTokens, r.run.CompletionTokens)
	switch {
	case r.cfg.MaxRunTokens > 0 && int64(tokens) >= r.cfg.MaxRunTokens:
		return fmt.Sprintf("the token cap of %d was reached: %s", r.cfg.MaxRunTokens, spent)
	case r.cfg.MaxRunCost > 0 && r.costUnknown:
		return fmt.Sprintf("the cost cap of $%.4f cannot be kept: %s has no price (add [prices.%q] to config.toml); %s",
			r.cfg.MaxRunCost, r.cfg.Brain.Name(), r.cfg.Brain.Name(), spent)
	case r.cfg.MaxRunCost > 0 && r.run.Cost >= r.cfg.MaxRunCost:
		if r.run.CostUpper {
			// Without a cached_prompt price the cost is an upper bound: the cap stops the
			// run early rather than late, and says so.
			return fmt.Sprintf("the cost cap of $%.4f was reached: at most $%.4f spent (cached tokens counted at the prompt price: the model has no cached_prompt price), %s",
				r.cfg.MaxRunCost, r.run.Cost, spent)
		}
		return fmt.Sprintf("the cost cap of $%.4f was reached: $%.4f spent, %s", r.cfg.MaxRunCost, r.run.Cost, spent)
	}
	return ""
}
