package autopilot

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game/spacetraders"
	"github.com/coplayhq/coplay/game/universe"
	"github.com/coplayhq/coplay/notes"
)

// Advice sent to a running autopilot reaches it in the runner's own step input (not a
// hand-written message): the notes' Advice section holds it and the preference is read.
func TestAdviceThroughTheRunner(t *testing.T) {
	off, err := spacetraders.StartOffline(universe.Config{Seed: 3, Speed: 400}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	defer off.Close()
	book, err := notes.Open(filepath.Join(t.TempDir(), "coplay.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer book.Close()
	sess, err := book.Create("advice", "universe", "autopilot")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b := New(off.Game)
	r, err := agent.New(agent.Config{Game: off.Game, Brain: b, Session: sess, ApproveAll: true, MaxSteps: 6, MaxIterations: 100})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Send(agent.Command{Cmd: agent.CmdAdvise, Text: "don't buy the ore, mine it"}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	var advice string
	for ev := range r.Events() {
		if ev.Type == agent.EventNotes && ev.Notes != nil && strings.Contains(ev.Notes.Text, "don't buy the ore, mine it") {
			advice = ev.Notes.Text
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if advice == "" {
		t.Fatal("the advice never reached the notes: the autopilot did not read the runner's step input")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.mem.preferMine {
		t.Error("the advice was not read as a preference for mining")
	}
}
