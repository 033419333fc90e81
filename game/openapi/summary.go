package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/coplayhq/coplay/game"
)

// outputLimit caps what one call's result shows the model.
const outputLimit = 8 << 10

// fullLimit caps what last_response shows at once.
const fullLimit = 64 << 10

// shrink is one level of summarising: lists cut to Items, strings to Chars runes,
// objects below Depth replaced by a marker.
type shrink struct{ Items, Chars, Depth int }

// levels are tried in turn until the summary fits.
var levels = []shrink{
	{Items: 20, Chars: 400, Depth: 12},
	{Items: 10, Chars: 200, Depth: 10},
	{Items: 5, Chars: 120, Depth: 8},
	{Items: 3, Chars: 80, Depth: 6},
	{Items: 2, Chars: 60, Depth: 5},
	{Items: 1, Chars: 40, Depth: 4},
}

// summarize returns body as the model should read it, at most limit bytes, and
// whether anything was left out. JSON keeps its shape with long arrays cut (with a
// count of what is left out) and long strings trimmed; other text is trimmed.
func summarize(body []byte, limit int) (string, bool) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return "", false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return cutText(string(body), limit)
	}
	if len(body) <= limit {
		if out, err := marshal(v); err == nil && len(out) <= limit {
			return out, false
		}
	}
	for _, l := range levels {
		cut := false
		out, err := marshal(l.apply(v, 0, &cut))
		if err == nil && len(out) <= limit {
			return out, cut
		}
	}
	out, _ := marshal(levels[len(levels)-1].apply(v, 0, new(bool)))
	s, _ := cutText(out, limit)
	return s, true
}

// apply returns a smaller copy of v.
func (l shrink) apply(v any, depth int, cut *bool) any {
	switch x := v.(type) {
	case string:
		if n := utf8.RuneCountInString(x); n > l.Chars {
			*cut = true
			return string([]rune(x)[:l.Chars]) + fmt.Sprintf("…(+%d chars)", n-l.Chars)
		}
		return x
	case []any:
		if depth >= l.Depth {
			*cut = true
			return fmt.Sprintf("[… %d items]", len(x))
		}
		n := min(len(x), l.Items)
		out := make([]any, 0, n+1)
		for _, item := range x[:n] {
			out = append(out, l.apply(item, depth+1, cut))
		}
		if len(x) > n {
			*cut = true
			out = append(out, fmt.Sprintf("… %d more (%d in all)", len(x)-n, len(x)))
		}
		return out
	case map[string]any:
		if depth >= l.Depth {
			*cut = true
			return fmt.Sprintf("{… %d fields}", len(x))
		}
		out := make(map[string]any, len(x))
		for k, item := range x {
			out[k] = l.apply(item, depth+1, cut)
		}
		return out
	}
	return v
}

func marshal(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// cutText trims s to at most limit bytes on a character boundary, marking the cut.
func cutText(s string, limit int) (string, bool) {
	if len(s) <= limit {
		return s, false
	}
	const mark = "…(cut)"
	return game.CutBytes(s, max(0, limit-len(mark))) + mark, true
}
