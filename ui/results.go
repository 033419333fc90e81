package ui

import (
	"fmt"
	"strings"

	"github.com/coplayhq/coplay/game"
)

// resultLines bounds how much of a result's output the log shows.
const resultLines = 6

// describeResult is the log entry for a finished call: the game's error, or the first
// lines of the output; full is the entry with the whole output, for the whole view.
func describeResult(tool string, r *game.Result) (k kind, text, full string) {
	var b strings.Builder
	k = kindResult
	whole := ""
	switch {
	case r.Err != nil:
		k = kindError
		if r.Err.Code == 0 { // not the game's error: the runner's, e.g. "not executed: …"
			fmt.Fprintf(&b, "%s: %s", tool, r.Err.Message)
		} else {
			fmt.Fprintf(&b, "%s failed: %d %s", tool, r.Err.Code, r.Err.Message)
		}
	case r.Unknown:
		k = kindError
		fmt.Fprintf(&b, "%s: outcome unknown (the response was lost); observing again", tool)
	default:
		b.WriteString(tool + " ok")
		out := strings.TrimSpace(r.Output)
		if out != "" {
			whole = b.String() + ": " + out
			lines := strings.Split(out, "\n")
			if len(lines) > resultLines {
				lines = append(lines[:resultLines], fmt.Sprintf("… %d more lines", len(lines)-resultLines))
			}
			b.WriteString(": " + strings.Join(lines, "\n"))
		}
	}
	wait := ""
	if r.Wait != nil && !r.Wait.Until.IsZero() {
		wait = fmt.Sprintf("\nwait until %s: %s", r.Wait.Until.Format("15:04:05"), r.Wait.Reason)
	}
	text = b.String() + wait
	if whole == "" {
		return k, text, text
	}
	return k, text, whole + wait
}
