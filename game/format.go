package game

import (
	"encoding/json"
	"math/big"
	"net/mail"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// The formats validation checks (JSON Schema's "format" keyword, as OpenAPI specs and
// MCP servers write it). A value that does not have its format is refused before the
// gate, with a path like any other schema problem: a server would refuse it anyway,
// or worse, read "tomorrow at noon" as something else. Formats not listed here stay
// annotations (shown to the model, never refusing a value).
var stringFormats = map[string]struct {
	want  string // what the problem says was expected
	check func(string) bool
}{
	"date-time": {"a date-time (RFC 3339, like 2026-01-02T15:04:05Z)", isDateTime},
	"date":      {"a date (RFC 3339 full-date, like 2026-01-02)", isDate},
	"time":      {"a time (like 15:04:05 or 15:04:05Z)", isTime},
	"email":     {"an email address (like name@example.com)", isEmail},
	"uuid":      {"a UUID (like 123e4567-e89b-12d3-a456-426614174000)", isUUID},
	"uri":       {"an absolute URI (like https://example.com/path)", isURI},
}

// integerFormats are the ranges of OpenAPI's int32 and int64.
var integerFormats = map[string][2]*big.Int{
	"int32": {big.NewInt(-1 << 31), big.NewInt(1<<31 - 1)},
	"int64": {big.NewInt(-1 << 63), big.NewInt(1<<63 - 1)},
}

// checkFormat appends a problem when v does not have the format s names.
func checkFormat(format string, v any, path string, probs []Problem) []Problem {
	switch x := v.(type) {
	case string:
		f, ok := stringFormats[format]
		if ok && !f.check(x) {
			probs = append(probs, Problem{Path: path, Expected: f.want, Got: describe(v)})
		}
	case json.Number:
		bounds, ok := integerFormats[format]
		if !ok {
			return probs
		}
		n, isInt := new(big.Rat).SetString(x.String())
		if !isInt || !n.IsInt() {
			return append(probs, Problem{Path: path, Expected: "a whole number (" + format + ")", Got: x.String()})
		}
		if n.Num().Cmp(bounds[0]) < 0 || n.Num().Cmp(bounds[1]) > 0 {
			probs = append(probs, Problem{Path: path, Expected: "a whole number from " + bounds[0].String() + " to " + bounds[1].String() + " (" + format + ")", Got: x.String()})
		}
	}
	return probs
}

// isDateTime accepts RFC 3339 date-times: a T (or t, or a space, which RFC 3339
// allows) between date and time, and an offset or Z.
func isDateTime(s string) bool {
	if len(s) > 10 && (s[10] == 't' || s[10] == ' ') {
		s = s[:10] + "T" + s[11:]
	}
	_, err := time.Parse(time.RFC3339Nano, strings.ToUpper(s))
	return err == nil
}

func isDate(s string) bool {
	_, err := time.Parse(time.DateOnly, s)
	return err == nil && len(s) == len(time.DateOnly)
}

// timeRE is an RFC 3339 partial-time with an optional offset (servers and generated
// schemas disagree on whether "time" needs one).
var timeRE = regexp.MustCompile(`^([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([zZ]|[+-]([01]\d|2[0-3]):[0-5]\d)?$`)

func isTime(s string) bool { return timeRE.MatchString(s) }

func isEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Name == "" && a.Address == s && !strings.ContainsAny(s, " <>")
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

func isUUID(s string) bool { return uuidRE.MatchString(s) }

func isURI(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && !strings.ContainsAny(s, " \t\n")
}
