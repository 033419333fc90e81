package ui

import (
	"fmt"
	"math"
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

// render draws the pane body: wait, timers, metrics with the credits sparkline, the
// summary, then the map in whatever room is left.
func (v *worldView) render(st *styles, now time.Time, wait *game.Wait, w, h int) []string {
	var lines []string
	if wait != nil && !wait.Until.IsZero() {
		lines = append(lines, st.warn.Render(fmt.Sprintf("~ waiting %s: %s", countdown(wait.Until.Sub(now)), wait.Reason)))
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
	summary := v.md.render(o.Summary, w, st.dark)
	mapH := 0
	if o.Map != nil && len(o.Map.Points) > 0 {
		// The map gets what is left below the summary, or a third of the pane when the
		// summary is long, so the whole world is always in view.
		mapH = max(h-len(lines)-len(summary)-1, min(h/3, 14))
		if mapH < 5 {
			mapH = 0
		}
	}
	room := h - len(lines) - mapH
	if room < len(summary) {
		if room > 0 {
			lines = append(lines, summary[:room-1]...)
			lines = append(lines, st.muted.Render("…"))
		}
	} else {
		lines = append(lines, summary...)
	}
	if mapH > 0 {
		lines = append(lines, drawMap(st, o.Map, w, mapH)...)
	}
	return lines
}

// timers draws one countdown bar per timer: "X-1 arrives ███░░░ 1m12s".
func (v *worldView) timers(st *styles, now time.Time, w int) []string {
	var lines []string
	for _, t := range v.obs.Timers {
		label := padLine(t.Label, min(24, max(w/3, 8)))
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
		barW := max(w-ansi.StringWidth(label)-len(tail)-2, 4)
		done := int(math.Round(frac * float64(barW)))
		bar := st.accent.Render(strings.Repeat("█", done)) + st.muted.Render(strings.Repeat("░", barW-done))
		lines = append(lines, label+" "+bar+" "+tail)
	}
	return lines
}

// metrics draws the metrics on one line and a sparkline of the first "credits" metric
// (or the first metric) over the session.
func (v *worldView) metrics(st *styles, w int) []string {
	ms := v.obs.Metrics
	if len(ms) == 0 {
		return nil
	}
	var parts []string
	plot := ms[0].Name
	for _, m := range ms {
		parts = append(parts, st.muted.Render(m.Name)+" "+st.strong.Render(formatNumber(m.Value))+unitSuffix(m.Unit))
		if strings.EqualFold(m.Name, "credits") {
			plot = m.Name
		}
	}
	lines := wrapText(strings.Join(parts, "  "), w)
	if h := v.history[plot]; len(h) > 1 {
		label := plot + " "
		lines = append(lines, st.muted.Render(label)+st.good.Render(sparkline(h, w-len(label))))
	}
	return lines
}

func unitSuffix(u string) string {
	if u == "" {
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
