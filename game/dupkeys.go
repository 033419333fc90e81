package game

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// duplicateKeys returns a problem for every object key that appears twice in the same
// object of data (already known to be one valid JSON value). encoding/json keeps the
// last of two equal keys, so {"shipSymbol":"A","shipSymbol":"B"} would validate and run
// with B while a person reading the call may see A: such a call is refused instead,
// showing both values.
func duplicateKeys(data []byte) []Problem {
	var probs []Problem
	walkDup(data, rootPath, &probs)
	return probs
}

// walkDup reads the one value in data, appending duplicate-key problems found under
// path. It stops quietly at anything it cannot read (the caller has already reported
// invalid JSON).
func walkDup(data []byte, path string, probs *[]Problem) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return
	}
	switch d {
	case '{':
		first := map[string]json.RawMessage{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return
			}
			key, _ := kt.(string)
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return
			}
			child := path + "." + key
			if prev, seen := first[key]; seen {
				*probs = append(*probs, Problem{Path: child, Expected: "each key once",
					Got:  fmt.Sprintf("duplicate key %s: first %s, then %s", key, shortJSON(prev), shortJSON(raw)),
					Hint: "send " + key + " once, with the value you mean"})
			} else {
				first[key] = raw
			}
			walkDup(raw, child, probs)
		}
	case '[':
		for i := 0; dec.More(); i++ {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return
			}
			walkDup(raw, fmt.Sprintf("%s[%d]", path, i), probs)
		}
	}
}

// shortJSON is a value compacted and cut to 60 bytes (at a rune boundary), for a
// problem's text.
func shortJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		b.Reset()
		b.Write(raw)
	}
	return Clip(b.String(), 60)
}
