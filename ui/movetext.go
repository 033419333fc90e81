package ui

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/coplayhq/coplay/game"
	"github.com/google/jsonschema-go/jsonschema"
)

// How the move line reads what the person types: a tool's name, then its arguments as
// key=value pairs (a value in JSON when it is JSON and the field is not a string:
// units=5, ok=true; a string otherwise, quoted when it holds a space: note="two words")
// or as one JSON object. And what tab completes there: the tool's name, then an
// argument's name, then one of its values when the schema lists them.

// parseMove reads line as a move: the tool, and the arguments as one JSON object. A
// problem in how the arguments are written (not what they say: the validator checks
// that) is returned as text.
func parseMove(line string, tools map[string]game.Tool) (tool string, args json.RawMessage, problem string) {
	line = strings.TrimSpace(line)
	tool, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	switch {
	case tool == "":
		return "", nil, "type a tool's name (tab completes it)"
	case rest == "":
		return tool, json.RawMessage("{}"), ""
	case strings.HasPrefix(rest, "{"):
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(rest), &obj); err != nil {
			return tool, nil, "arguments: one JSON object, or key=value pairs (" + err.Error() + ")"
		}
		return tool, json.RawMessage(rest), ""
	}
	props := propsOf(tools[tool])
	obj := map[string]json.RawMessage{}
	var order []string
	for _, tok := range fieldsOf(rest) {
		k, v, ok := strings.Cut(tok, "=")
		if !ok || k == "" {
			return tool, nil, fmt.Sprintf("arguments: %q is not key=value", tok)
		}
		if _, dup := obj[k]; dup {
			return tool, nil, fmt.Sprintf("arguments: %s is given twice", k)
		}
		obj[k] = valueJSON(v, props[k])
		order = append(order, k)
	}
	var b strings.Builder
	b.WriteString("{")
	for i, k := range order {
		if i > 0 {
			b.WriteString(",")
		}
		kj, _ := json.Marshal(k)
		b.Write(kj)
		b.WriteString(":")
		b.Write(obj[k])
	}
	b.WriteString("}")
	return tool, json.RawMessage(b.String()), ""
}

// valueJSON is a typed value as JSON: a quoted string unquoted; JSON as it is unless the
// field takes a string; anything else a string.
func valueJSON(v string, s *jsonschema.Schema) json.RawMessage {
	if strings.HasPrefix(v, `"`) {
		var str string
		if json.Unmarshal([]byte(v), &str) == nil {
			return json.RawMessage(v)
		}
	}
	if json.Valid([]byte(v)) && !takesString(s) {
		return json.RawMessage(v)
	}
	out, _ := json.Marshal(v)
	return out
}

// takesString says whether a field's schema wants a string.
func takesString(s *jsonschema.Schema) bool {
	if s == nil {
		return false
	}
	return s.Type == "string" || slices.Equal(s.Types, []string{"string"})
}

// fieldsOf splits the arguments at spaces outside quotes and brackets.
func fieldsOf(s string) []string {
	var out []string
	var cur strings.Builder
	depth, quoted, escaped := 0, false, false
	for _, r := range s {
		switch {
		case escaped:
			escaped = false
		case quoted && r == '\\':
			escaped = true
		case r == '"':
			quoted = !quoted
		case !quoted && (r == '{' || r == '['):
			depth++
		case !quoted && (r == '}' || r == ']'):
			depth--
		case !quoted && depth <= 0 && r == ' ':
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
			continue
		}
		cur.WriteRune(r)
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// propsOf is a tool's argument fields by name.
func propsOf(t game.Tool) map[string]*jsonschema.Schema {
	if t.Schema == nil {
		return nil
	}
	return t.Schema.Properties
}

// complete is what tab does to line: the line completed as far as every candidate
// agrees, and the candidates when there is more than one (or none is left to add).
func complete(line string, tools map[string]game.Tool, names []string) (string, []string) {
	tool, rest, spaced := strings.Cut(line, " ")
	if !spaced {
		return extend(line, tool, matching(names, tool), " ")
	}
	if strings.HasPrefix(strings.TrimSpace(rest), "{") {
		return line, nil // a JSON object is typed whole
	}
	props := propsOf(tools[tool])
	if props == nil {
		return line, nil
	}
	last := ""
	if !strings.HasSuffix(rest, " ") {
		if fs := fieldsOf(rest); len(fs) > 0 {
			last = fs[len(fs)-1]
		}
	}
	head := strings.TrimSuffix(line, last)
	name, partial, valued := strings.Cut(last, "=")
	if !valued {
		given := map[string]bool{}
		for _, f := range fieldsOf(rest) {
			if k, _, ok := strings.Cut(f, "="); ok {
				given[k] = true
			}
		}
		var free []string
		for k := range props {
			if !given[k] {
				free = append(free, k)
			}
		}
		sort.Strings(free)
		return extend(line, last, matching(free, name), "=")
	}
	out, cands := extend(partial, partial, matching(enumOf(props[name]), partial), " ")
	return head + name + "=" + out, cands
}

// enumOf lists a field's values as text, when its schema lists them.
func enumOf(s *jsonschema.Schema) []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, e := range s.Enum {
		if str, ok := e.(string); ok {
			out = append(out, str)
		} else {
			b, _ := json.Marshal(e)
			out = append(out, string(b))
		}
	}
	return out
}

// matching are the candidates that start with prefix; failing that, those that hold
// it anywhere (nav → navigate_ship, orbit → orbit_ship).
func matching(cands []string, prefix string) []string {
	var out []string
	for _, c := range cands {
		if strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	if len(out) == 0 && prefix != "" {
		for _, c := range cands {
			if strings.Contains(c, prefix) {
				out = append(out, c)
			}
		}
	}
	return out
}

// extend replaces the token typed at the end of line by what every candidate starts
// with, and one whole candidate followed by after; it returns the line and the
// candidates to show when more than one is left.
func extend(line, typed string, cands []string, after string) (string, []string) {
	base := strings.TrimSuffix(line, typed)
	switch len(cands) {
	case 0:
		return line, nil
	case 1:
		return base + cands[0] + after, nil
	}
	common := cands[0]
	for _, c := range cands[1:] {
		for !strings.HasPrefix(c, common) {
			common = common[:len(common)-1]
		}
	}
	if len(common) < len(typed) || !strings.HasPrefix(common, typed) {
		common = typed // the candidates hold the text elsewhere: keep what was typed
	}
	return base + common, cands
}
