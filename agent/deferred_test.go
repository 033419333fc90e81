package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/catalog"
	"github.com/coplayhq/coplay/game"
)

// bigGame has more tools than fit a request: 60 operations with long descriptions, in
// three groups.
type bigGame struct {
	mu    sync.Mutex
	calls []string
}

type opArgs struct {
	Target string `json:"target" jsonschema:"what the operation is applied to"`
	Count  int    `json:"count,omitempty" jsonschema:"how many times"`
}

func (g *bigGame) Info() game.Info { return game.Info{Name: "big", Title: "Big", Rules: "Many tools."} }
func (g *bigGame) Tools() []game.Tool {
	var out []game.Tool
	for i := range 60 {
		out = append(out, game.Tool{
			Name: fmt.Sprintf("op_%02d", i), Kind: game.Read, Group: []string{"alpha", "beta", "gamma"}[i%3],
			Description: fmt.Sprintf("Operation number %d. ", i) + strings.Repeat("It does a thing with care and reports back. ", 6),
			Schema:      game.SchemaFor[opArgs](),
		})
	}
	return out
}
func (g *bigGame) Observe(context.Context) (game.Observation, error) {
	return game.Observation{Summary: "Quiet."}, nil
}
func (g *bigGame) Call(_ context.Context, name string, args json.RawMessage) (game.Result, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls = append(g.calls, name+" "+string(args))
	return game.Result{Output: name + " done"}, nil
}

func names(tools []game.Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}

// Over the budget the model gets part of the catalogue and an index of the rest; it
// loads a tool, which is appended from the next request on and reaches the game; a call
// to a tool it was never sent is validated against the full schema, and a refusal
// carries that schema; a resumed session sends the same tools.
func TestDeferredToolsLoadAndCall(t *testing.T) {
	t.Parallel()
	g := &bigGame{}
	b := &scriptBrain{replies: []scripted{
		say("I need op_42.", "load_tools", `{"names": ["op_42", "op_4x"]}`),
		say("Now use it.", "op_42", `{"target": "rock"}`, "op_50", `{"target": 5}`),
		say("Done."),
	}}
	sess := newSession(t)
	h := startGame(t, g, b, sess, nil)
	h.next("idle", isState(agent.Idle))
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
	reqs := b.requests()
	first, second := reqs[0], reqs[1]
	if n := catalog.Size(first.Tools); n > catalog.DefaultBudget {
		t.Errorf("the first request carries %d characters of tools, over the budget of %d", n, catalog.DefaultBudget)
	}
	sys := first.Messages[0].Content
	for _, tool := range g.Tools() {
		if !slices.Contains(names(first.Tools), tool.Name) && !strings.Contains(sys, "- "+tool.Name+" (") {
			t.Errorf("%s is neither sent nor in the index", tool.Name)
		}
	}
	for _, want := range []string{"load_tools", "find_tools", "wait", "update_notes"} {
		if !slices.Contains(names(first.Tools), want) {
			t.Errorf("the first request lacks %s: %v", want, names(first.Tools))
		}
	}
	n1, n2 := names(first.Tools), names(second.Tools)
	if len(n2) != len(n1)+1 || !slices.Equal(n2[:len(n1)], n1) || n2[len(n1)] != "op_42" {
		t.Fatalf("after load_tools the tools are %v, want %v then op_42", n2, n1)
	}
	loadResult := lastToolMessage(second)
	if !strings.Contains(loadResult, "loaded op_42") || !strings.Contains(loadResult, "did you mean") {
		t.Errorf("load_tools answered %q", loadResult)
	}
	if got := strings.Join(g.calls, "|"); got != `op_42 {"target":"rock"}` {
		t.Errorf("game calls %q, want op_42 only (op_50's arguments are invalid)", got)
	}
	refusal := lastToolMessage(reqs[2])
	if !strings.Contains(refusal, "op_50 was not loaded") || !strings.Contains(refusal, `"target":{"type":"string"`) {
		t.Errorf("the refusal of op_50 does not carry its schema: %q", refusal)
	}
	third := names(reqs[2].Tools)
	if third[len(third)-1] != "op_50" {
		t.Errorf("op_50 was not loaded after it was called: %v", third)
	}

	// Resume: the same tools, in the same order, from the first request.
	b2 := &scriptBrain{replies: []scripted{say("Back.")}}
	h2 := startGame(t, g, b2, sess, nil)
	h2.next("idle", isState(agent.Idle))
	if err := h2.finish(); err != nil {
		t.Fatal(err)
	}
	if got := names(b2.requests()[0].Tools); !slices.Equal(got, third) {
		t.Errorf("the resumed session sends %v, want %v", got, third)
	}
}

func lastToolMessage(req agent.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == agent.RoleTool {
			return req.Messages[i].Content
		}
	}
	return ""
}

// A call to a tool no catalogue has, in a catalogue of dozens, is refused with the names
// near it, not a list of every tool (which would cost the model thousands of tokens at
// every typo); in a small catalogue the whole list is the answer.
func TestUnknownToolInALargeCatalogue(t *testing.T) {
	t.Parallel()
	b := &scriptBrain{replies: []scripted{say("Try.", "op_4", `{"target": "rock"}`), say("Done.")}}
	h := startGame(t, &bigGame{}, b, newSession(t), nil)
	c := h.proposed("op_4")
	h.next("idle", isState(agent.Idle))
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
	if len(c.Problems) != 1 {
		t.Fatalf("problems = %+v", c.Problems)
	}
	p := c.Problems[0]
	if strings.Contains(p.Expected, "op_17") || !strings.Contains(p.Expected, "tools by its exact name") || !strings.Contains(p.Hint, "op_40") {
		t.Errorf("the refusal of op_4 says %q (hint %q): want the near names, not the whole list", p.Expected, p.Hint)
	}
	if msg := lastToolMessage(b.requests()[1]); len(msg) > 1000 {
		t.Errorf("the model was told %d characters about an unknown tool:\n%s", len(msg), msg)
	}
}
