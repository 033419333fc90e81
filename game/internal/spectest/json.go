package spectest

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/game"
)

// Dig walks a decoded JSON value (maps and slices as encoding/json makes them) by a
// dotted path such as "data.0.symbol"; numeric parts index arrays. A path that leads
// nowhere gives nil.
func Dig(v any, path string) any {
	for _, part := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[part]
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// Str is the string at path in v, or "".
func Str(v any, path string) string { s, _ := Dig(v, path).(string); return s }

// Num is the number at path in v, or 0.
func Num(v any, path string) float64 { n, _ := Dig(v, path).(float64); return n }

// List is the array at path in v, or nil.
func List(v any, path string) []any { l, _ := Dig(v, path).([]any); return l }

// WaitUntil moves clock just past stamp, an RFC 3339 time from an answer (an arrival,
// a cooldown's expiration); a time already past leaves the clock where it is.
func WaitUntil(tb testing.TB, clock *game.FakeClock, stamp string) {
	tb.Helper()
	at, err := time.Parse(time.RFC3339Nano, stamp)
	if err != nil {
		tb.Fatalf("bad timestamp %q: %v", stamp, err)
	}
	if d := at.Sub(clock.Now()); d > 0 {
		clock.Advance(d + time.Millisecond)
	}
}
