package ui

import (
	"bytes"
	"encoding/json"
	"strings"
)

// fitJSON indents raw JSON for a pane w columns wide, keeping any object or array
// whose one-line form fits on its line: a survey's deposits read as one short line
// each rather than three. With spread, a top-level object of several keys always has
// one key per line. Keys keep their order. Invalid JSON is returned as it is.
func fitJSON(raw json.RawMessage, w int, spread bool) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "{}"
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := readValue(dec)
	if err != nil {
		return string(raw)
	}
	if _, err := dec.Token(); err == nil {
		return string(raw) // more than one value
	}
	var b strings.Builder
	v.write(&b, "", w, spread && v.object && len(v.items) > 1)
	return b.String()
}

// jsonValue is a decoded JSON value that remembers the order of object keys.
type jsonValue struct {
	scalar string // the encoded scalar, when not an object or array
	keys   []string
	items  []jsonValue // object values (by keys) or array elements
	object bool
	array  bool
}

func readValue(dec *json.Decoder) (jsonValue, error) {
	tok, err := dec.Token()
	if err != nil {
		return jsonValue{}, err
	}
	switch t := tok.(type) {
	case json.Delim:
		v := jsonValue{object: t == '{', array: t == '['}
		for dec.More() {
			if v.object {
				kt, err := dec.Token()
				if err != nil {
					return v, err
				}
				k, _ := kt.(string)
				v.keys = append(v.keys, k)
			}
			item, err := readValue(dec)
			if err != nil {
				return v, err
			}
			v.items = append(v.items, item)
		}
		_, err := dec.Token() // the closing delimiter
		return v, err
	default:
		enc, err := json.Marshal(t)
		return jsonValue{scalar: string(enc)}, err
	}
}

// inline is the value on one line, with a space after commas and colons.
func (v jsonValue) inline() string {
	switch {
	case v.object:
		parts := make([]string, len(v.items))
		for i := range v.items {
			parts[i] = quote(v.keys[i]) + ": " + v.items[i].inline()
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case v.array:
		parts := make([]string, len(v.items))
		for i := range v.items {
			parts[i] = v.items[i].inline()
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return v.scalar
}

// write writes v starting at the current position of a line indented by indent; the
// first line is already begun (by a key, or nothing). expand spreads v over lines even
// when it would fit on one.
func (v jsonValue) write(b *strings.Builder, indent string, w int, expand bool) {
	if one := v.inline(); (!v.object && !v.array) || len(v.items) == 0 || (!expand && len(indent)+len(one) <= w-2) {
		b.WriteString(one)
		return
	}
	open, end := "[", "]"
	if v.object {
		open, end = "{", "}"
	}
	b.WriteString(open + "\n")
	inner := indent + "  "
	for i, item := range v.items {
		b.WriteString(inner)
		if v.object {
			b.WriteString(quote(v.keys[i]) + ": ")
		}
		item.write(b, inner, w, false)
		if i < len(v.items)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString(indent + end)
}

func quote(s string) string {
	enc, _ := json.Marshal(s)
	return string(enc)
}
