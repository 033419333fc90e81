package ui

import (
	"fmt"
	"strings"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/keymap"
)

// replayPending draws the Pending pane of the replay screen: the step's calls, each
// with its arguments, who decided what and why, and what came of it; the model's words
// first. Vetoes come before the rest when there is no room for every call.
func replayPending(st *styles, km *keymap.KeyMap, s *agent.ReplayStep, w, maxH int) []string {
	var out []string
	if s.Text != "" {
		why := wrapStyled(s.Text, w, st.muted, "why: ")
		out = append(out, why[:min(len(why), 2)]...)
	}
	if len(s.Calls) == 0 {
		return append(out, st.muted.Render("no calls at this step"))
	}
	var vetoed, rest []string
	for _, c := range s.Calls {
		lines := []string{padLine(st.selected.Render("▸ "+c.Tool)+" "+st.text.Render(spacedJSON(c.Args)), w)}
		if d := c.Decision; d != nil {
			by := d.By
			if d.Rule != "" {
				by += " (" + d.Rule + ")"
			}
			switch d.Decision {
			case agent.Veto:
				reason := d.Reason
				if reason == "" {
					reason = "no reason given"
				}
				lines = append(lines, wrapStyled("vetoed by "+by+": "+reason, w, st.bad, "  ✗ ")...)
			default:
				lines = append(lines, padLine(st.good.Render("  ✓ "+string(d.Decision)+" by "+by), w))
			}
		} else {
			lines = append(lines, padLine(st.warn.Render("  … never decided"), w))
		}
		if res := c.Result; res != nil {
			switch {
			case res.Unknown:
				lines = append(lines, padLine(st.warn.Render("  ? outcome unknown"), w))
			case res.Err != nil:
				lines = append(lines, padLine(st.bad.Render("  → error: "+oneLineText(res.Err.Message)), w))
			default:
				lines = append(lines, padLine(st.muted.Render("  → "+oneLineText(res.Output)), w))
			}
		}
		if c.Decision != nil && c.Decision.Decision == agent.Veto {
			vetoed = append(vetoed, lines...)
		} else {
			rest = append(rest, lines...)
		}
	}
	out = append(out, vetoed...)
	out = append(out, rest...)
	if len(out) > maxH && maxH > 0 {
		more := len(out) - maxH + 1
		out = append(out[:maxH-1], st.muted.Render(fmt.Sprintf("… %d more lines · %s shows the step's calls whole", more, km.Details.Help().Key)))
	}
	return out
}

// oneLineText is s on one line, its runs of white space one space.
func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }
