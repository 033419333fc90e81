package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/coplayhq/coplay/agent/catalog"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/notes"
	"github.com/google/jsonschema-go/jsonschema"
)

// The runner's own tools, next to the notebook's: wait sets the pace; load_tools and
// find_tools reach the tools of a catalogue too long to send whole.
const (
	ToolWait      = "wait"
	ToolLoadTools = "load_tools"
	ToolFindTools = "find_tools"
)

// Bounds of the wait tool.
const (
	minWaitSeconds = 1
	maxWaitSeconds = 3600
)

type waitArgs struct {
	Seconds int    `json:"seconds" jsonschema:"how long to pause play, 1 to 3600 seconds"`
	Reason  string `json:"reason,omitempty" jsonschema:"what you are waiting for, shown to the person"`
}

type loadToolsArgs struct {
	Names []string `json:"names" jsonschema:"names of tools from the index of tools not loaded"`
}

type findToolsArgs struct {
	Query string `json:"query" jsonschema:"words to look for in tool names, summaries, groups and parameter names"`
}

// maxFound is how many tools find_tools lists.
const maxFound = 12

// toolbox is the catalogue: the game's tools with the notebook's and the runner's own
// (the registry every call is validated and run through), and which of them the model
// is sent whole (agent/catalog). Its own tools run on the Run goroutine; what they
// change that the reader must hear of (the notes, the tools loaded) waits in out for
// the Runner to emit (take). reg is replaced when the game's tools change, and read by
// Send, under mu; the rest is the Run goroutine's.
type toolbox struct {
	mu       sync.Mutex
	reg      *game.Registry
	cat      *catalog.Set
	game     game.Game
	notebook Notebook
	scrub    scrubber
	now      func() time.Time
	step     func() int // the step the notebook's edits are made at
	atStart  []string   // the session's loaded tools when the run began (window.go)
	out      []Event    // events the tools made, for the Runner
	loaded   []string   // the loaded tools, when they changed, for the journal
}

// Notebook is the session's notes and plan as the notebook tools change them.
// *notes.Session satisfies it.
type Notebook interface {
	NotesReader
	SetNotes(text string, step int) (notes.Notes, error)
	UpdateSection(section, text string, step int) (notes.Notes, error)
	SetPlan(steps []notes.PlanStep, step int) ([]notes.PlanStep, error)
	UpdateStep(id int, status notes.Status, text string, step int) ([]notes.PlanStep, error)
}

// newToolbox builds the catalogue of cfg's game and notebook; loaded are the tools the
// session had loaded for the model.
func newToolbox(cfg Config, scrub scrubber, step func() int, loaded []string) (*toolbox, error) {
	tb := &toolbox{game: cfg.Game, notebook: cfg.Session, scrub: scrub, now: cfg.Now, step: step, atStart: loaded}
	tb.reg = game.NewRegistry(cfg.Game)
	tb.addRunnerTools(tb.reg)
	var err error
	if tb.cat, err = newCatalog(tb.reg.Tools(), cfg, loaded); err != nil {
		return nil, err
	}
	return tb, nil
}

// registry returns the catalogue calls go through. It is replaced, on the Run
// goroutine, when the game's tools change (game.Refresher); Send reads it from others.
func (tb *toolbox) registry() *game.Registry {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return tb.reg
}

// refresh rebuilds the catalogue when the game says its tools changed (an MCP
// server's notifications/tools/list_changed). The game tells the model what appeared
// and disappeared in its next observation; calls already waiting keep the tools they
// were validated against.
func (tb *toolbox) refresh() {
	rf, ok := tb.game.(game.Refresher)
	if !ok || !rf.ToolsChanged() {
		return
	}
	reg := game.NewRegistry(tb.game)
	tb.addRunnerTools(reg)
	tb.cat.Update(reg.Tools())
	tb.mu.Lock()
	tb.reg = reg
	tb.mu.Unlock()
}

// resize sizes the catalogue again for cfg's budgets (a brain reported its window).
func (tb *toolbox) resize(cfg Config) error {
	cat, err := newCatalog(tb.reg.Tools(), cfg, tb.atStart)
	if err != nil {
		return err
	}
	tb.cat = cat
	return nil
}

// take returns the events the tools made since the last take, and the loaded tools
// when they changed (nil otherwise), and forgets them.
func (tb *toolbox) take() (evs []Event, loaded []string) {
	evs, loaded = tb.out, tb.loaded
	tb.out, tb.loaded = nil, nil
	return evs, loaded
}

// validate is the one validation of a call's arguments: no secret's value, the size
// limit, then the registry's (schema, duplicate keys, the game's own checks). Its
// result is what runs.
func (tb *toolbox) validate(tool string, args json.RawMessage) (game.ValidCall, error) {
	if err := tb.scrub.held(tool, args); err != nil {
		return game.ValidCall{}, err
	}
	if len(args) > MaxArgsBytes {
		return game.ValidCall{}, &game.ValidationError{Tool: tool, Problems: []game.Problem{{
			Path: "arguments", Expected: fmt.Sprintf("at most %d bytes of arguments", MaxArgsBytes),
			Got: fmt.Sprintf("%d bytes", len(args)), Hint: "send shorter values; no tool needs more",
		}}}
	}
	return tb.registry().Check(tool, args)
}

// addRunnerTools puts the notebook's and the runner's own tools in the catalogue.
func (tb *toolbox) addRunnerTools(reg *game.Registry) {
	tb.addNotebook(reg)
	reg.Add(game.Tool{
		Name: ToolWait, Kind: game.Note,
		Description: "Pause play for some seconds when nothing is worth doing now (every ship travelling, a cooldown running). " +
			"Play goes on by itself afterwards; the person can end the pause early.",
		Schema: waitSchema(),
	}, tb.wait)
	reg.Add(game.Tool{
		Name: ToolLoadTools, Kind: game.Read,
		Description: "Load the full definitions of tools from the index of tools not loaded, so that you can call them from your next answer on.",
		Schema:      loadToolsSchema(),
	}, tb.loadTools)
	reg.Add(game.Tool{
		Name: ToolFindTools, Kind: game.Read,
		Description: "Search every tool of the game (loaded or not) by words: names, summaries, groups and parameter names. Load what you need with load_tools.",
		Schema:      game.SchemaFor[findToolsArgs](),
	}, tb.findTools)
}

func waitSchema() *jsonschema.Schema {
	s := game.SchemaFor[waitArgs]()
	lo, hi := float64(minWaitSeconds), float64(maxWaitSeconds)
	s.Properties["seconds"].Minimum, s.Properties["seconds"].Maximum = &lo, &hi
	return s
}

func loadToolsSchema() *jsonschema.Schema {
	s := game.SchemaFor[loadToolsArgs]()
	one := 1
	s.Properties["names"].MinItems = &one
	return s
}

// newCatalog decides which tools the model is sent whole (agent/catalog): every tool
// when they fit Config.ToolBudget, otherwise the runner's own, the person's pins and
// the game's observing tools, then what fits, the rest in an index.
func newCatalog(tools []game.Tool, cfg Config, loaded []string) (*catalog.Set, error) {
	always := []string{ToolUpdateNotes, ToolSetPlan, ToolUpdateStep, ToolWait}
	for _, t := range tools {
		if t.Kind == game.Read && strings.HasPrefix(t.Name, "observe") {
			always = append(always, t.Name)
		}
	}
	return catalog.New(tools, catalog.Options{
		Budget: cfg.ToolBudget, Always: always, Pinned: cfg.Pinned, Loaded: loaded, IndexBudget: indexBudget(cfg),
		OnlyWhenDeferred: []string{ToolLoadTools, ToolFindTools},
	})
}

// ModelCatalog returns what the first model request of a session of g carries: the
// tools sent whole (with the notebook's and the runner's own) and the index of the
// others ("" when every tool is sent), for `coplay tools --as-model`.
//
// cfg.ContextWindow sizes it as a run's would: a small window sends fewer tools whole.
func ModelCatalog(g game.Game, cfg Config) (sent []game.Tool, index string, total int, err error) {
	fitWindow(&cfg)
	tb := &toolbox{now: cfg.Now}
	reg := game.NewRegistry(g)
	tb.addRunnerTools(reg)
	set, err := newCatalog(reg.Tools(), cfg, nil)
	if err != nil {
		return nil, "", 0, err
	}
	return set.Sent(), set.Index(), set.Total(), nil
}

// catalogEvent says how much of the catalogue the model is sent whole, and why.
func (tb *toolbox) catalogEvent(added []string, text string) Event {
	return Event{Type: EventCatalog, Text: text,
		Catalog: &CatalogView{Loaded: len(tb.cat.Sent()), Total: tb.cat.Total(), Added: added}}
}

// loadCatalog appends tools to what the model is sent, keeps the list for the phase's
// commit (a resumed session sends the same tools) and tells the reader.
func (tb *toolbox) loadCatalog(names []string) catalog.LoadResult {
	res := tb.cat.Load(names)
	if len(res.Added) > 0 {
		tb.loaded = tb.cat.Loaded()
		tb.out = append(tb.out, tb.catalogEvent(res.Added,
			fmt.Sprintf("tools loaded for the model: %s (%d of %d loaded)", strings.Join(res.Added, ", "), len(tb.cat.Sent()), tb.cat.Total())))
	}
	return res
}

func (tb *toolbox) wait(_ context.Context, raw json.RawMessage) (game.Result, error) {
	var a waitArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return game.Result{}, fmt.Errorf("%s: %w", ToolWait, err)
	}
	why := strings.TrimSpace(a.Reason)
	if why == "" {
		why = "the model chose to wait"
	}
	until := tb.now().Add(time.Duration(a.Seconds) * time.Second)
	return game.Result{
		Output: fmt.Sprintf("play pauses for %d s (until %s) and goes on by itself; the person can end the pause early", a.Seconds, until.UTC().Format(time.TimeOnly)),
		Wait:   &game.Wait{Until: until, Reason: why},
	}, nil
}

func (tb *toolbox) loadTools(_ context.Context, raw json.RawMessage) (game.Result, error) {
	var a loadToolsArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return game.Result{}, fmt.Errorf("%s: %w", ToolLoadTools, err)
	}
	res := tb.loadCatalog(a.Names)
	out := game.Result{Output: res.String()}
	if len(res.Added) == 0 && len(res.Already) == 0 {
		out = game.Result{Err: &game.Error{Code: 404, Message: res.String()}}
	}
	return out, nil
}

func (tb *toolbox) findTools(_ context.Context, raw json.RawMessage) (game.Result, error) {
	var a findToolsArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return game.Result{}, fmt.Errorf("%s: %w", ToolFindTools, err)
	}
	found := tb.cat.Find(a.Query, maxFound)
	if len(found) == 0 {
		return game.Result{Output: fmt.Sprintf("no tool matches %q; the index in your instructions lists every tool", a.Query)}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d tool(s) match %q, best first:\n", len(found), a.Query)
	for _, m := range found {
		group := ""
		if m.Group != "" {
			group = ", " + m.Group
		}
		state := "not loaded"
		if m.Loaded {
			state = "loaded"
		}
		fmt.Fprintf(&b, "- %s (%s%s; %s): %s\n", m.Name, m.Kind, group, state, m.Summary)
	}
	return game.Result{Output: strings.TrimRight(b.String(), "\n")}, nil
}

// deferredNote is added to a call of a tool the model had not been sent: the call is
// validated against the tool's full schema all the same, and the tool is loaded, so
// that from the next request on the model has its definition. When the call was
// refused, the note carries the schema to correct it by.
func (tb *toolbox) deferredNote(tool string, invalid bool) string {
	t, ok := tb.cat.Lookup(tool)
	if !ok || tb.cat.IsLoaded(tool) {
		return ""
	}
	tb.loadCatalog([]string{tool})
	if !invalid {
		return ""
	}
	schema, _ := json.Marshal(t.Schema)
	return fmt.Sprintf("%s was not loaded; it is now, from your next request on. Its arguments schema: %s", tool, schema)
}

// systemIndex is the part of the system prompt that lists the tools not sent whole.
func (tb *toolbox) systemIndex() string {
	idx := tb.cat.Index()
	if idx == "" {
		return ""
	}
	return "\n# More tools (not loaded)\n\nThe game has more tools than are sent with each request. These exist too; load the ones you need with load_tools {\"names\": [...]} (or search with find_tools) and call them from your next answer on.\n\n" + idx + "\n"
}

// Catalogue is g's tools with the notebook's and the runner's own, as a run offers
// them: what an approval rule is checked against before a run starts (`coplay config
// check`). The tools are for reading; they are not to be called.
func Catalogue(g game.Game) []game.Tool {
	reg := game.NewRegistry(g)
	(&toolbox{}).addRunnerTools(reg)
	return reg.Tools()
}
