package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/coplayhq/coplay/agent/catalog"
	"github.com/coplayhq/coplay/game"
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

// addRunnerTools puts the notebook's and the runner's own tools in the catalogue.
func (r *Runner) addRunnerTools(reg *game.Registry) {
	r.addNotebook(reg)
	reg.Add(game.Tool{
		Name: ToolWait, Kind: game.Note,
		Description: "Pause play for some seconds when nothing is worth doing now (every ship travelling, a cooldown running). " +
			"Play goes on by itself afterwards; the person can end the pause early.",
		Schema: waitSchema(),
	}, r.wait)
	reg.Add(game.Tool{
		Name: ToolLoadTools, Kind: game.Read,
		Description: "Load the full definitions of tools from the index of tools not loaded, so that you can call them from your next answer on.",
		Schema:      loadToolsSchema(),
	}, r.loadTools)
	reg.Add(game.Tool{
		Name: ToolFindTools, Kind: game.Read,
		Description: "Search every tool of the game (loaded or not) by words: names, summaries, groups and parameter names. Load what you need with load_tools.",
		Schema:      game.SchemaFor[findToolsArgs](),
	}, r.findTools)
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
	r := &Runner{cfg: cfg}
	reg := game.NewRegistry(g)
	r.addRunnerTools(reg)
	set, err := newCatalog(reg.Tools(), cfg, nil)
	if err != nil {
		return nil, "", 0, err
	}
	return set.Sent(), set.Index(), set.Total(), nil
}

// sentTools is the tools the model is sent whole at this step.
func (r *Runner) sentTools() []game.Tool { return r.cat.Sent() }

// catalogView is the catalogue's state for the reader.
func (r *Runner) catalogView(added []string) *CatalogView {
	return &CatalogView{Loaded: len(r.cat.Sent()), Total: r.cat.Total(), Added: added}
}

// loadCatalog appends tools to what the model is sent, keeps the list with the phase's
// commit (a resumed session sends the same tools) and tells the reader.
func (r *Runner) loadCatalog(names []string) catalog.LoadResult {
	res := r.cat.Load(names)
	if len(res.Added) > 0 {
		r.jr.loaded(r.cat.Loaded())
		r.emit(Event{Type: EventCatalog, Catalog: r.catalogView(res.Added),
			Text: fmt.Sprintf("tools loaded for the model: %s (%d of %d loaded)", strings.Join(res.Added, ", "), len(r.cat.Sent()), r.cat.Total())})
	}
	return res
}

func (r *Runner) wait(_ context.Context, raw json.RawMessage) (game.Result, error) {
	var a waitArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return game.Result{}, fmt.Errorf("%s: %w", ToolWait, err)
	}
	why := strings.TrimSpace(a.Reason)
	if why == "" {
		why = "the model chose to wait"
	}
	until := r.cfg.Now().Add(time.Duration(a.Seconds) * time.Second)
	return game.Result{
		Output: fmt.Sprintf("play pauses for %d s (until %s) and goes on by itself; the person can end the pause early", a.Seconds, until.UTC().Format(time.TimeOnly)),
		Wait:   &game.Wait{Until: until, Reason: why},
	}, nil
}

func (r *Runner) loadTools(_ context.Context, raw json.RawMessage) (game.Result, error) {
	var a loadToolsArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return game.Result{}, fmt.Errorf("%s: %w", ToolLoadTools, err)
	}
	res := r.loadCatalog(a.Names)
	out := game.Result{Output: res.String()}
	if len(res.Added) == 0 && len(res.Already) == 0 {
		out = game.Result{Err: &game.Error{Code: 404, Message: res.String()}}
	}
	return out, nil
}

func (r *Runner) findTools(_ context.Context, raw json.RawMessage) (game.Result, error) {
	var a findToolsArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return game.Result{}, fmt.Errorf("%s: %w", ToolFindTools, err)
	}
	found := r.cat.Find(a.Query, maxFound)
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
func (r *Runner) deferredNote(tool string, invalid bool) string {
	t, ok := r.cat.Lookup(tool)
	if !ok || r.cat.IsLoaded(tool) {
		return ""
	}
	r.loadCatalog([]string{tool})
	if !invalid {
		return ""
	}
	schema, _ := json.Marshal(t.Schema)
	return fmt.Sprintf("%s was not loaded; it is now, from your next request on. Its arguments schema: %s", tool, schema)
}

// systemIndex is the part of the system prompt that lists the tools not sent whole.
func (r *Runner) systemIndex() string {
	idx := r.cat.Index()
	if idx == "" {
		return ""
	}
	return "\n# More tools (not loaded)\n\nThe game has more tools than are sent with each request. These exist too; load the ones you need with load_tools {\"names\": [...]} (or search with find_tools) and call them from your next answer on.\n\n" + idx + "\n"
}
