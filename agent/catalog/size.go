package catalog

import (
	"encoding/json"
	"strconv"

	"github.com/coplayhq/coplay/game"
)

// DefaultBudget is the characters of tool definitions sent with each model request
// when Options.Budget is zero. The offline SpaceTraders catalogue (about 9,800) fits
// whole; a spec of hundreds of operations (150k and more) does not, and sending that
// on every step is more than most models take and more than anyone wants to pay for.
const DefaultBudget = 12_000

// WireSize is the characters of t's definition as a chat-completions request carries
// it: the JSON of the go-openai Tool that agent/openai's toWireTools builds. go-openai
// marshals a Tool through a map, so its keys come sorted:
//
//	{"function":{"name":…,"description":…,"parameters":<schema>},"type":"function"}
//
// with "description" left out when empty. It is computed here rather than by
// marshalling a go-openai Tool so that the catalogue does not depend on one provider's
// client; the tests hold it equal to go-openai's bytes. A schema that cannot be
// marshalled counts as the empty object schema (the request would fail anyway).
func WireSize(t game.Tool) int {
	n := len(`{"function":{"name":`) + jsonStringLen(t.Name)
	if t.Description != "" {
		n += len(`,"description":`) + jsonStringLen(t.Description)
	}
	n += len(`,"parameters":`) + len(paramsJSON(t)) + len(`},"type":"function"}`)
	return n
}

// Size is the characters of tools as a request's "tools" array carries them: the sum
// of their WireSize plus the brackets and the commas between them. No tools is 0, not
// 2, because go-openai leaves an empty "tools" out of the request.
func Size(tools []game.Tool) int {
	if len(tools) == 0 {
		return 0
	}
	n := 2 + len(tools) - 1
	for _, t := range tools {
		n += WireSize(t)
	}
	return n
}

// grow is the Size of an array of n tools totalling size once one more tool of w
// characters is appended: the first brings the brackets, every later one a comma.
func grow(size, n, w int) int {
	if n == 0 {
		return w + 2
	}
	return size + w + 1
}

// paramsJSON is the "parameters" value as toWireTools sends it.
func paramsJSON(t game.Tool) []byte {
	b, err := t.SchemaJSON()
	if err != nil {
		return []byte(game.EmptyObjectSchema)
	}
	return b
}

// jsonStringLen is the length of s as encoding/json writes it (HTML characters
// escaped, invalid UTF-8 replaced), which is how go-openai sends names and
// descriptions.
func jsonStringLen(s string) int {
	// Plain ASCII without anything to escape is the common case; skip the marshal.
	plain := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			plain = false
			break
		}
	}
	if plain {
		return len(s) + 2
	}
	b, err := json.Marshal(s)
	if err != nil { // cannot happen for a string
		return len(strconv.Quote(s))
	}
	return len(b)
}
