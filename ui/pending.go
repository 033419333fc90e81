package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/keymap"
)

// pendingCall is a call waiting for the person's decision.
type pendingCall struct {
	call agent.Call
	at   time.Time // when it appeared, for the grace period
}

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

// compactJSON writes raw JSON on one line; invalid JSON is returned as it is.
func compactJSON(raw json.RawMessage) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "{}"
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// renderPending draws the pending list: the selected call in full (arguments,
// validation, dry run), the others one line each, and the keys to decide. When the
// list is taller than maxH lines it is cut, but the keys line always stays: a person
// must see how to decide whatever the terminal's size.
func renderPending(st *styles, km *keymap.KeyMap, calls []pendingCall, sel int, w, maxH int) []string {
	var lines []string
	for i, p := range calls {
		c := p.call
		if i != sel {
			lines = append(lines, st.muted.Render("  "+c.Tool+" "+compactJSON(c.Args)))
			continue
		}
		lines = append(lines, st.selected.Render("▸ "+c.Tool)+st.muted.Render(fmt.Sprintf("  (%s, %d of %d)", c.Kind, i+1, len(calls))))
		for _, l := range strings.Split(prettyJSON(c.Args), "\n") {
			lines = append(lines, "  "+l)
		}
		if len(c.Problems) == 0 {
			lines = append(lines, st.good.Render("  ✓ arguments valid"))
		} else {
			for _, pr := range c.Problems {
				lines = append(lines, st.bad.Render("  ✗ "+pr.String()))
			}
		}
		if s := c.Simulation; s != nil {
			switch {
			case s.Fails:
				lines = append(lines, st.bad.Render("  ✗ dry run: "+s.Summary)) // the game says "would fail …"
			default:
				lines = append(lines, st.good.Render("  ✓ dry run: "+s.Summary))
			}
			if s.Warning != "" {
				lines = append(lines, st.warn.Render("  ! "+s.Warning))
			}
		}
	}
	keys := []key.Binding{km.Approve, km.Veto, km.Edit, km.AlwaysAllow}
	if len(calls) > 1 {
		keys = append(keys, km.ApproveAll, km.Down)
	}
	var out []string
	for _, l := range lines {
		out = append(out, wrapText(l, w)...)
	}
	if maxH > 1 && len(out) > maxH-1 {
		out = append(out[:maxH-2], st.muted.Render(padLine("  …", w)))
	}
	return append(out, helpLine(st, keys, w))
}

// helpLine writes bindings as "a approve · v veto", cut to w columns.
func helpLine(st *styles, keys []key.Binding, w int) string {
	var parts []string
	for _, k := range keys {
		if !k.Enabled() {
			continue
		}
		h := k.Help()
		parts = append(parts, st.key.Render(h.Key)+" "+st.muted.Render(h.Desc))
	}
	return padLine(strings.Join(parts, st.muted.Render(" · ")), w)
}
