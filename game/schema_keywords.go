package game

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// This file holds the JSON Schema keywords that schemas written by other people use and
// ours do not: $ref into $defs or definitions, allOf, anyOf, oneOf (nullable
// `anyOf: [T, {"type": "null"}]` included), not, if/then/else, draft-07 tuple items,
// multipleOf, uniqueItems, min/maxProperties and dependentRequired. MCP servers send
// such schemas (draft-07 from zod, 2020-12 from pydantic). The problems they give have
// the same shape as validate.go's: a path, what was expected, what was got, a hint.
//
// default, title, examples and the like are annotations: they are shown to the model in
// the schema and never refuse a value. format is checked for the formats format.go
// knows (date-time, date, time, email, uuid, uri, int32, int64): a server would refuse
// "tomorrow at noon" as a date-time anyway, or read it as something else; any other
// format stays an annotation.

// walk is one validation: the root schema, against which $ref is resolved, and a guard
// against reference cycles (how many $ref and combinator hops were followed at the
// current path without descending into the value).
type walk struct {
	root *jsonschema.Schema
	at   string // the path hops counts for
	hops int
}

// maxHops bounds $ref/allOf/anyOf/oneOf hops at one path: a schema like
// {"$ref": "#"} at its root would otherwise recurse for ever.
const maxHops = 32

// composite reports whether s needs more than its own keywords to be checked.
func composite(s *jsonschema.Schema) bool {
	return s.Ref != "" || len(s.AllOf) > 0 || len(s.AnyOf) > 0 || len(s.OneOf) > 0
}

// checkComposite checks s's own keywords, then its $ref target, every allOf branch, and
// its anyOf and oneOf alternatives.
func (w *walk) checkComposite(s *jsonschema.Schema, v any, path string, probs []Problem) []Problem {
	at, hops := w.at, w.hops
	defer func() { w.at, w.hops = at, hops }()
	if w.at == path {
		w.hops++
	} else {
		w.at, w.hops = path, 1
	}
	if w.hops > maxHops {
		return append(probs, Problem{Path: path, Expected: "a schema that can be checked", Got: "a schema that refers to itself without end",
			Hint: "the tool's schema is broken; the call cannot be checked, so it is not sent"})
	}
	base := *s
	base.Ref, base.AllOf, base.AnyOf, base.OneOf = "", nil, nil, nil
	probs = w.check(&base, v, path, probs)
	if s.Ref != "" {
		target, err := w.resolve(s.Ref)
		if err != nil {
			probs = append(probs, Problem{Path: path, Expected: "a schema that can be checked", Got: err.Error(),
				Hint: "the tool's schema is broken; the call cannot be checked, so it is not sent"})
		} else {
			probs = w.check(target, v, path, probs)
		}
	}
	for _, sub := range s.AllOf {
		probs = w.check(sub, v, path, probs)
	}
	if len(s.AnyOf) > 0 {
		probs = w.alternatives(s.AnyOf, false, v, path, probs)
	}
	if len(s.OneOf) > 0 {
		probs = w.alternatives(s.OneOf, true, v, path, probs)
	}
	return probs
}

// alternatives checks v against anyOf (exactly=false) or oneOf (exactly=true) branches.
// When none matches it reports the closest branch's problems: the one whose type (or
// const, or enum) fits v with the fewest problems; when no branch fits v's kind at all,
// one problem lists what every branch would have taken.
func (w *walk) alternatives(subs []*jsonschema.Schema, exactly bool, v any, path string, probs []Problem) []Problem {
	var matched []int
	var best []Problem
	bestScore := -1
	for i, sub := range subs {
		ps := w.check(sub, v, path, nil)
		if len(ps) == 0 {
			matched = append(matched, i)
			continue
		}
		score := len(ps)
		if !w.fits(sub, v, 0) {
			score += 1 << 20
		}
		if bestScore < 0 || score < bestScore {
			best, bestScore = ps, score
		}
	}
	switch {
	case len(matched) == 1, len(matched) > 1 && !exactly:
		return probs
	case len(matched) > 1:
		return append(probs, Problem{Path: path, Expected: fmt.Sprintf("a value that matches exactly one of %d alternatives (%s)", len(subs), w.altList(subs)),
			Got: fmt.Sprintf("%s, which matches %d of them", describe(v), len(matched))})
	case bestScore < 1<<20:
		return append(probs, best...)
	}
	p := Problem{Path: path, Expected: w.altList(subs), Got: describe(v)}
	if str, ok := v.(string); ok {
		var consts []string
		for _, sub := range subs {
			consts = append(consts, w.stringConsts(sub)...)
		}
		if near := Closest(str, consts, 3); len(near) > 0 {
			p.Hint = "did you mean " + orList(near) + "?"
		}
	}
	if p.Hint == "" {
		for _, bp := range best {
			if bp.Path == path && bp.Hint != "" {
				p.Hint = bp.Hint
				break
			}
		}
	}
	return append(probs, p)
}

// fits reports whether v is of the kind s describes (its type, const or enum), without
// looking inside it: the test for which alternative a model was aiming at.
func (w *walk) fits(s *jsonschema.Schema, v any, depth int) bool {
	if s == nil || depth > maxHops {
		return true
	}
	if s.Ref != "" {
		if t, err := w.resolve(s.Ref); err == nil && !w.fits(t, v, depth+1) {
			return false
		}
	}
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	if len(types) > 0 && !slices.ContainsFunc(types, func(t string) bool { return hasType(v, t) }) {
		return false
	}
	if s.Const != nil && !equalJSON(*s.Const, v) {
		return false
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { return equalJSON(e, v) }) {
		return false
	}
	for _, sub := range s.AllOf {
		if !w.fits(sub, v, depth+1) {
			return false
		}
	}
	for _, alts := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf} {
		if len(alts) > 0 && !slices.ContainsFunc(alts, func(a *jsonschema.Schema) bool { return w.fits(a, v, depth+1) }) {
			return false
		}
	}
	return true
}

// stringConsts returns the strings a schema's const or enum allows, following $ref.
func (w *walk) stringConsts(s *jsonschema.Schema) []string {
	if s == nil {
		return nil
	}
	if s.Ref != "" {
		if t, err := w.resolve(s.Ref); err == nil && t != s {
			s = t
		}
	}
	out := enumStrings(s.Enum)
	if s.Const != nil {
		if str, ok := (*s.Const).(string); ok {
			out = append(out, str)
		}
	}
	return out
}

// altList describes alternatives: "an integer or null", `"north", "south" or "east"`.
func (w *walk) altList(subs []*jsonschema.Schema) string {
	var parts []string
	for _, sub := range subs {
		if d := w.describeSchema(sub, 0); !slices.Contains(parts, d) {
			parts = append(parts, d)
		}
	}
	return orList(parts)
}

// desc says briefly what a schema takes, following $ref and alternatives. It is the
// "expected" of a missing required property.
func (w *walk) desc(s *jsonschema.Schema) string { return w.describeSchema(s, 0) }

func (w *walk) describeSchema(s *jsonschema.Schema, depth int) string {
	if s == nil {
		return "value"
	}
	if depth > 4 {
		return "a value"
	}
	if s.Ref != "" {
		if t, err := w.resolve(s.Ref); err == nil {
			return w.describeSchema(t, depth+1)
		}
	}
	if s.Const != nil {
		return quoteJSON(*s.Const)
	}
	if alts := append(slices.Clone(s.AnyOf), s.OneOf...); len(alts) > 0 && s.Type == "" && len(s.Types) == 0 && len(s.Enum) == 0 {
		var parts []string
		for _, a := range alts {
			if d := w.describeSchema(a, depth+1); !slices.Contains(parts, d) {
				parts = append(parts, d)
			}
		}
		return orList(parts)
	}
	if len(s.AllOf) == 1 && s.Type == "" && len(s.Types) == 0 && len(s.Enum) == 0 {
		return w.describeSchema(s.AllOf[0], depth+1)
	}
	return schemaDesc(s)
}

func quoteJSON(v any) string {
	if v == nil {
		return "null"
	}
	return enumList([]any{v})
}

// checkMore checks the keywords check does not: multipleOf, draft-07 tuple items and
// additionalItems, prefixItems, uniqueItems, min/maxProperties, dependentRequired and
// draft-07 dependencies, not, and if/then/else.
func (w *walk) checkMore(s *jsonschema.Schema, v any, path string, probs []Problem) []Problem {
	switch x := v.(type) {
	case json.Number:
		if s.MultipleOf != nil && *s.MultipleOf > 0 {
			f, _ := x.Float64()
			if q := f / *s.MultipleOf; math.Abs(q-math.Round(q)) > 1e-9 {
				probs = append(probs, Problem{Path: path, Expected: "a multiple of " + fmtNum(*s.MultipleOf), Got: describe(v)})
			}
		}
	case []any:
		tuple, rest := s.PrefixItems, (*jsonschema.Schema)(nil)
		if len(s.ItemsArray) > 0 {
			tuple, rest = s.ItemsArray, s.AdditionalItems
		}
		for i, item := range x {
			switch {
			case i < len(tuple):
				probs = w.check(tuple[i], item, fmt.Sprintf("%s[%d]", path, i), probs)
			case rest != nil && len(tuple) > 0:
				if rest.Not != nil && isTrue(rest.Not) {
					probs = append(probs, Problem{Path: fmt.Sprintf("%s[%d]", path, i), Expected: fmt.Sprintf("at most %d items", len(tuple)), Got: describe(item)})
				} else {
					probs = w.check(rest, item, fmt.Sprintf("%s[%d]", path, i), probs)
				}
			}
		}
		if s.UniqueItems {
		dup:
			for i := range x {
				for j := range i {
					if equalJSON(x[i], x[j]) {
						probs = append(probs, Problem{Path: fmt.Sprintf("%s[%d]", path, i), Expected: "items that are all different", Got: fmt.Sprintf("%s, the same as item [%d]", describe(x[i]), j)})
						break dup
					}
				}
			}
		}
	case map[string]any:
		if s.MinProperties != nil && len(x) < *s.MinProperties {
			probs = append(probs, Problem{Path: path, Expected: fmt.Sprintf("at least %d properties", *s.MinProperties), Got: fmt.Sprintf("%d properties", len(x))})
		}
		if s.MaxProperties != nil && len(x) > *s.MaxProperties {
			probs = append(probs, Problem{Path: path, Expected: fmt.Sprintf("at most %d properties", *s.MaxProperties), Got: fmt.Sprintf("%d properties", len(x))})
		}
		for _, deps := range []map[string][]string{s.DependentRequired, s.DependencyStrings} {
			for _, name := range sortedKeys(deps) {
				if _, ok := x[name]; !ok {
					continue
				}
				for _, need := range deps[name] {
					if _, ok := x[need]; !ok {
						probs = append(probs, Problem{Path: path + "." + need, Expected: "required when " + quote(name) + " is given", Got: "nothing (missing)"})
					}
				}
			}
		}
	}
	if s.Not != nil && !isTrue(s.Not) && len(w.check(s.Not, v, path, nil)) == 0 {
		probs = append(probs, Problem{Path: path, Expected: "anything but " + w.desc(s.Not), Got: describe(v)})
	}
	if s.If != nil {
		if len(w.check(s.If, v, path, nil)) == 0 {
			probs = w.check(s.Then, v, path, probs)
		} else {
			probs = w.check(s.Else, v, path, probs)
		}
	}
	return probs
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// The keywords that hold subschemas, besides items (one schema, or a list in older
// drafts): by name, by index, or one. keyed, listed and single return a schema's
// subschemas under them, in the same order.
var (
	keyedKeywords  = []string{"$defs", "definitions", "properties", "patternProperties", "dependentSchemas"}
	listedKeywords = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	singleKeywords = []string{"additionalProperties", "additionalItems", "not", "if", "then", "else", "contains", "propertyNames"}
)

func keyed(s *jsonschema.Schema) []map[string]*jsonschema.Schema {
	return []map[string]*jsonschema.Schema{s.Defs, s.Definitions, s.Properties, s.PatternProperties, s.DependentSchemas}
}

func listed(s *jsonschema.Schema) [][]*jsonschema.Schema {
	return [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf, s.PrefixItems}
}

func single(s *jsonschema.Schema) []*jsonschema.Schema {
	return []*jsonschema.Schema{s.AdditionalProperties, s.AdditionalItems, s.Not, s.If, s.Then, s.Else, s.Contains, s.PropertyNames}
}

// resolve finds the schema a local $ref names: "#", "#/$defs/Name",
// "#/definitions/Name", or any JSON pointer into the root through schema keywords
// ("#/properties/a/items"). Refs to other documents are not followed: a tool's schema
// must be whole.
func (w *walk) resolve(ref string) (*jsonschema.Schema, error) {
	if ref == "#" {
		return w.root, nil
	}
	if !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("$ref %q, which is outside this schema (only refs like #/$defs/Name are followed)", ref)
	}
	bad := func(why string) (*jsonschema.Schema, error) {
		return nil, fmt.Errorf("$ref %q, which names nothing in this schema (%s)", ref, why)
	}
	segs := strings.Split(ref[2:], "/")
	for i, seg := range segs {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		if u, err := url.PathUnescape(seg); err == nil {
			seg = u
		}
		segs[i] = seg
	}
	cur := w.root
	for i := 0; i < len(segs); i++ {
		if cur == nil {
			return bad("it ends early")
		}
		key := segs[i]
		named := func(m map[string]*jsonschema.Schema) (*jsonschema.Schema, bool) {
			if i+1 >= len(segs) {
				return nil, false
			}
			i++
			s, ok := m[segs[i]]
			return s, ok
		}
		indexed := func(list []*jsonschema.Schema) (*jsonschema.Schema, bool) {
			if i+1 >= len(segs) {
				return nil, false
			}
			i++
			n, err := strconv.Atoi(segs[i])
			if err != nil || n < 0 || n >= len(list) {
				return nil, false
			}
			return list[n], true
		}
		var next *jsonschema.Schema
		ok := true
		switch {
		case key == "items" && len(cur.ItemsArray) > 0:
			next, ok = indexed(cur.ItemsArray)
		case key == "items":
			next = cur.Items
		case slices.Contains(keyedKeywords, key):
			next, ok = named(keyed(cur)[slices.Index(keyedKeywords, key)])
		case slices.Contains(listedKeywords, key):
			next, ok = indexed(listed(cur)[slices.Index(listedKeywords, key)])
		case slices.Contains(singleKeywords, key):
			next = single(cur)[slices.Index(singleKeywords, key)]
		default:
			return bad(fmt.Sprintf("no keyword %q", key))
		}
		if !ok || next == nil {
			return bad(fmt.Sprintf("nothing at %q", strings.Join(segs[:i+1], "/")))
		}
		cur = next
	}
	return cur, nil
}

// SchemaProblems checks that a schema from elsewhere (an MCP server's tool) can be used
// to validate arguments: every $ref in it resolves inside it. It returns one line per
// broken $ref, or nil. Games call it when they build their catalogue, so a tool whose
// calls could never be checked is left out rather than offered.
func SchemaProblems(root *jsonschema.Schema) []string {
	w := &walk{root: root}
	var out []string
	seen := map[*jsonschema.Schema]bool{}
	var visit func(s *jsonschema.Schema)
	visit = func(s *jsonschema.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		if s.Ref != "" {
			if _, err := w.resolve(s.Ref); err != nil {
				out = append(out, err.Error())
			}
		}
		for _, m := range keyed(s) {
			for _, k := range sortedSchemaKeys(m) {
				visit(m[k])
			}
		}
		for _, list := range append(listed(s), s.ItemsArray) {
			for _, sub := range list {
				visit(sub)
			}
		}
		for _, sub := range append([]*jsonschema.Schema{s.Items}, single(s)...) {
			visit(sub)
		}
	}
	visit(root)
	return out
}

func sortedSchemaKeys(m map[string]*jsonschema.Schema) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
