package catalog

import (
	"slices"
	"strings"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/coplayhq/coplay/game"
)

// Match is one tool Find found.
type Match struct {
	Name    string
	Kind    string // "read", "act" or "note"
	Group   string // the tool's Group, "" when it has none
	Summary string // as the index shows it
	Loaded  bool   // sent whole already: no need to load it
	Score   int    // higher is better; only comparable within one Find
}

// Weights of a query word found in each part of a tool: a name says most about what a
// tool is, a description word least (descriptions mention many things in passing).
const (
	wName        = 10
	wWholeName   = 20 // the query word is the whole name, or the whole of a parameter name
	wGroup       = 5
	wParam       = 4
	wDescription = 2
)

// stopWords are left out of a query: they match every description and rank nothing.
var stopWords = map[string]bool{
	"a": true, "an": true, "and": true, "the": true, "to": true, "of": true, "for": true,
	"in": true, "on": true, "at": true, "by": true, "with": true, "or": true, "is": true,
}

// doc is what Find searches of one tool, split into lower-case words once.
type doc struct {
	name        string   // lower case, whole
	nameWords   []string // snake_case, kebab-case and camelCase split
	groupWords  []string
	params      []string // whole parameter names, lower case
	paramWords  []string
	description []string
}

// Find searches the catalogue (loaded tools too: the model may not remember what it
// has) for query, and returns at most limit matches (all when limit <= 0), best first,
// ties in catalogue order. Each word of the query counts where it is found in a tool:
// its name (split at _, - and camelCase) most, then its group, its parameter names
// (nested ones too), its description least; a word counts when it equals a tool's word
// or begins it ("nav" finds "navigate"), or when it is a plural of it. Tools matching
// no word are not returned.
func (s *Set) Find(query string, limit int) []Match {
	var words []string
	for _, w := range splitWords(query) {
		if !stopWords[w] && !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		return nil
	}
	// The query as one name: the model often searches for a name it half remembers.
	whole := strings.ToLower(strings.TrimSpace(query))
	var out []Match
	for _, n := range s.names() {
		t := s.tools[s.pos[n]]
		d := s.doc(n)
		score := 0
		if d.name == whole {
			score += wWholeName * 2
		}
		if len(words) > 1 && slices.Contains(d.params, whole) {
			score += wWholeName
		}
		for _, w := range words {
			score += wName * best(w, d.nameWords)
			score += wGroup * best(w, d.groupWords)
			if slices.Contains(d.params, w) {
				score += wWholeName
			} else {
				score += wParam * best(w, d.paramWords)
			}
			score += wDescription * best(w, d.description)
		}
		if score == 0 {
			continue
		}
		out = append(out, Match{Name: t.Name, Kind: t.Kind.String(), Group: t.Group,
			Summary: Summary(t), Loaded: s.loaded[n], Score: score})
	}
	slices.SortStableFunc(out, func(a, b Match) int { return b.Score - a.Score })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// best is how well query word w matches the best of words: 3 for the same word, 2 for
// its singular ("ships" finds "ship"), 1 for a prefix of one ("nav" finds "navigate"),
// 0 for none. A prefix must be two letters or more, or every tool would match "a".
func best(w string, words []string) int {
	b := 0
	for _, x := range words {
		switch {
		case x == w:
			return 3
		case x+"s" == w || x+"es" == w:
			b = max(b, 2)
		case len(w) >= 2 && strings.HasPrefix(x, w):
			b = max(b, 1)
		}
	}
	return b
}

// doc returns the searchable words of the named tool, split once per catalogue.
func (s *Set) doc(name string) doc {
	if d, ok := s.docs[name]; ok {
		return d
	}
	if s.docs == nil {
		s.docs = map[string]doc{}
	}
	d := newDoc(s.tools[s.pos[name]])
	s.docs[name] = d
	return d
}

// newDoc splits a tool into the words Find searches.
func newDoc(t game.Tool) doc {
	d := doc{
		name:        strings.ToLower(t.Name),
		nameWords:   splitWords(t.Name),
		groupWords:  splitWords(t.Group),
		description: uniq(splitWords(t.Description)),
	}
	for _, p := range paramNames(t.Schema) {
		d.params = append(d.params, strings.ToLower(p))
		d.paramWords = append(d.paramWords, splitWords(p)...)
	}
	d.paramWords = uniq(d.paramWords)
	return d
}

// paramNames lists the property names of a schema, top level and nested (in items,
// combinations and definitions), each once, sorted: "find the tool that takes a
// waypointSymbol" should work wherever the schema puts it.
func paramNames(s *jsonschema.Schema) []string {
	seen := map[*jsonschema.Schema]bool{}
	names := map[string]bool{}
	var walk func(*jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		for name, p := range s.Properties {
			names[name] = true
			walk(p)
		}
		for _, list := range [][]*jsonschema.Schema{s.PrefixItems, s.ItemsArray, s.AllOf, s.AnyOf, s.OneOf} {
			for _, c := range list {
				walk(c)
			}
		}
		for _, c := range []*jsonschema.Schema{s.Items, s.AdditionalItems, s.AdditionalProperties, s.Then, s.Else} {
			walk(c)
		}
		for _, m := range []map[string]*jsonschema.Schema{s.Defs, s.Definitions} {
			for _, c := range m {
				walk(c)
			}
		}
	}
	walk(s)
	out := make([]string, 0, len(names))
	for n := range names {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// splitWords splits text into lower-case words at anything not a letter or digit and
// where camelCase changes case ("getMyShips", "get_my_ships" and "get-my-ships" are all
// get, my, ships; "HTTPServer" is http, server).
func splitWords(text string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(text)
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if unicode.IsUpper(r) && len(cur) > 0 {
			prev := cur[len(cur)-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

// uniq returns words without repeats, in first-seen order.
func uniq(words []string) []string {
	seen := make(map[string]bool, len(words))
	out := words[:0]
	for _, w := range words {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}
