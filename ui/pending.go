package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"
	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/keymap"
)

// prettyJSON indents raw JSON for reading; invalid JSON is returned as it is.
func prettyJSON(raw json.RawMessage) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "{}"
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

// compactJSON writes raw JSON on one line (agent.CompactJSON), "{}" for none; invalid
// JSON is returned as it is.
func compactJSON(raw json.RawMessage) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "{}"
	}
	return string(agent.CompactJSON(raw))
}

// Folding of the selected call: how many lines of the model's reason and of the
// arguments show before "z unfolds".
const (
	foldReason = 2
	foldArgs   = 6
)

// renderPending draws the pending list: the selected call in full (the model's reason,
// arguments, validation, dry run), the others one line each, and the keys to decide,
// in at most maxH lines. What must be seen to decide never goes: when room is short the
// reason and the arguments are folded ("… 14 more lines · z unfolds") and the other
// calls are counted, so the validation, the dry run and the keys always show.
// On a screen that may only watch (watch) the keys line offers no decision.
func renderPending(st *styles, km *keymap.KeyMap, calls []pendingCall, sel int, unfold, watch bool, w, maxH int) []string {
	if len(calls) == 0 {
		return nil
	}
	sel = min(max(sel, 0), len(calls)-1)
	p := calls[sel]
	c := p.call
	header := st.selected.Render("▸ "+p.name()) + st.muted.Render(fmt.Sprintf("  (%s, %d of %d)", c.Kind, sel+1, len(calls)))
	if p.revising {
		header += st.warn.Render("  · edited, the runner is checking it")
	} else if p.edited {
		header += st.warn.Render("  · edited: review, then approve")
	}
	var checks []string
	if len(c.Problems) == 0 {
		checks = append(checks, wrapStyled("arguments valid", w, st.good, "  ✓ ")...)
	} else {
		for _, pr := range c.Problems {
			checks = append(checks, wrapStyled(pr.String(), w, st.bad, "  ✗ ")...)
		}
	}
	if p.revising {
		checks = append(checks, wrapStyled("dry run: waiting for the runner's new dry run", w, st.warn, "  … ")...)
	}
	if s := c.Simulation; s != nil {
		checks = append(checks, dryRunLines(st, s, w)...)
	}
	keys := []key.Binding{km.Approve, km.Veto, km.Edit, withDesc(km.AlwaysAllow, "allow tool")}
	var others []string
	if len(calls) > 1 {
		keys = append(keys, km.ApproveAll, withDesc(km.Down, "next call"))
		for i, o := range calls {
			if i != sel {
				others = append(others, st.muted.Render(padLine("  "+o.name()+" "+spacedJSON(o.call.Args), w)))
			}
		}
	}
	var why []string
	if p.reason != "" {
		why = wrapStyled(p.reason, w, st.muted, "  why: ")
	}
	// The call's own arguments one per line, as they are what is decided; on one line
	// when that is what lets them show whole.
	args := wrapStyled(fitJSON(c.Args, w-2, true), w, st.text, "  ")
	argsTight := wrapStyled(fitJSON(c.Args, w-2, false), w, st.text, "  ")

	reasonMax, argsMax := foldReason, foldArgs
	if unfold {
		reasonMax, argsMax = len(why), len(args)
	}
	room := maxH - 1 - 1 - len(checks) // header and keys
	argsWant, whyWant := min(len(args), argsMax), min(len(why), reasonMax)
	// The other calls give way first: when they do not all fit beside the selected
	// call's arguments, they are one line of tool names.
	if len(others) > 0 && room-argsWant-min(whyWant, 1) < len(others) {
		var names []string
		for i, o := range calls {
			if i != sel {
				names = append(names, o.name())
			}
		}
		others = []string{st.muted.Render(padLine(fmt.Sprintf("  + %d more: %s (%s)", len(names), strings.Join(names, ", "), km.Down.Help().Key), w))}
	}
	room -= len(others)
	foldNote := func(hidden int) string {
		if unfold {
			return st.muted.Render(fmt.Sprintf("    … %d more lines · %s shows them all in the editor", hidden, km.Edit.Help().Key))
		}
		return st.muted.Render(fmt.Sprintf("    … %d more lines · %s unfolds", hidden, km.Unfold.Help().Key))
	}
	if n := min(whyWant, max(room-min(argsWant, 3), 0)); len(why) > n {
		why = why[:n]
		if n > 0 {
			why[n-1] = st.muted.Render(ansi.Truncate(ansi.Strip(why[n-1]), w-1, "") + "…")
		}
	}
	room -= len(why)
	if len(args) > min(argsMax, max(room, 1)) && len(argsTight) < len(args) {
		args = argsTight
	}
	folded := len(args) > min(argsMax, max(room, 1))
	args = fold(args, min(argsMax, max(room, 1)), foldNote)
	if folded || unfold {
		u := withDesc(km.Unfold, map[bool]string{true: "fold", false: "unfold"}[unfold])
		keys = append(keys[:3], append([]key.Binding{u}, keys[3:]...)...)
	}
	keyLine := helpLine(st, keys, w)
	if watch {
		keys = []key.Binding{one(km.Details, "see it whole")}
		if len(calls) > 1 {
			keys = append(keys, withDesc(km.Down, "next call"))
		}
		keyLine = fitLine(st, "read-only, deciding needs a steering key:", keys, w)
	}

	lines := []string{header}
	lines = append(lines, why...)
	lines = append(lines, args...)
	lines = append(lines, checks...)
	lines = append(lines, others...)
	return append(lines, keyLine)
}

// dryRunLines draws a dry run: a predicted failure as a failure (✗), also when the
// runner adds that earlier calls may still change it (then in warning colour, with its
// warning under it); a success with a warning as a warning (!); a plain success as ✓.
func dryRunLines(st *styles, s *game.Simulation, w int) []string {
	text := "dry run: " + s.Summary
	predictsFailure := s.Fails || strings.HasPrefix(strings.TrimSpace(s.Summary), "would fail")
	var out []string
	switch {
	case s.Fails:
		out = wrapStyled(text, w, st.bad, "  ✗ ")
	case predictsFailure:
		out = wrapStyled(text, w, st.warn, "  ✗ ")
	case s.Warning != "":
		out = wrapStyled(text, w, st.warn, "  ! ")
	default:
		out = wrapStyled(text, w, st.good, "  ✓ ")
	}
	if s.Warning != "" {
		out = append(out, wrapStyled(s.Warning, w, st.warn, "    ")...)
	}
	return out
}

// withDesc is b with another help text, for a hint where the general one is too long.
func withDesc(b key.Binding, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(b.Help().Key, desc))
}

// fold keeps at most n lines of lines; when some are dropped the last kept line is
// replaced by note(number dropped).
func fold(lines []string, n int, note func(hidden int) string) []string {
	if len(lines) <= n {
		return lines
	}
	if n <= 0 {
		return nil
	}
	kept := append([]string(nil), lines[:n-1]...)
	return append(kept, note(len(lines)-n+1))
}

// helpLine writes bindings as "a approve · v veto" in w columns. When they do not fit it
// packs them tighter ("a approve  v veto"), then leaves out the last ones, so a key is
// never cut in the middle of its word.
func helpLine(st *styles, keys []key.Binding, w int) string {
	return fitLine(st, "", keys, w)
}

// fitLine is helpLine after a lead in words ("decide the call above:").
func fitLine(st *styles, lead string, keys []key.Binding, w int) string {
	var parts []string
	for _, k := range keys {
		if !k.Enabled() {
			continue
		}
		h := k.Help()
		parts = append(parts, st.key.Render(h.Key)+" "+st.muted.Render(h.Desc))
	}
	if lead != "" {
		lead = st.muted.Render(lead) + " "
	}
	for n := len(parts); n > 0; n-- {
		for _, sep := range []string{" · ", "  "} {
			if line := lead + strings.Join(parts[:n], st.muted.Render(sep)); widthOf(line) <= w {
				return padLine(line, w)
			}
		}
	}
	return padLine(lead, w)
}
