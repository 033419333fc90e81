package game

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// duplicateKeys returns a problem for every object key that appears twice in the same
// object of data (already known to be one valid JSON value). encoding/json keeps the
// last of two equal keys, so {"shipSymbol":"A","shipSymbol":"B"} would validate and run
// with B while a person reading the call may see A: such a call is refused instead.
func duplicateKeys(data []byte) []Problem {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var probs []Problem
	walkDup(dec, rootPath, &probs)
	return probs
}

// walkDup reads one value from dec, appending duplicate-key problems found under path.
// It returns false when the stream ends or cannot be read (the caller has already
// reported invalid JSON).
func walkDup(dec *json.Decoder, path string, probs *[]Problem) bool {
	tok, err := dec.Token()
	if err != nil {
		return false
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return true
	}
	switch d {
	case '{':
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return false
			}
			key, _ := kt.(string)
			child := path + "." + key
			if seen[key] {
				*probs = append(*probs, Problem{Path: child, Expected: "each key once",
					Got: "duplicate key " + key, Hint: "send " + key + " once, with the value you mean"})
			}
			seen[key] = true
			if !walkDup(dec, child, probs) {
				return false
			}
		}
	case '[':
		for i := 0; dec.More(); i++ {
			if !walkDup(dec, fmt.Sprintf("%s[%d]", path, i), probs) {
				return false
			}
		}
	}
	_, err = dec.Token() // the closing delimiter
	return err == nil
}
