package catalog

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/spacetraders"
)

// The offline SpaceTraders catalogue fits the default budget: it is sent whole, in
// the game's order, as it always was, and load_tools/find_tools are not offered.
func TestUnderBudgetEverythingLoadedInCatalogueOrder(t *testing.T) {
	st := spacetraders.Catalog()
	tools := append(slices.Clone(st), bigCatalogue(0)...) // + note, load_tools, find_tools
	s := mustNew(t, tools, runnerOptions(0))

	want := append(names(st), "note")
	if got := names(s.Sent()); !slices.Equal(got, want) {
		t.Fatalf("Sent = %v\nwant %v", got, want)
	}
	if s.Deferred() || s.Index() != "" {
		t.Errorf("Deferred = %v, Index = %q; want nothing deferred", s.Deferred(), s.Index())
	}
	for _, n := range []string{"load_tools", "find_tools"} {
		if s.IsLoaded(n) {
			t.Errorf("%s is loaded with nothing deferred", n)
		}
		if _, ok := s.Lookup(n); ok {
			t.Errorf("Lookup(%s) found a tool that is left out", n)
		}
	}
	if got, want := s.SentSize(), len(wireJSON(t, s.Sent())); got != want {
		t.Errorf("SentSize = %d, want the wire JSON's %d", got, want)
	}
	if s.Total() != len(want) {
		t.Errorf("Total = %d, want %d", s.Total(), len(want))
	}
}

// No budget sends everything, however large.
func TestNegativeBudgetSendsEverything(t *testing.T) {
	tools := bigCatalogue(100)
	s := mustNew(t, tools, runnerOptions(-1))
	if s.Deferred() || len(s.Sent()) != len(tools)-2 {
		t.Fatalf("sent %d of %d tools, deferred %v", len(s.Sent()), len(tools), s.Deferred())
	}
}

// Over the budget: the runner's tools first, then as many game tools as fit; what is
// sent stays within the budget, and a load only appends, so the JSON sent before it is
// a byte prefix of the JSON sent after.
func TestOverBudgetLoadOnlyAppends(t *testing.T) {
	tools := bigCatalogue(100)
	s := mustNew(t, tools, runnerOptions(5000))
	if !s.Deferred() {
		t.Fatal("nothing deferred")
	}
	sent := names(s.Sent())
	if !slices.Equal(sent[:3], []string{"note", "load_tools", "find_tools"}) {
		t.Errorf("Sent starts %v, want the Always tools in their order", sent[:3])
	}
	if len(sent) < 5 {
		t.Errorf("only %d tools sent; the budget has room for game tools", len(sent))
	}
	before := wireJSON(t, s.Sent())
	if len(before) > 5000 || s.SentSize() != len(before) {
		t.Errorf("first request's tools: %d chars (SentSize %d), budget 5000", len(before), s.SentSize())
	}

	r := s.Load([]string{"op_090", "op_050"})
	if !slices.Equal(r.Added, []string{"op_090", "op_050"}) {
		t.Fatalf("Load added %v", r.Added)
	}
	after := wireJSON(t, s.Sent())
	// The array's closing bracket moves; everything before it stays.
	if !bytes.HasPrefix(after, before[:len(before)-1]) {
		t.Fatalf("tools sent before the load are not a byte prefix of those after it:\nbefore %.200s\nafter  %.200s", before, after)
	}
	if got := names(s.Sent()); !slices.Equal(got[len(got)-2:], []string{"op_090", "op_050"}) {
		t.Errorf("loaded tools not appended in the order asked: %v", got)
	}
	if s.SentSize() != len(after) {
		t.Errorf("SentSize = %d, want %d", s.SentSize(), len(after))
	}
	if !slices.Equal(s.Loaded(), names(s.Sent())) {
		t.Errorf("Loaded = %v, want the sent names", s.Loaded())
	}
}

// A tool too big for what is left of the budget is skipped, and smaller ones after it
// are still tried.
func TestSelectionSkipsWhatDoesNotFit(t *testing.T) {
	tools := []game.Tool{
		tool("small_a", game.Read, "", "A.", 100),
		tool("huge", game.Read, "", "Huge.", 3000),
		tool("small_b", game.Read, "", "B.", 100),
	}
	s := mustNew(t, tools, Options{Budget: 1000})
	if got := names(s.Sent()); !slices.Equal(got, []string{"small_a", "small_b"}) {
		t.Errorf("Sent = %v, want small_a and small_b", got)
	}
	if !strings.Contains(s.Index(), "- huge (read)") {
		t.Errorf("Index lacks the skipped tool:\n%s", s.Index())
	}
}

// Always and Pinned tools are sent even when they alone are over the budget: the
// runner needs them and the person asked.
func TestAlwaysAndPinnedIgnoreTheBudget(t *testing.T) {
	tools := bigCatalogue(20)
	o := runnerOptions(300)
	o.Pinned = []string{"op_019", "op_007"}
	s := mustNew(t, tools, o)
	want := []string{"note", "load_tools", "find_tools", "op_019", "op_007"}
	if got := names(s.Sent()); !slices.Equal(got, want) {
		t.Errorf("Sent = %v, want %v", got, want)
	}
}

// A pin the catalogue does not have is the person's typo: New says what was meant.
func TestUnknownPinIsAnErrorWithDidYouMean(t *testing.T) {
	o := runnerOptions(0)
	o.Pinned = []string{"op_07"}
	_, err := New(bigCatalogue(20), o)
	if err == nil || !strings.Contains(err.Error(), `op_07 (did you mean`) || !strings.Contains(err.Error(), "op_007") {
		t.Fatalf("err = %v, want a did you mean op_007", err)
	}
}

// Pins that bring in every tool leave nothing to load: load_tools is not offered.
func TestPinningEverythingDefersNothing(t *testing.T) {
	tools := bigCatalogue(4)
	o := runnerOptions(100)
	o.Pinned = names(tools[3:])
	s := mustNew(t, tools, o)
	if s.Deferred() || s.IsLoaded("load_tools") || s.Index() != "" {
		t.Errorf("Deferred %v, load_tools loaded %v, index %q", s.Deferred(), s.IsLoaded("load_tools"), s.Index())
	}
}

var indexLine = regexp.MustCompile(`^- (\S+) \((read|act|note)(, sent)?\)(: .+)?$`)

// The index names every tool of the game once (those sent whole marked so, without a
// summary; the deferred ones with theirs), grouped, "other" last, and does not change
// when tools are loaded (it lives in the cached prompt).
func TestIndexNamesEveryDeferredToolOnce(t *testing.T) {
	s := mustNew(t, bigCatalogue(120), runnerOptions(6000))
	index := s.Index()
	seen := map[string]int{}
	var groups []string
	for _, line := range strings.Split(strings.TrimSuffix(index, "\n"), "\n") {
		switch {
		case line == "":
		case strings.HasSuffix(line, ":") && !strings.HasPrefix(line, "- "):
			groups = append(groups, strings.TrimSuffix(line, ":"))
		default:
			m := indexLine.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("index line %q is not \"- name (kind): summary\"", line)
			}
			seen[m[1]]++
			if sent := m[3] != ""; sent != s.IsLoaded(m[1]) || sent == (m[4] != "") {
				t.Errorf("index line %q: sent %v, loaded %v, summary %q", line, sent, s.IsLoaded(m[1]), m[4])
			}
		}
	}
	if !slices.Equal(groups, []string{"fleet", "systems", "contracts", "other"}) {
		t.Errorf("groups %v, want catalogue order with other last", groups)
	}
	for _, tl := range bigCatalogue(120) {
		want := 1
		if tl.Kind == game.Note || tl.Name == "load_tools" || tl.Name == "find_tools" {
			want = 0 // the runner's own tools are always sent, and are not the game's
		}
		if seen[tl.Name] != want {
			t.Errorf("%s appears %d times in the index, want %d", tl.Name, seen[tl.Name], want)
		}
	}
	s.Load([]string{"op_100"})
	if s.Index() != index {
		t.Error("Index changed after a load")
	}
	if !strings.Contains(index, "- op_101 (act): Operation 101.\n") {
		t.Errorf("index line of op_101 lacks its summary:\n%.400s", index)
	}
}

// Load reports what it added, what was there, and what it does not know, with the
// names it was probably after.
func TestLoadResult(t *testing.T) {
	s := mustNew(t, findCatalogue(), Options{Budget: 10})
	s.Load([]string{"get-status"})
	r := s.Load([]string{"get-my-ships", "get-status", "navigate_ship", "zzz", "get-my-ships", " "})
	if !slices.Equal(r.Added, []string{"get-my-ships"}) || !slices.Equal(r.Already, []string{"get-status"}) {
		t.Fatalf("Added %v, Already %v", r.Added, r.Already)
	}
	if len(r.Unknown) != 2 || r.Unknown[0].Name != "navigate_ship" || !slices.Equal(r.Unknown[0].Near, []string{"navigate-ship"}) || r.Unknown[1].Near != nil {
		t.Fatalf("Unknown = %+v", r.Unknown)
	}
	want := "loaded get-my-ships (available from your next request); already loaded: get-status; unknown: navigate_ship (did you mean navigate-ship?), zzz"
	if got := r.String(); got != want {
		t.Errorf("String() = %q\nwant %q", got, want)
	}
	if got := (LoadResult{Unknown: []Miss{{Name: "x", Near: []string{"a", "b", "c"}}}}).String(); got != "unknown: x (did you mean a, b or c?)" {
		t.Errorf("String() = %q", got)
	}
	if s := (LoadResult{}).String(); !strings.Contains(s, "nothing to load") {
		t.Errorf("empty result says %q", s)
	}
}

// A resumed session restores what was loaded, in its order, and so sends the same
// bytes as the session it resumes.
func TestRestoredLoadedSendsTheSameBytes(t *testing.T) {
	tools := bigCatalogue(60)
	s := mustNew(t, tools, runnerOptions(4000))
	s.Load([]string{"op_059", "op_020", "op_041"})
	saved := s.Loaded()

	o := runnerOptions(4000)
	o.Loaded = append(slices.Clone(saved), "gone_tool")
	r := mustNew(t, tools, o)
	if !bytes.Equal(wireJSON(t, r.Sent()), wireJSON(t, s.Sent())) {
		t.Errorf("resumed Sent = %v\nwant %v", names(r.Sent()), saved)
	}
	if r.Index() != s.Index() {
		t.Error("a resumed session's index differs")
	}
}

// Lookup finds deferred tools too: their calls are validated against the full schema.
func TestLookupFindsDeferredTools(t *testing.T) {
	s := mustNew(t, bigCatalogue(40), runnerOptions(2000))
	tl, ok := s.Lookup("op_039")
	if !ok || s.IsLoaded("op_039") || tl.Schema == nil {
		t.Fatalf("Lookup(op_039) = %v, %v (loaded %v)", tl.Name, ok, s.IsLoaded("op_039"))
	}
	if _, ok := s.Lookup("nope"); ok {
		t.Error("Lookup found a tool that does not exist")
	}
}

// Update keeps the sent tools' order (with their new definitions), drops gone ones,
// appends new ones that fit and defers the rest, without touching the index.
func TestUpdateKeepsOrder(t *testing.T) {
	tools := bigCatalogue(40)
	s := mustNew(t, tools, runnerOptions(3000))
	s.Load([]string{"op_035", "op_010"})
	sentBefore := names(s.Sent())
	index := s.Index()

	// op_000 to op_002 and op_010 go (which leaves room in the budget), op_035 gets a
	// new description, one small and one huge tool come.
	gone := []string{"op_000", "op_001", "op_002", "op_010"}
	var next []game.Tool
	for _, tl := range tools {
		switch {
		case slices.Contains(gone, tl.Name):
			continue
		case tl.Name == "op_035":
			tl.Description = "New words."
		}
		next = append(next, tl)
	}
	next = append(next, tool("huge_new", game.Act, "", "Huge.", 5000), tool("small_new", game.Read, "", "Small.", 0))
	s.Update(next)

	var want []string
	for _, n := range sentBefore {
		if !slices.Contains(gone, n) {
			want = append(want, n)
		}
	}
	want = append(want, "small_new")
	if got := names(s.Sent()); !slices.Equal(got, want) {
		t.Fatalf("after Update Sent = %v\nwant %v", got, want)
	}
	if got, _ := s.Lookup("op_035"); got.Description != "New words." || s.Sent()[slices.Index(want, "op_035")].Description != "New words." {
		t.Error("op_035 kept its old definition")
	}
	if _, ok := s.Lookup("huge_new"); !ok || s.IsLoaded("huge_new") {
		t.Error("huge_new should be known and deferred")
	}
	if _, ok := s.Lookup("op_010"); ok || s.IsLoaded("op_010") {
		t.Error("op_010 is gone from the game but still known")
	}
	if s.Index() != index {
		t.Error("Update recomputed the index")
	}
	if len(s.Find("huge_new", 1)) != 1 {
		t.Error("Find does not see the new catalogue")
	}
	if s.SentSize() != len(wireJSON(t, s.Sent())) {
		t.Error("SentSize wrong after Update")
	}
}

// A catalogue sent whole stays whole while it fits; when an update makes it too big,
// the new tools are deferred and load_tools and find_tools appear to reach them.
func TestUpdateFromWhole(t *testing.T) {
	tools := bigCatalogue(3)
	s := mustNew(t, tools, runnerOptions(0))
	first := names(s.Sent())

	s.Update(append(slices.Clone(tools), tool("extra", game.Read, "", "Extra.", 0)))
	if got := names(s.Sent()); !slices.Equal(got, append(slices.Clone(first), "extra")) || s.Deferred() {
		t.Fatalf("after a small update Sent = %v, deferred %v", got, s.Deferred())
	}

	bigger := append(slices.Clone(tools), tool("extra", game.Read, "", "Extra.", 0))
	for _, n := range []string{"w1", "w2", "w3", "w4", "w5"} {
		bigger = append(bigger, tool(n, game.Act, "world", "Large.", 4000))
	}
	s.Update(bigger)
	got := names(s.Sent())
	if !s.Deferred() || !slices.Equal(got[:len(first)+1], append(slices.Clone(first), "extra")) {
		t.Fatalf("Sent = %v, deferred %v", got, s.Deferred())
	}
	for _, n := range []string{"load_tools", "find_tools"} {
		if !s.IsLoaded(n) {
			t.Errorf("%s not loaded once something is deferred", n)
		}
	}
	if !s.IsLoaded("w1") || !s.IsLoaded("w2") || s.IsLoaded("w3") {
		t.Errorf("new tools should be appended while they fit: %v", got)
	}
}

func TestSummary(t *testing.T) {
	for _, c := range []struct{ name, desc, want string }{
		{"get-ship-nav", "Get Ship Nav. Get the current nav status of a ship.", "Get the current nav status of a ship."},
		{"get-my-ships", "List Ships. Return a paginated list.", "List Ships."},
		{"account_read", "Reads of Account. Read account information and preferences. More.", "Read account information and preferences."},
		{"x", "The x. Then more.", "Then more."},
		{"games_act", "Actions of Games. Access games played. More.", "Access games played."},
		{"get_ship", "Getaway plans. Then more.", "Getaway plans."},
		{"x", "Use it, e.g. to fly. Then stop.", "Use it, e.g. to fly."},
		{"x", "  One\n line  only ", "One line only"},
		{"x", "", ""},
		{"x", strings.Repeat("word ", 40), strings.TrimSpace(strings.Repeat("word ", 17)) + "…"},
	} {
		if got := Summary(game.Tool{Name: c.name, Description: c.desc}); got != c.want {
			t.Errorf("Summary(%s, %q) = %q, want %q", c.name, c.desc, got, c.want)
		}
	}
}

// An index that would not fit its budget is shortened, never cut at random: first the
// summaries go (every tool still named), then the names (each group with its count),
// and a note at its head says what was left out and that find_tools finds the rest.
func TestIndexKeepsWithinItsBudget(t *testing.T) {
	many := func(n int) []game.Tool {
		var tools []game.Tool
		for i := range n {
			tools = append(tools, tool(fmt.Sprintf("op%04d", i), game.Read, fmt.Sprintf("group%d", i%7),
				"Does one particular thing for the player. More words follow.", 600, "id"))
		}
		return tools
	}
	for _, tc := range []struct {
		tools, budget int
		want          string // what the index must show
	}{
		{150, 0, "with summaries"},
		{400, 0, "names only"},
		{3000, 0, "groups only"},
		{150, 4000, "names only"},
		{150, 1000, "groups only"},
	} {
		tools := many(tc.tools)
		s, err := New(tools, Options{IndexBudget: tc.budget})
		if err != nil {
			t.Fatal(err)
		}
		idx, budget := s.Index(), tc.budget
		if budget == 0 {
			budget = DefaultIndexBudget
		}
		name := fmt.Sprintf("%d tools, budget %d", tc.tools, tc.budget)
		if len(idx) > budget || idx == "" {
			t.Errorf("%s: index of %d characters, over %d (or empty)", name, len(idx), budget)
		}
		summaries := strings.Contains(idx, "Does one particular thing")
		switch tc.want {
		case "with summaries", "names only":
			if summaries != (tc.want == "with summaries") || strings.Contains(idx, "Too many tools to describe") == summaries {
				t.Errorf("%s: want %s, got:\n%.400s", name, tc.want, idx)
			}
			for _, tl := range tools {
				if !strings.Contains(idx, "- "+tl.Name+" (") {
					t.Errorf("%s: %s is not named", name, tl.Name)
					break
				}
			}
		case "groups only":
			if summaries || strings.Contains(idx, "op0001") || !strings.Contains(idx, "find_tools") {
				t.Errorf("%s: want groups only, got:\n%.400s", name, idx)
			}
			sent := len(s.Loaded())
			total := 0
			for g := range 7 {
				var n int
				if _, err := fmt.Sscanf(idx[strings.Index(idx, fmt.Sprintf("- group%d: ", g)):], "- group"+fmt.Sprint(g)+": %d tools", &n); err != nil {
					t.Fatalf("%s: group%d has no count: %v\n%s", name, g, err, idx)
				}
				total += n
			}
			if total != tc.tools || sent == 0 || !strings.Contains(idx, " sent)") {
				t.Errorf("%s: the groups count %d tools (%d sent), want %d:\n%s", name, total, sent, tc.tools, idx)
			}
		}
	}
}
