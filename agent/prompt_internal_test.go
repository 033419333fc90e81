package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/notes"
)

type emptyGame struct{}

func (emptyGame) Info() game.Info { return game.Info{Name: "empty", Title: "Empty", Rules: "Nothing."} }
func (emptyGame) Tools() []game.Tool {
	return []game.Tool{{Name: "poke", Kind: game.Act, Schema: game.SchemaFor[struct {
		Target string `json:"target"`
	}]()}}
}
func (emptyGame) Observe(context.Context) (game.Observation, error) { return game.Observation{}, nil }
func (emptyGame) Call(context.Context, string, json.RawMessage) (game.Result, error) {
	return game.Result{Output: "poked"}, nil
}

type nobody struct{}

func (nobody) Name() string                                 { return "nobody" }
func (nobody) Next(context.Context, Request) (Reply, error) { return Reply{}, nil }

// TestPromptBoundedOver500Steps feeds 500 steps through the history the runner keeps
// and checks the prompt at step 500 against step 50, and that folded steps are still
// summarised.
func TestPromptBoundedOver500Steps(t *testing.T) {
	book, err := notes.Open(filepath.Join(t.TempDir(), "n.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer book.Close()
	sess, err := book.Create("p", "empty", "nobody")
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(Config{Game: emptyGame{}, Brain: nobody{}, Session: sess})
	if err != nil {
		t.Fatal(err)
	}
	obs := game.Observation{Summary: "All quiet."}
	size := map[int]int{}
	for n := 1; n <= 500; n++ {
		r.step = n
		size[n] = promptChars(r.prompt(obs, nil))
		args := json.RawMessage(fmt.Sprintf(`{"target":"rock-%d"}`, n))
		r.hist.add(stepRecord{n: n, text: fmt.Sprintf("Poking rock %d, as planned.", n),
			calls:   []ToolCall{{ID: fmt.Sprint("c", n), Tool: "poke", Args: args}},
			results: []toolResult{{tool: "poke", args: args, text: strings.Repeat("poked. ", 20), ok: n%7 != 0}}})
	}
	if float64(size[500]) > 1.1*float64(size[50]) {
		t.Fatalf("prompt grew from %d chars at step 50 to %d at step 500", size[50], size[500])
	}
	sum := r.hist.sum.String()
	if !strings.Contains(sum, "poke ×492") || !strings.Contains(sum, "step 492:") {
		t.Fatalf("the summary lost the folded steps:\n%s", sum)
	}
}
