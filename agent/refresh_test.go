package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

// unlockingGame is a grid game whose catalogue gains a read tool, "peek", at its second
// observation, and says so the way an MCP server's list_changed does (game.Refresher).
type unlockingGame struct {
	*gridGame
	mu       sync.Mutex
	observed int
	changed  bool
}

func (u *unlockingGame) Observe(ctx context.Context) (game.Observation, error) {
	u.mu.Lock()
	u.observed++
	if u.observed == 2 {
		u.changed = true
	}
	u.mu.Unlock()
	return u.gridGame.Observe(ctx)
}

func (u *unlockingGame) Tools() []game.Tool {
	tools := u.gridGame.Tools()
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.observed >= 2 {
		tools = append(tools, game.Tool{Name: "peek", Kind: game.Read, Description: "look around", Schema: game.SchemaFor[struct{}]()})
	}
	return tools
}

func (u *unlockingGame) Call(ctx context.Context, name string, args json.RawMessage) (game.Result, error) {
	if name == "peek" {
		return game.Result{Output: "peeked: gold to the east"}, nil
	}
	return u.gridGame.Call(ctx, name, args)
}

func (u *unlockingGame) ToolsChanged() bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	c := u.changed
	u.changed = false
	return c
}

// TestAGameWhoseToolsChangeIsPlayedWithItsNewTools: a tool that appears while the game
// runs can be called from the next step on; before that it is an unknown tool.
func TestAGameWhoseToolsChangeIsPlayedWithItsNewTools(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	b := &scriptBrain{replies: []scripted{
		say("Peek.", "peek", `{}`),
		say("Peek again.", "peek", `{}`),
		say("Done."),
	}}
	h := start(t, g, b, nil, func(c *agent.Config) { c.Game = &unlockingGame{gridGame: g} })
	first := h.next("the first peek", is(agent.EventResult))
	if first.Result.Err == nil || !strings.Contains(first.Result.Err.Message, "invalid call") {
		t.Fatalf("peek before the game had it: %+v", first.Result)
	}
	second := h.next("the second peek", is(agent.EventResult))
	if second.Result.Err != nil || !strings.Contains(second.Result.Output, "peeked") {
		t.Fatalf("peek after the catalogue changed: %+v", second.Result)
	}
	found := false
	for _, tl := range h.r.Tools() {
		found = found || tl.Name == "peek"
	}
	if !found {
		t.Error("the runner's catalogue does not list the new tool")
	}
	h.next("idle", isState(agent.Idle))
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}
