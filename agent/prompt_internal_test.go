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
// and checks that the prompt stops growing once the window first folds (the largest
// prompt of steps 100-500 against the largest of steps 1-100), and that folded steps
// are still summarised.
func TestPromptBoundedOver500Steps(t *testing.T) {
	t.Parallel()
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
		cur := stepRecord{n: n}
		cur.input, cur.full = r.prompt.input(n, obs, nil, nil)
		size[n] = promptChars(r.prompt.prompt(cur, r.tools.systemIndex()))
		args := json.RawMessage(fmt.Sprintf(`{"target":"rock-%d"}`, n))
		cur.text = fmt.Sprintf("Poking rock %d, as planned.", n)
		cur.calls = []ToolCall{{ID: fmt.Sprint("c", n), Tool: "poke", Args: args}}
		cur.results = []toolResult{{tool: "poke", args: args, text: strings.Repeat("poked. ", 20), ok: n%7 != 0}}
		r.prompt.hist.add(cur)
	}
	early, late := 0, 0
	for n, c := range size {
		if n <= 100 {
			early = max(early, c)
		} else {
			late = max(late, c)
		}
	}
	if float64(late) > 1.05*float64(early) {
		t.Fatalf("the prompt grew from at most %d chars over steps 1-100 to %d over steps 101-500", early, late)
	}
	folded := 500 - len(r.prompt.hist.recent)
	sum := r.prompt.hist.sum.String()
	if !strings.Contains(sum, fmt.Sprintf("poke ×%d", folded)) || !strings.Contains(sum, fmt.Sprintf("step %d:", folded)) {
		t.Fatalf("the summary lost the folded steps (%d of them):\n%s", folded, sum)
	}
}
