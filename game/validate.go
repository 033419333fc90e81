package game

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// Problem is one thing wrong with a call's arguments.
type Problem struct {
	Path     string `json:"path"`           // where, e.g. "arguments.cargo[0].units"
	Expected string `json:"expected"`       // what the schema wants
	Got      string `json:"got"`            // what was sent
	Hint     string `json:"hint,omitempty"` // e.g. "did you mean CRUISE?"
}

// String returns "PATH: expected E, got G (HINT)".
func (p Problem) String() string {
	s := fmt.Sprintf("%s: expected %s, got %s", p.Path, p.Expected, p.Got)
	if p.Hint != "" {
		s += " (" + p.Hint + ")"
	}
	return s
}

// ValidationError lists every problem with a call's arguments. Nothing was sent.
type ValidationError struct {
	Tool     string    `json:"tool"`
	Problems []Problem `json:"problems"`
}

// Error lists the problems, one per line.
func (e *ValidationError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "invalid arguments for %s (not executed):", e.Tool)
	for _, p := range e.Problems {
		b.WriteString("\n- ")
		b.WriteString(p.String())
	}
	return b.String()
}

// rootPath names the arguments object in problem paths.
const rootPath = "arguments"

// Validate checks raw JSON arguments against a tool's schema and returns a
// *ValidationError listing every problem, or nil. Empty input means no arguments ({}).
// Values are never converted: "5" is not 5, and "cruise" is not CRUISE.
func Validate(tool string, schema *jsonschema.Schema, args json.RawMessage) error {
	var probs []Problem
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	v, err := decodeJSON(args)
	if err != nil {
		probs = append(probs, Problem{Path: rootPath, Expected: "a JSON object", Got: "invalid JSON (" + err.Error() + ")"})
	} else {
		probs = append(probs, duplicateKeys(args)...)
		probs = (&walk{root: schema}).check(schema, v, rootPath, probs)
	}
	if len(probs) == 0 {
		return nil
	}
	return &ValidationError{Tool: tool, Problems: probs}
}

// ValidateTool is the whole validation of a call to t: the schema (Validate, duplicate
// keys included), then the game's own Tool.Check when the schema passed. It returns
// the arguments compacted ("{}" for empty input), ready to run without being checked
// again, or a *ValidationError listing every problem.
func ValidateTool(t Tool, args json.RawMessage) (json.RawMessage, error) {
	if err := Validate(t.Name, t.Schema, args); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if len(bytes.TrimSpace(args)) == 0 {
		buf.WriteString("{}")
	} else if err := json.Compact(&buf, args); err != nil {
		return nil, &ValidationError{Tool: t.Name, Problems: []Problem{{Path: rootPath, Expected: "a JSON object", Got: "invalid JSON (" + err.Error() + ")"}}}
	}
	out := json.RawMessage(buf.Bytes())
	if t.Check != nil {
		if probs := t.Check(out); len(probs) > 0 {
			return nil, &ValidationError{Tool: t.Name, Problems: probs}
		}
	}
	return out, nil
}

// decodeJSON parses exactly one JSON value, keeping numbers exact.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, errors.New("unexpected end of input, truncated?")
		}
		return nil, err
	}
	if rest := bytes.TrimSpace(data[dec.InputOffset():]); len(rest) > 0 {
		return nil, fmt.Errorf("extra data after the JSON value at offset %d", dec.InputOffset())
	}
	return v, nil
}

// check appends the problems of v against s at path.
func (w *walk) check(s *jsonschema.Schema, v any, path string, probs []Problem) []Problem {
	if s == nil || isTrue(s) {
		return probs
	}
	if composite(s) {
		return w.checkComposite(s, v, path, probs)
	}
	if s.Not != nil && isTrue(s.Not) {
		return append(probs, Problem{Path: path, Expected: "nothing (not allowed here)", Got: describe(v)})
	}
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	if len(types) > 0 && !slices.ContainsFunc(types, func(t string) bool { return hasType(v, t) }) {
		p := Problem{Path: path, Expected: typeList(types, s), Got: describe(v)}
		if str, ok := v.(string); ok && (slices.Contains(types, "integer") || slices.Contains(types, "number")) {
			if _, err := json.Number(str).Float64(); err == nil {
				p.Hint = "send the number " + str + " without quotes"
			}
		}
		return append(probs, p)
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { return equalJSON(e, v) }) {
		p := Problem{Path: path, Expected: "one of " + enumList(s.Enum), Got: describe(v)}
		if str, ok := v.(string); ok {
			if near := Closest(str, enumStrings(s.Enum), 3); len(near) > 0 {
				p.Hint = "did you mean " + orList(near) + "?"
			}
		}
		probs = append(probs, p)
	}
	if s.Const != nil && !equalJSON(*s.Const, v) {
		probs = append(probs, Problem{Path: path, Expected: describe(*s.Const), Got: describe(v)})
	}
	if s.Format != "" {
		probs = checkFormat(s.Format, v, path, probs)
	}
	switch x := v.(type) {
	case string:
		n := utf8.RuneCountInString(x)
		if s.MinLength != nil && n < *s.MinLength {
			probs = append(probs, Problem{Path: path, Expected: fmt.Sprintf("at least %d characters", *s.MinLength), Got: describe(v)})
		}
		if s.MaxLength != nil && n > *s.MaxLength {
			probs = append(probs, Problem{Path: path, Expected: fmt.Sprintf("at most %d characters", *s.MaxLength), Got: fmt.Sprintf("%d characters", n)})
		}
		if s.Pattern != "" {
			if re, err := regexp.Compile(s.Pattern); err == nil && !re.MatchString(x) {
				probs = append(probs, Problem{Path: path, Expected: "a string matching " + s.Pattern, Got: describe(v)})
			}
		}
	case json.Number:
		f, _ := x.Float64()
		if s.Minimum != nil && f < *s.Minimum {
			probs = append(probs, Problem{Path: path, Expected: "a number ≥ " + fmtNum(*s.Minimum), Got: x.String()})
		}
		if s.Maximum != nil && f > *s.Maximum {
			probs = append(probs, Problem{Path: path, Expected: "a number ≤ " + fmtNum(*s.Maximum), Got: x.String()})
		}
		if s.ExclusiveMinimum != nil && f <= *s.ExclusiveMinimum {
			probs = append(probs, Problem{Path: path, Expected: "a number > " + fmtNum(*s.ExclusiveMinimum), Got: x.String()})
		}
		if s.ExclusiveMaximum != nil && f >= *s.ExclusiveMaximum {
			probs = append(probs, Problem{Path: path, Expected: "a number < " + fmtNum(*s.ExclusiveMaximum), Got: x.String()})
		}
	case []any:
		if s.MinItems != nil && len(x) < *s.MinItems {
			probs = append(probs, Problem{Path: path, Expected: fmt.Sprintf("at least %d items", *s.MinItems), Got: fmt.Sprintf("%d items", len(x))})
		}
		if s.MaxItems != nil && len(x) > *s.MaxItems {
			probs = append(probs, Problem{Path: path, Expected: fmt.Sprintf("at most %d items", *s.MaxItems), Got: fmt.Sprintf("%d items", len(x))})
		}
		for i, item := range x {
			probs = w.check(s.Items, item, fmt.Sprintf("%s[%d]", path, i), probs)
		}
	case map[string]any:
		probs = w.checkObject(s, x, path, probs)
	}
	return w.checkMore(s, v, path, probs)
}

// checkObject appends the problems of an object's properties: missing required ones
// first (so a misspelt name reads as "missing X" then "unknown Y, did you mean X?"),
// then each property in name order so the output is stable.
func (w *walk) checkObject(s *jsonschema.Schema, obj map[string]any, path string, probs []Problem) []Problem {
	valid := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		valid = append(valid, name)
	}
	sort.Strings(valid)
	for _, name := range s.Required {
		if _, ok := obj[name]; !ok {
			p := s.Properties[name]
			probs = append(probs, Problem{Path: path + "." + name, Expected: "required " + w.desc(p), Got: "nothing (missing)"})
		}
	}
	names := make([]string, 0, len(obj))
	for name := range obj {
		names = append(names, name)
	}
	sort.Strings(names)
	closed := s.AdditionalProperties != nil && s.AdditionalProperties.Not != nil && isTrue(s.AdditionalProperties.Not)
	for _, name := range names {
		if p, ok := s.Properties[name]; ok {
			probs = w.check(p, obj[name], path+"."+name, probs)
			continue
		}
		if closed {
			pr := Problem{Path: path + "." + name, Expected: "no property " + quote(name) + " (valid: " + strings.Join(valid, ", ") + ")", Got: describe(obj[name])}
			if len(valid) == 0 {
				pr.Expected = "no properties (this tool takes no arguments)"
			}
			if near := Closest(name, valid, 2); len(near) > 0 {
				pr.Hint = "did you mean " + orList(near) + "?"
			}
			probs = append(probs, pr)
			continue
		}
		probs = w.check(s.AdditionalProperties, obj[name], path+"."+name, probs)
	}
	return probs
}

// isTrue reports whether s accepts anything (the empty schema).
func isTrue(s *jsonschema.Schema) bool {
	b, err := json.Marshal(s)
	return err == nil && (string(b) == "{}" || string(b) == "true")
}

func hasType(v any, t string) bool {
	switch t {
	case "null":
		return v == nil
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		if _, err := n.Int64(); err == nil {
			return true
		}
		f, err := n.Float64()
		return err == nil && f == math.Trunc(f) && !math.IsInf(f, 0)
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	}
	return false
}

// describe says what a JSON value is, briefly: `string "abc"`, `number 5`, `null`.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return fmt.Sprintf("boolean %v", x)
	case string:
		if utf8.RuneCountInString(x) > 40 {
			x = string([]rune(x)[:40]) + "…"
		}
		return "string " + quote(x)
	case json.Number:
		return "number " + x.String()
	case float64, int:
		return fmt.Sprintf("number %v", x)
	case []any:
		return fmt.Sprintf("array of %d items", len(x))
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%v", v)
}

func schemaDesc(s *jsonschema.Schema) string {
	if s == nil {
		return "value"
	}
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	d := typeList(types, s)
	if len(s.Enum) > 0 {
		d = "one of " + enumList(s.Enum)
	}
	return d
}

func typeList(types []string, s *jsonschema.Schema) string {
	if len(types) == 0 {
		return "any value"
	}
	parts := make([]string, len(types))
	for i, t := range types {
		switch t {
		case "integer":
			parts[i] = "an integer"
		case "array":
			parts[i] = "an array"
		case "object":
			parts[i] = "an object"
		case "null":
			parts[i] = "null"
		default:
			parts[i] = "a " + t
		}
	}
	return strings.Join(parts, " or ")
}

func enumStrings(enum []any) []string {
	var out []string
	for _, e := range enum {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func enumList(enum []any) string {
	parts := make([]string, 0, len(enum))
	for _, e := range enum {
		b, _ := json.Marshal(e)
		parts = append(parts, string(b))
	}
	if len(parts) > 12 {
		return strings.Join(parts[:12], ", ") + fmt.Sprintf(", … (%d in all)", len(parts))
	}
	return strings.Join(parts, ", ")
}

func equalJSON(a, b any) bool {
	ab, err1 := json.Marshal(a)
	bb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(ab, bb)
}

func fmtNum(f float64) string { return json.Number(fmt.Sprint(f)).String() }

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func orList(xs []string) string {
	if len(xs) == 1 {
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}
