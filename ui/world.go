package ui

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/coplayhq/coplay/game"
)

// historyLen bounds how many values of each metric the sparkline keeps.
const historyLen = 512

// worldView is the world pane: the latest observation and the metric history.
type worldView struct {
	obs     *game.Observation
	history map[string][]float64
	md      markdownCache
	scroll  paneScroll
	// legendHint says under the map's title how to see what its symbols mean.
	legendHint string
}

// observe records a new observation.
func (v *worldView) observe(o *game.Observation) {
	v.obs = o
	if v.history == nil {
		v.history = map[string][]float64{}
	}
	for _, m := range o.Metrics {
		h := append(v.history[m.Name], m.Value)
		if len(h) > historyLen {
			h = h[len(h)-historyLen:]
		}
		v.history[m.Name] = h
	}
}

// render draws the whole pane body, for a pane h lines high: wait, timers, metrics
// with the credits sparkline, the summary, then the map. When everything fits the map
// takes the room left; otherwise the body is longer than h and the pane scrolls, so
// nothing is cut off for good.
func (v *worldView) render(st *styles, now time.Time, wait *game.Wait, w, h int) []string {
	// One countdown for one thing: while the game's timers show as live bars, the wait
	// is in the status bar ("wait 1m12s") and the log, not here a second time.
	var lines []string
	if wait != nil && !wait.Until.IsZero() && !v.timersRunning(now) {
		lines = append(lines, wrapStyled(fmt.Sprintf("waiting %s: %s", countdown(wait.Until.Sub(now)), wait.Reason), w, st.warn, "~ ")...)
	}
	if v.obs == nil {
		return append(lines, st.muted.Render("waiting for the first observation…"))
	}
	o := v.obs
	lines = append(lines, v.timers(st, now, w)...)
	lines = append(lines, v.metrics(st, w)...)
	if len(lines) > 0 {
		lines = append(lines, "")
	}
	lines = append(lines, v.md.render(liveCountdowns(o, now), w, st.dark)...)
	if o.Map != nil && len(o.Map.Points) > 0 {
		mapH := h - len(lines) - 1
		if mapH < 8 {
			mapH = min(max(h, 8), 16) // below the summary: scroll down to it
		}
		lines = append(lines, "")
		lines = append(lines, drawMap(st, o.Map, v.legendHint, w, mapH)...)
	}
	return lines
}

// timersRunning says whether a timer of the observation still counts down.
func (v *worldView) timersRunning(now time.Time) bool {
	if v.obs == nil {
		return false
	}
	for _, t := range v.obs.Timers {
		if t.End.After(now) {
			return true
		}
	}
	return false
}

// relTime matches what a game writes for a time to come: "in 1m12s (15:04:05Z)"; and
// the clock may be a game's own, "in 4m (08:14)".
var relTime = regexp.MustCompile(`\bin ((?:\d+h)?(?:\d+m)?(?:\d+(?:\.\d+)?s)?) \((\d\d:\d\d(?::\d\d)?Z?)\)`)

// clockThenIn matches a game clock's time followed by how long until it, in the game's
// minutes: "until 08:10 (in 10m)".
var clockThenIn = regexp.MustCompile(`\b(\d\d:\d\d) \(in (?:now|\d+h\d\dm|\d+m)\)`)

// liveCountdowns rewrites the summary's countdowns for now: the game wrote "arrives in
// 12s (15:04:05Z)" when it observed, and twelve seconds later that must read "arrives
// now (15:04:05Z)". The times come from the observation's timers; a countdown to a
// time of day that matches no timer is left as the game wrote it. A countdown in a
// game's own clock (minutes, "08:14") would stand still beside the bars that move, a
// second countdown for the same thing in other units (the arena writes a shift's end as
// "until 08:10 (in 10m)", and its bar counts the seconds): it is said as the time
// alone, "at 08:14", "until 08:10".
func liveCountdowns(o *game.Observation, now time.Time) string {
	if len(o.Timers) == 0 || !strings.Contains(o.Summary, "in ") {
		return o.Summary
	}
	ends := map[string]time.Time{}
	for _, t := range o.Timers {
		ends[t.End.UTC().Format("15:04:05Z")] = t.End
		ends[t.End.Format("15:04:05")] = t.End
	}
	summary := relTime.ReplaceAllStringFunc(o.Summary, func(s string) string {
		sub := relTime.FindStringSubmatch(s)
		if sub[1] == "" {
			return s
		}
		end, ok := ends[sub[2]]
		switch {
		case !ok && len(sub[2]) == len("15:04"): // a game's own clock, in its own minutes
			return "at " + sub[2]
		case !ok:
			return s
		}
		if !end.After(now) {
			return "now (" + sub[2] + ")"
		}
		return "in " + countdown(end.Sub(now)) + " (" + sub[2] + ")"
	})
	return clockThenIn.ReplaceAllString(summary, "$1")
}

// timers draws one countdown bar per timer: "COPLAY-2 → X1-DF55-B7 ███░░░ 1m12s". A
// label too long to leave a useful bar goes on its own line, whole, above its bar.
func (v *worldView) timers(st *styles, now time.Time, w int) []string {
	var lines []string
	for _, t := range v.obs.Timers {
		left := t.End.Sub(now)
		total := t.End.Sub(t.Start)
		frac := 1.0
		if total > 0 && left > 0 {
			frac = 1 - float64(left)/float64(total)
		}
		tail := countdown(left)
		if left <= 0 {
			tail = "done"
		}
		label := t.Label
		lw := ansi.StringWidth(label)
		const minBar = 10
		var prefix string
		if lw+1+minBar+1+len(tail) <= w {
			prefix = padLine(label, max(lw, min(24, w/3))) + " "
		} else {
			lines = append(lines, wrapStyled(label, w, st.text, "")...)
			prefix = "  "
		}
		barW := max(w-ansi.StringWidth(prefix)-len(tail)-1, 4)
		done := int(math.Round(frac * float64(barW)))
		bar := st.accent.Render(strings.Repeat("█", done)) + st.muted.Render(strings.Repeat("░", barW-done))
		lines = append(lines, prefix+bar+" "+tail)
	}
	return lines
}

// metrics draws the metrics, wrapped between metrics, and a sparkline of the first
// "credits" metric (or the first metric) over the session.
func (v *worldView) metrics(st *styles, w int) []string {
	ms := v.obs.Metrics
	if len(ms) == 0 {
		return nil
	}
	var lines []string
	cur, curW := "", 0
	plot := ms[0].Name
	for _, m := range ms {
		plain := m.Name + " " + formatNumber(m.Value) + unitSuffix(m.Name, m.Unit)
		part := st.muted.Render(m.Name) + " " + st.strong.Render(formatNumber(m.Value)) + unitSuffix(m.Name, m.Unit)
		pw := ansi.StringWidth(plain)
		if curW > 0 && curW+2+pw > w {
			lines = append(lines, cur)
			cur, curW = "", 0
		}
		if curW > 0 {
			cur += "  "
			curW += 2
		}
		cur += part
		curW += pw
		if strings.EqualFold(m.Name, "credits") {
			plot = m.Name
		}
	}
	lines = append(lines, cur)
	if h := v.history[plot]; len(h) > 1 {
		label := plot + " "
		lines = append(lines, st.muted.Render(label)+st.good.Render(sparkline(h, w-len(label))))
	}
	return lines
}

// unitSuffix is " units" after a value, or nothing when the unit only repeats the
// name: "credits 175,000", not "credits 175,000 credits".
func unitSuffix(name, u string) string {
	if u == "" || strings.EqualFold(strings.TrimSpace(u), strings.TrimSpace(name)) {
		return ""
	}
	return " " + u
}

// sparkline draws the last w values as block characters scaled to their range.
func sparkline(vals []float64, w int) string {
	if w <= 0 || len(vals) == 0 {
		return ""
	}
	if len(vals) > w {
		vals = vals[len(vals)-w:]
	}
	lo, hi := vals[0], vals[0]
	for _, x := range vals {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	const ticks = "▁▂▃▄▅▆▇█"
	runes := []rune(ticks)
	var b strings.Builder
	for _, x := range vals {
		i := len(runes) / 2
		if hi > lo {
			i = int(math.Round((x - lo) / (hi - lo) * float64(len(runes)-1)))
		}
		b.WriteRune(runes[i])
	}
	return b.String()
}

// formatNumber writes 175000 as "175,000" and keeps up to two decimals for fractions.
func formatNumber(x float64) string {
	if x != math.Trunc(x) {
		return fmt.Sprintf("%.2f", x)
	}
	s := fmt.Sprintf("%d", int64(math.Abs(x)))
	var b strings.Builder
	if x < 0 {
		b.WriteByte('-')
	}
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// countdown writes a remaining duration the way a player reads it: "1m12s", "45s".
func countdown(d time.Duration) string {
	if d <= 0 {
		return "0s"
	}
	d = d.Round(time.Second)
	h, m, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	switch {
	case h > 0:
		return fmt.Sprintf("%dh%02dm", h, m)
	case m > 0:
		return fmt.Sprintf("%dm%02ds", m, s)
	}
	return fmt.Sprintf("%ds", s)
}
