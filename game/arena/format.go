package arena

import (
	"fmt"
	"strings"
	"time"
)

// clock writes a game time as "08:30".
func clock(t time.Time) string { return t.Format("15:04") }

// day returns the game day of t, from 1.
func day(t time.Time) int { return int(t.Sub(Epoch.Truncate(24*time.Hour))/(24*time.Hour)) + 1 }

// stamp writes a game time with its day: "day 1 08:30".
func stamp(t time.Time) string { return fmt.Sprintf("day %d %s", day(t), clock(t)) }

// until writes how long from now to t, in game minutes: "4m", "1h05m", "now".
func until(now, t time.Time) string {
	d := t.Sub(now)
	if d <= 0 {
		return "now"
	}
	m := int((d + time.Minute - 1) / time.Minute) // a part of a minute counts
	if m < 60 {
		return fmt.Sprintf("%dm", m)
	}
	return fmt.Sprintf("%dh%02dm", m/60, m%60)
}

// bar draws v of full as ten cells: "██████░░░░".
func bar(v, full int) string {
	n := 0
	if full > 0 {
		n = clamp((v*10+full/2)/full, 0, 10)
	}
	return strings.Repeat("█", n) + strings.Repeat("░", 10-n)
}

// cut shortens s to n runes, marking the cut.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:max(0, n-1)]) + "…"
}

// trustWord says what a trust level means.
func trustWord(t int) string {
	switch {
	case t >= 40:
		return "close"
	case t >= 15:
		return "friendly"
	case t >= 0:
		return "neutral"
	case t >= -30:
		return "wary"
	}
	return "hostile"
}

// plural writes "1 bread", "3 apples" (the market's items take an s, bread and others
// not).
func plural(n int, item string) string {
	if n != 1 && item == "apple" {
		return fmt.Sprintf("%d apples", n)
	}
	return fmt.Sprintf("%d %s", n, item)
}
