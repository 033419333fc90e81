package agent_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

// heldGame is the grid game with a gate: the observation and the call it is told to
// hold signal that they began and wait until the test lets them go.
type heldGame struct {
	*gridGame
	mu       sync.Mutex
	observes int
	holdObs  int    // hold the observation with this number (1 = the first); 0 = none
	holdCall string // hold the first call of this tool; "" = none
	entered  chan string
	release  chan struct{}
}

func newHeldGame() *heldGame {
	return &heldGame{gridGame: &gridGame{now: time.Now}, entered: make(chan string, 1), release: make(chan struct{})}
}

func (g *heldGame) Observe(ctx context.Context) (game.Observation, error) {
	g.mu.Lock()
	g.observes++
	hold := g.observes == g.holdObs
	g.mu.Unlock()
	if hold {
		g.entered <- "observe"
		<-g.release
	}
	return g.gridGame.Observe(ctx)
}

func (g *heldGame) Call(ctx context.Context, name string, args json.RawMessage) (game.Result, error) {
	g.mu.Lock()
	hold := name == g.holdCall
	if hold {
		g.holdCall = ""
	}
	g.mu.Unlock()
	if hold {
		g.entered <- name
		<-g.release
	}
	return g.gridGame.Call(ctx, name, args)
}

// TestPauseAtTheNextStepBoundary sends a pause at each point a person may press it: while
// the world is observed (before the step's model call), while the model answers, while a
// call runs, and while the agent waits between steps. Play stops at the next step
// boundary each time: paused, with no proposal of the next step and no model call for
// it until the person resumes.
func TestPauseAtTheNextStepBoundary(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		// set holds the point; reached waits until the runner is there.
		set     func(g *heldGame, b *scriptBrain, held chan struct{})
		reached func(h *harness, g *heldGame, held chan struct{})
		// asked is how many model calls were made when play pauses.
		asked int
	}{
		{"while observing", func(g *heldGame, _ *scriptBrain, _ chan struct{}) { g.holdObs = 1 },
			func(_ *harness, g *heldGame, _ chan struct{}) { <-g.entered }, 0},
		{"while the model answers", func(_ *heldGame, b *scriptBrain, held chan struct{}) {
			b.hold = func(i int) {
				if i == 0 {
					held <- struct{}{}
					<-held
				}
			}
		}, func(_ *harness, _ *heldGame, held chan struct{}) { <-held }, 1},
		{"while a call runs", func(g *heldGame, _ *scriptBrain, _ chan struct{}) { g.holdCall = "look" },
			func(_ *harness, g *heldGame, _ chan struct{}) { <-g.entered }, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := newHeldGame()
			b := &scriptBrain{replies: []scripted{say("", "look", `{}`), say("", "move", `{"direction":"N"}`)}}
			held := make(chan struct{})
			tc.set(g, b, held)
			h := startGame(t, g, b, nil, nil)
			tc.reached(h, g, held)
			h.send(agent.Command{Cmd: agent.CmdPause})
			if tc.name == "while the model answers" {
				held <- struct{}{}
			} else {
				close(g.release)
			}
			h.next("paused", func(ev agent.Event) bool {
				if ev.Type == agent.EventProposed && ev.Call.Tool == "move" {
					t.Fatalf("the next step proposed %s after the pause; seen: %s", ev.Call.Tool, h.trail())
				}
				return ev.Type == agent.EventState && ev.State == agent.Paused
			})
			if n := len(b.requests()); n != tc.asked {
				t.Fatalf("the model was asked %d times before play paused, want %d", n, tc.asked)
			}
			h.send(agent.Command{Cmd: agent.CmdResume})
			h.proposed("move")
			if err := h.finish(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestPauseWhileWaitingBetweenSteps pauses while the agent waits out a game's
// cooldown between two steps: the pause shows at once, the next step waits for resume.
func TestPauseWhileWaitingBetweenSteps(t *testing.T) {
	t.Parallel()
	g := &gridGame{digWait: time.Hour}
	b := &scriptBrain{replies: []scripted{say("", "dig", `{}`), say("", "move", `{"direction":"N"}`)}}
	h := start(t, g, b, nil, func(c *agent.Config) { c.ApproveAll = true })
	h.next("sleeping", isState(agent.Sleeping))
	h.send(agent.Command{Cmd: agent.CmdPause})
	h.next("paused", func(ev agent.Event) bool {
		if ev.Type == agent.EventProposed && ev.Call.Tool == "move" {
			t.Fatalf("the next step proposed %s after the pause; seen: %s", ev.Call.Tool, h.trail())
		}
		return ev.Type == agent.EventState && ev.State == agent.Paused
	})
	if n := len(b.requests()); n != 1 {
		t.Fatalf("the model was asked %d times before play paused, want 1", n)
	}
	h.send(agent.Command{Cmd: agent.CmdResume})
	h.proposed("move")
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}
