// Package catalog decides which tools a model sees whole on each request and which
// only by name, for catalogues too large to send whole (an OpenAPI spec of hundreds
// of operations, an MCP server with a long tool list).
//
// Under a budget of characters, every tool is sent as before. Over it, the model is
// sent the tools it needs (the runner's own, the person's pins, then as many of the
// game's as fit) and a compact index of the rest, and loads more on demand. Providers
// cache prompts by exact prefix, so a tool once sent keeps its place: loaded tools are
// only ever appended, and the index, which sits in the cached system prompt, is
// computed once. The package is pure logic; the runner owns a Set, offers the
// load_tools and find_tools tools on top of it and saves Loaded with the session.
package catalog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/coplayhq/coplay/game"
)

// Options say what a Set must send whatever the budget.
type Options struct {
	// Budget is the characters of tool definitions (Size) a request may carry: 0 means
	// DefaultBudget, below 0 no budget (every tool is sent).
	Budget int
	// Always are loaded whenever they exist, first and in this order, whatever the
	// budget: the tools the runner cannot play without (notebook tools, wait,
	// load_tools, find_tools, observing).
	Always []string
	// OnlyWhenDeferred are left out entirely when nothing is deferred (load_tools and
	// find_tools: useless when every tool is loaded). When something is deferred they
	// are loaded like Always, after it.
	OnlyWhenDeferred []string
	// Pinned are the person's pins (--pin), loaded after Always whatever the budget.
	// A name the catalogue does not have is an error from New.
	Pinned []string
	// IndexBudget is the most characters of Index: 0 means DefaultIndexBudget, below 0
	// no limit. Over it the index names tools without their summaries, and over that
	// it lists groups with their counts (find_tools finds the tools).
	IndexBudget int
	// Loaded are the names a saved session had loaded, in their saved order. They are
	// loaded again first, so that a resumed session sends the same bytes as before
	// (and a provider's cached prefix still holds). Names no longer in the catalogue
	// are ignored.
	Loaded []string
}

// Set is a catalogue as the model sees it: the tools sent whole, in the order first
// sent, and the rest. It is not safe for concurrent use; the runner owns it.
type Set struct {
	budget int
	opts   Options

	tools  []game.Tool    // the whole catalogue, in the game's order
	pos    map[string]int // name → index in tools
	sizes  map[string]int // name → WireSize
	hidden map[string]bool

	sent     []string // names sent whole, in the order first sent
	loaded   map[string]bool
	sentSize int // Size of sent

	index string // computed once, at New

	docs map[string]doc // Find's words of each tool, split when first searched
}

// New selects the tools to send from tools (the whole catalogue, in the game's order).
//
// When every tool (OnlyWhenDeferred left out) fits the budget, all are sent in
// catalogue order and nothing is deferred: the catalogue is sent as it always was.
// Otherwise a first selection is, in this order: Always, OnlyWhenDeferred, Pinned,
// then each remaining tool in catalogue order that still fits the budget (one that
// does not is skipped and smaller later ones are tried); everything else is deferred
// and named in Index.
//
// Restored Loaded names (those still in the catalogue) are then sent first, in their
// saved order, followed by the rest of that selection. The selection and the index
// are made without them, as in a fresh session, so that resuming with the same
// catalogue and options sends exactly the tools and index the session sent before.
//
// A pinned name that is not in the catalogue is an error, with "did you mean".
func New(tools []game.Tool, o Options) (*Set, error) {
	// The Set keeps the lists for Update; copies, so that the caller's slices are theirs.
	o.Always, o.OnlyWhenDeferred, o.Pinned = slices.Clone(o.Always), slices.Clone(o.OnlyWhenDeferred), slices.Clone(o.Pinned)
	s := &Set{opts: o, budget: o.Budget}
	if s.budget == 0 {
		s.budget = DefaultBudget
	}
	s.setCatalogue(tools)
	var bad []string
	for _, p := range o.Pinned {
		if _, ok := s.pos[p]; !ok {
			bad = append(bad, unknownText(p, game.Closest(p, s.names(), 3)))
		}
	}
	if len(bad) > 0 {
		return nil, &UnknownPinError{Names: bad}
	}
	s.loaded = map[string]bool{}

	// First what a fresh session sends, chosen without the restored names, so that a
	// resumed session chooses and indexes exactly what the session it resumes did.
	if s.fitsWhole() {
		s.hideOnlyWhenDeferred()
		for _, t := range s.tools {
			s.add(t.Name)
		}
	} else {
		s.addRequired()
		for _, t := range s.tools {
			if s.fits(t.Name) {
				s.add(t.Name)
			}
		}
		if s.Deferred() {
			budget := o.IndexBudget
			if budget == 0 {
				budget = DefaultIndexBudget
			}
			s.index = makeIndex(s.indexEntries(), budget)
		} else {
			// The pins alone brought in every tool: load_tools would have nothing to load.
			s.hideOnlyWhenDeferred()
		}
	}
	// Then the restored names, in their saved order, go first: the session saved its
	// tools in the order it sent them, initial ones and loaded ones alike.
	initial := s.sent
	s.sent, s.sentSize, s.loaded = nil, 0, map[string]bool{}
	for _, list := range [][]string{o.Loaded, initial} {
		for _, n := range list {
			s.add(n)
		}
	}
	return s, nil
}

// UnknownPinError is New's error for pins the catalogue does not have: a mistake of the
// person's (--pin, the pin key of config.toml), not of the program.
type UnknownPinError struct {
	Names []string // each unknown pin, with its "did you mean" when something is near
}

func (e *UnknownPinError) Error() string {
	return "pinned tool not in the catalogue: " + strings.Join(e.Names, "; ")
}

// addRequired loads what is loaded whatever the budget: Always, OnlyWhenDeferred and
// Pinned, in that order.
func (s *Set) addRequired() {
	for _, list := range [][]string{s.opts.Always, s.opts.OnlyWhenDeferred, s.opts.Pinned} {
		for _, n := range list {
			s.add(n)
		}
	}
}

// setCatalogue replaces the whole catalogue, measuring each tool once.
func (s *Set) setCatalogue(tools []game.Tool) {
	s.tools = slices.Clone(tools)
	s.pos = make(map[string]int, len(tools))
	s.sizes = make(map[string]int, len(tools))
	s.hidden = map[string]bool{}
	s.docs = nil
	for i, t := range s.tools {
		if _, dup := s.pos[t.Name]; dup {
			continue // a registry refuses duplicates; keep the first as it would
		}
		s.pos[t.Name] = i
		s.sizes[t.Name] = WireSize(t)
	}
}

// fitsWhole reports whether the whole catalogue, OnlyWhenDeferred left out, fits the
// budget.
func (s *Set) fitsWhole() bool {
	if s.budget < 0 {
		return true
	}
	size, n := 0, 0
	for name := range s.pos {
		if slices.Contains(s.opts.OnlyWhenDeferred, name) {
			continue
		}
		size = grow(size, n, s.sizes[name])
		n++
	}
	return size <= s.budget
}

// hideOnlyWhenDeferred takes the OnlyWhenDeferred tools out of the catalogue the model
// and Lookup see: with nothing deferred they have nothing to do.
func (s *Set) hideOnlyWhenDeferred() {
	for _, n := range s.opts.OnlyWhenDeferred {
		if _, ok := s.pos[n]; ok {
			s.hidden[n] = true
		}
	}
}

// exists reports whether name is a tool of the catalogue the model may see.
func (s *Set) exists(name string) bool {
	_, ok := s.pos[name]
	return ok && !s.hidden[name]
}

// add appends name to the sent tools, if it exists and is not sent yet.
func (s *Set) add(name string) bool {
	if !s.exists(name) || s.loaded[name] {
		return false
	}
	s.sentSize = grow(s.sentSize, len(s.sent), s.sizes[name])
	s.sent = append(s.sent, name)
	s.loaded[name] = true
	return true
}

// fits reports whether name, not yet sent, can be appended within the budget.
func (s *Set) fits(name string) bool {
	if !s.exists(name) || s.loaded[name] {
		return false
	}
	return s.budget < 0 || grow(s.sentSize, len(s.sent), s.sizes[name]) <= s.budget
}

// names lists the catalogue the model may see, in catalogue order.
func (s *Set) names() []string {
	out := make([]string, 0, len(s.tools))
	for i, t := range s.tools {
		if s.pos[t.Name] == i && !s.hidden[t.Name] {
			out = append(out, t.Name)
		}
	}
	return out
}

// Deferred reports whether some tools of the catalogue are not sent whole: only then
// does the model need the index and load_tools.
func (s *Set) Deferred() bool {
	for _, n := range s.names() {
		if !s.loaded[n] {
			return true
		}
	}
	return false
}

// Sent returns the tools sent whole with each request, in the order first sent, with
// their current definitions. A request's tools are exactly these.
func (s *Set) Sent() []game.Tool {
	out := make([]game.Tool, len(s.sent))
	for i, n := range s.sent {
		out[i] = s.tools[s.pos[n]]
	}
	return out
}

// SentSize is Size(Sent()), kept as tools are added so that a status line can show it
// without marshalling every schema again.
func (s *Set) SentSize() int { return s.sentSize }

// Loaded returns the names of the tools sent whole, in the order first sent: what the
// session saves, and Options.Loaded on resume.
func (s *Set) Loaded() []string { return slices.Clone(s.sent) }

// Total is how many tools the catalogue has (for "12 of 190 tools loaded").
func (s *Set) Total() int { return len(s.names()) }

// IsLoaded reports whether name is sent whole.
func (s *Set) IsLoaded(name string) bool { return s.loaded[name] }

// Lookup returns any tool of the catalogue, loaded or not: a call to a known tool is
// validated against its full schema even when the model has only seen its index line.
// OnlyWhenDeferred tools are not found while nothing is deferred.
func (s *Set) Lookup(name string) (game.Tool, bool) {
	if !s.exists(name) {
		return game.Tool{}, false
	}
	return s.tools[s.pos[name]], true
}

// Miss is a name Load did not find, with the names it may have meant.
type Miss struct {
	Name string
	Near []string
}

// LoadResult says what Load did with each name it was given.
type LoadResult struct {
	Added   []string // newly loaded, in the order given
	Already []string // loaded before
	Unknown []Miss   // not in the catalogue
}

// String is the short confirmation the model reads as load_tools' result, e.g.
// "loaded a, b (available from your next request); already loaded: c; unknown: d (did
// you mean e?)". The definitions themselves come with the next request's tools, not
// in this text, so that they are sent once and in the cached part of the prompt.
func (r LoadResult) String() string {
	var parts []string
	if len(r.Added) > 0 {
		parts = append(parts, "loaded "+strings.Join(r.Added, ", ")+" (available from your next request)")
	}
	if len(r.Already) > 0 {
		parts = append(parts, "already loaded: "+strings.Join(r.Already, ", "))
	}
	if len(r.Unknown) > 0 {
		var us []string
		for _, m := range r.Unknown {
			us = append(us, unknownText(m.Name, m.Near))
		}
		parts = append(parts, "unknown: "+strings.Join(us, ", "))
	}
	if len(parts) == 0 {
		return "nothing to load: give the names of tools from the index"
	}
	return strings.Join(parts, "; ")
}

// unknownText is a name with its "did you mean", if anything is near.
func unknownText(name string, near []string) string {
	if len(near) == 0 {
		return name
	}
	return fmt.Sprintf("%s (did you mean %s?)", name, orList(near))
}

// orList joins names as "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Load appends the named tools to the sent ones, from the next request on. It never
// refuses for the budget: the model asked for them, and the runner bounds how much one
// call may load. Names are taken as given (a name given twice counts once); unknown
// ones come back with the names they are closest to.
func (s *Set) Load(names []string) LoadResult {
	var r LoadResult
	seen := map[string]bool{}
	for _, raw := range names {
		n := strings.TrimSpace(raw)
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		switch {
		case s.loaded[n]:
			r.Already = append(r.Already, n)
		case s.add(n):
			r.Added = append(r.Added, n)
		default:
			r.Unknown = append(r.Unknown, Miss{Name: n, Near: game.Closest(n, s.names(), 3)})
		}
	}
	return r
}

// Update takes the game's new catalogue (an MCP server said its list changed). Sent
// tools still present keep their order and take their new definitions; gone ones are
// dropped. New tools named in Always, OnlyWhenDeferred (once something is deferred) or
// Pinned are appended whatever the budget; other new tools are appended in catalogue
// order while they fit it (all of them when nothing was deferred and everything still
// fits); the rest are deferred. Tools deferred before stay deferred: the model knows
// them from the index and loads them when it needs them.
//
// The index is not recomputed: it lives in the cached system prompt. Lookup and Find
// see the new catalogue; the runner tells the model what changed.
func (s *Set) Update(tools []game.Tool) {
	before := map[string]bool{}
	for _, n := range s.names() {
		before[n] = true
	}
	wasDeferred := s.Deferred()
	prevSent := s.sent

	s.setCatalogue(tools)
	s.sent, s.sentSize, s.loaded = nil, 0, map[string]bool{}
	if !wasDeferred && s.fitsWhole() {
		s.hideOnlyWhenDeferred()
		for _, n := range prevSent {
			s.add(n)
		}
		for _, t := range s.tools {
			s.add(t.Name)
		}
		return
	}
	for _, n := range prevSent {
		s.add(n)
	}
	s.addRequired()
	for _, t := range s.tools {
		if !before[t.Name] && s.fits(t.Name) {
			s.add(t.Name)
		}
	}
}
