package agent

import (
	"encoding/json"

	"github.com/coplayhq/coplay/agent/rules"
	"github.com/coplayhq/coplay/game"
)

// hostRule returns the rule that decides a game's request of the host (rules.Elicitation
// or rules.Sampling) from server, and whether one does. Only rules naming the request
// exactly apply: "allow *" is about the model's calls, not about a server's questions.
func (r *Runner) hostRule(kind, server, message string) (rules.Rule, bool) {
	set := r.rules.set().Host(kind)
	if len(set) == 0 {
		return rules.Rule{}, false
	}
	args := map[string]string{"server": server}
	if kind == rules.Elicitation {
		args["message"] = message
	}
	raw, _ := json.Marshal(args)
	return set.Decide(rules.Call{Tool: kind, Args: raw})
}

// hostNeedsOK says whether a request waits for the person: a rule decides (ask always
// waits; allow and deny never do), else the approval mode. While a stored rule cannot
// be read, everything but a deny waits: the lost rule may have named the request.
func (r *Runner) hostNeedsOK(rule rules.Rule, ruled bool) bool {
	if ruled && rule.Action == rules.Deny {
		return false
	}
	if r.rules.failSafe("", game.Act) {
		return true
	}
	if ruled {
		return rule.Action == rules.Ask
	}
	return !r.cfg.ApproveAll
}
