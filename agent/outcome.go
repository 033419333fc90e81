package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/coplayhq/coplay/game"
)

// This file is the one place where the text the model reads about a call's outcome is
// built: live steps, recovered calls and a resumed conversation all go through
// outcome.text, so the model is told the same thing about the same outcome.

// outcome is what the model's text about one call depends on.
type outcome struct {
	invalid   error           // the call failed validation: it never ran
	decision  *Decision       // nil for an invalid call
	modelArgs json.RawMessage // the arguments the model sent (for an edit's diff)
	result    *game.Result    // nil when the call did not run (vetoed, invalid)
	crashed   bool            // the process stopped while the call ran
}

// unknownText is what the model is told about a call that was running when the process
// stopped.
const unknownText = "outcome unknown: the process stopped while this ran; observe before acting"

// notRunText is the error of an approved call the runner stopped before running.
const notRunText = "not executed: the runner stopped before this call ran"

// text is what the model reads about the outcome.
func (o outcome) text() string {
	switch {
	case o.invalid != nil:
		return "not executed: " + o.invalid.Error() + "\nFix the call and send it again."
	case o.decision != nil && o.decision.Decision == Veto && o.decision.By == "rule":
		return "not executed: a rule says: " + o.decision.Reason + ". The person set this rule: do not repeat this call unchanged."
	case o.decision != nil && o.decision.Decision == Veto:
		return vetoText(o.decision.Reason)
	case o.crashed:
		return unknownText
	case o.result == nil:
		return notRunText
	}
	text := resultText(*o.result)
	if o.decision != nil && o.decision.Decision == Edit && !o.result.Unknown {
		text = "The person edited your arguments before running this call: " +
			argsDiff(o.modelArgs, o.decision.Args) + ".\nResult: " + text
	}
	return text
}

// vetoText is what the model is told about a vetoed call.
func vetoText(reason string) string {
	text := "not executed: vetoed by the person"
	if reason != "" {
		text += ": " + reason
	}
	return text + ". Do not repeat this call unchanged."
}

// resultText is what the model reads of a result.
func resultText(res game.Result) string {
	return res.Text("; the runner waits before your next step")
}

// argsDiff says field by field what an edit changed: `field: old → new`.
func argsDiff(oldArgs, newArgs json.RawMessage) string {
	var o, n map[string]json.RawMessage
	if json.Unmarshal(oldArgs, &o) != nil {
		return fmt.Sprintf("arguments %s → %s", showArgs(oldArgs), CompactJSON(newArgs))
	}
	if json.Unmarshal(newArgs, &n) != nil {
		return fmt.Sprintf("arguments %s → %s", CompactJSON(oldArgs), showArgs(newArgs))
	}
	var changes []string
	for _, k := range sortedUnion(o, n) {
		ov, inO := o[k]
		nv, inN := n[k]
		os, ns := "(absent)", "(absent)"
		if inO {
			os = string(CompactJSON(ov))
		}
		if inN {
			ns = string(CompactJSON(nv))
		}
		if os != ns {
			changes = append(changes, fmt.Sprintf("%s: %s → %s", k, os, ns))
		}
	}
	if len(changes) == 0 {
		return "nothing changed"
	}
	return strings.Join(changes, "; ")
}
