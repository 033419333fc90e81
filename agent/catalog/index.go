package catalog

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/coplayhq/coplay/game"
)

// summaryMax is the most characters of summary an index line carries: enough for one
// sentence of what a tool does, little enough that 190 tools stay a short index.
const summaryMax = 90

// otherGroup is where tools without a Group are listed, last.
const otherGroup = "other"

// entry is one tool as the index shows it; a tool sent whole is only named.
type entry struct {
	name, kind, group, summary string
	sent                       bool
}

// Index is the compact index of the game's tools when the Set was made, for the
// system prompt: every tool is named (so that the model knows what the game offers),
// those sent whole only by name and kind ("sent"), the deferred ones with a summary; grouped by Group (groups in the order they first appear in the
// catalogue, ungrouped tools last under "other"), one line a tool:
//
//	fleet:
//	- get-my-ships (read): Return a paginated list of all of ships under your agent's…
//
// It is computed once and never changes with later loads or updates, because it lives
// in the cached part of the prompt. It is "" when nothing is deferred. It keeps within
// Options.IndexBudget: over it the summaries go, then the names (see makeIndex).
func (s *Set) Index() string { return s.index }

// indexEntries lists the game's tools in catalogue order: the deferred ones with their
// summary, the ones sent whole by name. The runner's own (Note tools, OnlyWhenDeferred)
// are left out: they are always sent and are not the game's.
func (s *Set) indexEntries() []entry {
	var out []entry
	deferred := false
	for _, n := range s.names() {
		t := s.tools[s.pos[n]]
		if t.Kind == game.Note || slices.Contains(s.opts.OnlyWhenDeferred, n) {
			continue
		}
		e := entry{name: t.Name, kind: t.Kind.String(), group: groupOf(t), sent: s.loaded[n]}
		if !e.sent {
			e.summary = Summary(t)
			deferred = true
		}
		out = append(out, e)
	}
	if !deferred {
		return nil
	}
	return out
}

// groupOf is t's group in the index: its Group, or "other".
func groupOf(t game.Tool) string {
	g := strings.Join(strings.Fields(t.Group), " ")
	if g == "" {
		return otherGroup
	}
	return g
}

// DefaultIndexBudget is the most characters the index may take in the system prompt
// (about 4,000 tokens, sent every request, though cached). 190 operations with their
// summaries take about 10,000.
const DefaultIndexBudget = 16_000

// Notes that head a shortened index, so that the model knows what was left out and how
// to get it.
const (
	namesOnlyNote  = "(Too many tools to describe here: names only. find_tools shows what a tool does.)\n\n"
	groupsOnlyNote = "(Too many tools to name here: their groups and how many. find_tools {\"query\": \"...\"} finds them by words, and load_tools loads them by name.)\n\n"
)

// makeIndex renders entries within budget characters: with their summaries when they
// fit; else by name and kind only; else each group with its number of tools (and the
// ones sent), so that a catalogue of thousands of tools still gets a short index and
// the model finds the rest with find_tools.
func makeIndex(entries []entry, budget int) string {
	full := renderIndex(entries, true)
	if budget <= 0 || len(full) <= budget {
		return full
	}
	if names := namesOnlyNote + renderIndex(entries, false); len(names) <= budget {
		return names
	}
	return groupsOnlyNote + renderGroups(entries)
}

// groupOrder lists the groups of entries in order of first appearance, "other" last.
func groupOrder(entries []entry) (order []string, byGroup map[string][]entry) {
	byGroup = map[string][]entry{}
	for _, e := range entries {
		if _, ok := byGroup[e.group]; !ok && e.group != otherGroup {
			order = append(order, e.group)
		}
		byGroup[e.group] = append(byGroup[e.group], e)
	}
	if len(byGroup[otherGroup]) > 0 {
		order = append(order, otherGroup)
	}
	return order, byGroup
}

// renderGroups writes one line a group: how many tools it has, and how many of them
// are sent whole.
func renderGroups(entries []entry) string {
	order, byGroup := groupOrder(entries)
	var b strings.Builder
	for _, g := range order {
		sent := 0
		for _, e := range byGroup[g] {
			if e.sent {
				sent++
			}
		}
		fmt.Fprintf(&b, "- %s: %d tools", g, len(byGroup[g]))
		if sent > 0 {
			fmt.Fprintf(&b, " (%d sent)", sent)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// renderIndex writes entries grouped, groups in order of first appearance and "other"
// last; with summaries, or by name and kind only.
func renderIndex(entries []entry, summaries bool) string {
	if len(entries) == 0 {
		return ""
	}
	order, byGroup := groupOrder(entries)
	var b strings.Builder
	for i, g := range order {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(g)
		b.WriteString(":\n")
		for _, e := range byGroup[g] {
			b.WriteString("- ")
			b.WriteString(e.name)
			b.WriteString(" (")
			b.WriteString(e.kind)
			if e.sent {
				b.WriteString(", sent")
			}
			b.WriteByte(')')
			if e.summary != "" && summaries {
				b.WriteString(": ")
				b.WriteString(e.summary)
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// Summary is the one line an index shows of t: the first sentence of its description,
// whitespace folded, cut at a word to about 90 characters. A first sentence that only
// repeats the tool's name ("Get Ship Nav." for get-ship-nav, as OpenAPI summaries
// often do) is skipped for the next, which says what the name does not.
func Summary(t game.Tool) string {
	text := strings.Join(strings.Fields(t.Description), " ")
	first, rest := splitSentence(text)
	if rest != "" && repeatsName(first, t.Name) {
		first, _ = splitSentence(rest)
	}
	return cut(first, summaryMax)
}

// splitSentence splits text after its first sentence: a '.', '!' or '?' followed by a
// space and then something that does not start in lower case (so "e.g. the" goes on).
func splitSentence(text string) (first, rest string) {
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '.', '!', '?':
		default:
			continue
		}
		if i+2 >= len(text) || text[i+1] != ' ' {
			continue
		}
		r, _ := utf8.DecodeRuneInString(text[i+2:])
		if unicode.IsLower(r) {
			continue
		}
		return text[:i+1], text[i+2:]
	}
	return text, ""
}

// repeatsName reports whether every word of sentence is a word of name.
func repeatsName(sentence, name string) bool {
	nameWords := map[string]bool{}
	for _, w := range splitWords(name) {
		nameWords[w] = true
	}
	words := splitWords(sentence)
	if len(words) == 0 {
		return false
	}
	for _, w := range words {
		if !nameWords[w] && !nameWords[strings.TrimSuffix(w, "s")] && !filler[w] && !extendsOne(w, nameWords) {
			return false
		}
	}
	return true
}

// extendsOne reports whether w is a word of the name with an ending ("actions" for
// act): a name shortens the words its title spells out.
func extendsOne(w string, nameWords map[string]bool) bool {
	for n := range nameWords {
		if len(n) >= 3 && strings.HasPrefix(w, n) {
			return true
		}
	}
	return false
}

// filler are the small words a title adds to a name ("Reads of Account" for
// account_read, a grouped OpenAPI tool): they do not make it say more than the name.
var filler = map[string]bool{"of": true, "the": true, "a": true, "an": true, "and": true, "for": true, "to": true, "in": true}

// cut shortens s to at most max runes, at a word boundary where there is one, marking
// the cut with "…".
func cut(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)[:max-1]
	cutAt := len(r)
	for i := len(r) - 1; i > max/2; i-- {
		if r[i] == ' ' {
			cutAt = i
			break
		}
	}
	return strings.TrimRight(string(r[:cutAt]), " ,;:") + "…"
}
