package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

// runState is what the screen knows of the run itself: its step and state, a wait's
// countdown, whether play is handed over, how much of the catalogue the model is sent,
// and whether the agent has finished.
type runState struct {
	step        int
	state       agent.State
	keepPlaying bool   // play is handed over (keep_playing)
	plays       string // who plays: agent.PlaysPerson while the person holds the wheel
	catalog     *agent.CatalogView
	wait        *game.Wait
	closed      bool
}

// keepPlayingNow takes whether play is handed over, and logs it.
func (r *runState) keepPlayingNow(ev agent.Event, l *logView) {
	if ev.KeepPlaying != nil {
		r.keepPlaying = *ev.KeepPlaying
	}
	l.add(kindInfo, ev.Text)
}

// catalogNow takes how much of the catalogue the model is sent, and logs it.
func (r *runState) catalogNow(ev agent.Event, l *logView) {
	if ev.Catalog != nil {
		c := *ev.Catalog
		r.catalog = &c
	}
	l.add(kindInfo, ev.Text)
}

// renderStatus is the bottom line: game, brain, step, state, tokens and cost, wait,
// session, and the key to the help. When the line is too short the least useful parts
// go first: the session, the game and the tool count (a narrow terminal's tab bar shows
// the game and the session); then the line packs tighter (the state and the bill in
// short words, narrower separators) before the bill goes, last of all: an 80-column
// terminal still shows what the run costs.
func (m *Model) renderStatus(w int) string {
	v := m.cur()
	parts := v.run.statusParts(m.seats.statusInfo(m), &v.spend, m.now())
	// The keys for what to do now are on the line above (hint.go); here only the help.
	right := " " + firstKey(m.keys.Help) + " help "
	left := statusLeft(&m.st, parts, 3, 0)
	for _, try := range []struct {
		limit, tight int
	}{{2, 0}, {1, 0}, {1, 1}, {1, 2}, {0, 1}, {0, 2}} {
		if widthOf(left)+widthOf(right) <= w {
			break
		}
		left = statusLeft(&m.st, parts, try.limit, try.tight)
	}
	lw, rw := widthOf(left), widthOf(right)
	if lw+rw > w {
		return padLine(left, w)
	}
	return left + m.st.statusBar.Render(strings.Repeat(" ", w-lw-rw)+right)
}

// statusPart is one piece of the status bar's left side.
type statusPart struct {
	text  string
	tight string // a shorter form for a narrow screen; "" keeps text
	drop  int    // 0 never dropped; higher is dropped first
	hot   bool
}

// statusParts lists what the status bar says, most useful first: the session (info),
// the run, and its bill.
func (r *runState) statusParts(info *Info, bill *spend, now time.Time) []statusPart {
	var parts []statusPart
	if info.Game != "" {
		parts = append(parts, statusPart{text: info.Game, drop: 2, hot: true})
	}
	if b := brainLabel(info.Brain); b != "" {
		parts = append(parts, statusPart{text: b, hot: info.Game == ""})
	}
	parts = append(parts, statusPart{text: fmt.Sprintf("step %d", r.step)})
	switch {
	case r.state == agent.PersonPlays:
		parts = append(parts, statusPart{text: "you play", hot: true})
	case r.state != "":
		parts = append(parts, statusPart{text: strings.ReplaceAll(string(r.state), "_", " "), tight: tightState[r.state]})
	}
	if r.plays == agent.PlaysPerson && r.state != agent.PersonPlays {
		parts = append(parts, statusPart{text: "the wheel is yours", tight: "wheel: you", hot: true})
	}
	if r.keepPlaying {
		parts = append(parts, statusPart{text: "keep playing", hot: true})
	}
	text := bill.text(info)
	parts = append(parts, statusPart{text: text, tight: strings.ReplaceAll(text, " · ", " "), drop: 1})
	if c := r.catalog; c != nil && c.Loaded < c.Total {
		parts = append(parts, statusPart{text: fmt.Sprintf("tools %d/%d", c.Loaded, c.Total), drop: 2})
	}
	if r.wait != nil {
		parts = append(parts, statusPart{text: "wait " + countdown(r.wait.Until.Sub(now)), hot: true})
	}
	if info.Served != "" {
		// Where else the session is reached stays in sight, not only in the log's
		// first lines: who can connect is the person's to know.
		parts = append(parts, statusPart{text: info.Served, drop: 1, hot: true})
	}
	if info.Session != "" {
		parts = append(parts, statusPart{text: info.Session, drop: 3})
	}
	return parts
}

// tightState is the short word for a long state on a narrow status bar.
var tightState = map[agent.State]string{agent.Deciding: "deciding"}

// statusLeft renders the parts dropped to limit; tight 1 uses their short forms, and
// 2 narrower separators besides.
func statusLeft(st *styles, parts []statusPart, limit, tight int) string {
	sep := " │ "
	if tight >= 2 {
		sep = "│"
	}
	var out []string
	for _, p := range parts {
		if p.drop > limit {
			continue
		}
		text := p.text
		if tight >= 1 && p.tight != "" {
			text = p.tight
		}
		if p.hot {
			out = append(out, st.statusAccent.Render(text))
		} else {
			out = append(out, st.statusBar.Render(text))
		}
	}
	return st.statusBar.Render(" ") + strings.Join(out, st.statusBar.Render(sep)) + st.statusBar.Render(" ")
}

// brainLabel is how the status bar names the brain; the autopilot says that no model
// is configured, since that is why it plays.
func brainLabel(b string) string {
	if b == "autopilot" {
		return "autopilot: no model configured"
	}
	return b
}

// ShortCount writes a count as 812, 41.2k or 1.3M: how the status bar and `coplay
// sessions` show tokens.
func ShortCount(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
