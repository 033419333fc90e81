package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game/spacetraders"
	"github.com/coplayhq/coplay/game/universe"
)

// docker is a zero-latency brain for the offline universe: each step it looks at the
// game and docks or orbits the command ship in turn, and writes notes now and then.
type docker struct {
	mu   sync.Mutex
	n    int
	busy time.Duration
}

func (d *docker) Name() string { return "docker" }

func (d *docker) Next(_ context.Context, _ agent.Request) (agent.Reply, error) {
	t0 := time.Now()
	d.mu.Lock()
	defer func() { d.busy += time.Since(t0); d.mu.Unlock() }()
	d.n++
	act := []string{"orbit_ship", "dock_ship"}[d.n%2]
	calls := []agent.ToolCall{
		{Tool: "observe_game", Args: json.RawMessage(`{}`)},
		{Tool: act, Args: json.RawMessage(`{"shipSymbol":"COPLAY-1"}`)},
	}
	if d.n%10 == 0 {
		calls = append(calls, agent.ToolCall{Tool: "update_notes", Args: json.RawMessage(
			fmt.Sprintf(`{"section":"Situation","text":"Step %d: exercising the harness."}`, d.n))})
	}
	return agent.Reply{Text: fmt.Sprintf("Step %d: %s.", d.n, act), Calls: calls}, nil
}

// BenchmarkStepsUniverse plays 1,000 steps per iteration with a zero-latency brain
// against the in-process offline universe over loopback HTTP (rate limit off), every
// call approved, the journal on a real bbolt file.
func BenchmarkStepsUniverse(b *testing.B) {
	const steps = 1000
	var sizes map[int]int
	var total, brain time.Duration
	var commits uint64
	for b.Loop() {
		off, err := spacetraders.StartOffline(universe.Config{Seed: 1}, nil, "")
		if err != nil {
			b.Fatal(err)
		}
		d := &docker{}
		var took time.Duration
		var c uint64
		sizes, took, c = runStepsCommits(b, off.Game, d, steps)
		total += took
		commits += c
		brain += d.busy
		off.Close()
	}
	reportSteps(b, steps, total, brain, sizes)
	b.ReportMetric(float64(commits)/float64(b.N*steps), "commits/step")
}
