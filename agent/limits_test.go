package agent_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/llmtest"
)

// A model that writes a 300 KB note is refused with the limit in the tool result; the
// prompts after it stay under the budget (the huge argument is not repeated), and play
// goes on. Through the real wire format, from a cassette.
func TestHugeNoteIsRefusedAndPromptsStayBounded(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("The asteroid field at X1-YS98-B1 is rich. ", 300_000/43)
	type call struct {
		Tool string          `json:"tool"`
		Args json.RawMessage `json:"args"`
	}
	type step struct {
		Text  string `json:"text"`
		Calls []call `json:"calls,omitempty"`
	}
	noteArgs, _ := json.Marshal(map[string]string{"section": "Situation", "text": huge})
	cassette, _ := json.Marshal(map[string]any{"steps": []step{
		{Text: "Writing everything down.", Calls: []call{{"update_notes", noteArgs}, {"move", json.RawMessage(`{"direction":"E"}`)}}},
		{Text: "Shorter, then.", Calls: []call{{"update_notes", json.RawMessage(`{"section":"Situation","text":"Rich asteroids at B1."}`)}, {"move", json.RawMessage(`{"direction":"N"}`)}}},
		{Text: "Going on.", Calls: []call{{"move", json.RawMessage(`{"direction":"W"}`)}}},
		{Text: "Done for now."},
	}})
	path := filepath.Join(t.TempDir(), "huge-note.cassette.json")
	if err := os.WriteFile(path, cassette, 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := llmtest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	brain, srv := openaiBrain(t, c, nil)
	g := &gridGame{}
	h := startWith(t, g, brain, func(c *agent.Config) { c.ApproveAll = true })
	h.next("the end of the script", func(ev agent.Event) bool { return ev.Type == agent.EventText && ev.Text == "Done for now." })
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}

	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	callID := ""
	for _, m := range reqs[1].Messages {
		for _, tc := range m.ToolCalls {
			if tc.Function.Name == "update_notes" && callID == "" {
				callID = tc.ID
			}
		}
	}
	refusal := toolContent(t, srv, 1, callID)
	// The arguments' size limit (16 KiB) catches it before the note's own (4,000 bytes a
	// section); either way the model is told the limit it crossed.
	if !strings.Contains(refusal, fmt.Sprintf("at most %d bytes", agent.MaxArgsBytes)) && !strings.Contains(refusal, "4000 bytes") {
		t.Fatalf("the model was told %q about its 300 KB note; want the limit", refusal)
	}
	notes, err := h.sess.Notes()
	if err != nil || strings.Contains(notes.Text, huge[:1000]) || !strings.Contains(notes.Text, "Rich asteroids at B1.") {
		t.Fatalf("notes = %d bytes, %v: the huge note was kept or the short one lost", len(notes.Text), err)
	}
	for i, raw := range srv.RawRequests() {
		t.Logf("request %d: %d bytes", i, len(raw))
		if len(raw) > agent.DefaultPromptBudget {
			t.Errorf("request %d is %d bytes, over the %d budget", i, len(raw), agent.DefaultPromptBudget)
		}
	}
	if got := strings.Join(g.callLog(), "|"); got != `move {"direction":"E"}|move {"direction":"N"}|move {"direction":"W"}` {
		t.Fatalf("play did not go on: game calls %s", got)
	}
}

// The prompt never exceeds Config.PromptBudget, however long the history.
func TestPromptBudgetIsHonoured(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 3000)
	var replies []scripted
	for range 12 {
		// A dig changes the world each time: twelve of them are no loop.
		replies = append(replies, say(long, "dig", `{}`))
	}
	replies = append(replies, say("done"))
	g := &gridGame{}
	b := &scriptBrain{replies: replies}
	h := start(t, g, b, nil, func(c *agent.Config) {
		c.PromptBudget, c.HistorySteps, c.MaxIterations, c.ApproveAll = 12_000, 20, 100, true
	})
	h.next("the end", func(ev agent.Event) bool { return ev.Type == agent.EventText && ev.Text == "done" })
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
	reqs := b.requests()
	if len(reqs) < 13 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, req := range reqs {
		if n := chars(req.Messages); n > 12_000 {
			t.Errorf("request %d has %d characters, over the budget of 12000", i, n)
		}
	}
	// The window may have folded to fit, but the world is still there whole, at the
	// step that opens the window, and the last message is this step's.
	last := reqs[len(reqs)-1].Messages
	if !strings.Contains(allText(reqs[len(reqs)-1]), "## World\n\nAt (0,0) with ") {
		t.Errorf("the world was dropped to fit the budget:\n%s", allText(reqs[len(reqs)-1]))
	}
	if !strings.HasPrefix(last[len(last)-1].Content, "# Step 13") {
		t.Errorf("the last message is not this step's input: %q", last[len(last)-1].Content)
	}
}

func chars(msgs []agent.Message) int {
	n := 0
	for _, m := range msgs {
		n += len([]rune(m.Content))
		for _, c := range m.ToolCalls {
			n += len([]rune(c.Tool)) + len([]rune(string(c.Args)))
		}
	}
	return n
}
