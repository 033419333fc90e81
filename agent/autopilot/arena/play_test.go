package arena

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
	arenagame "github.com/coplayhq/coplay/game/arena"
)

// table is a game, its catalogue with stand-ins for the notebook's tools, and the
// conversation so far, as the runner would keep it.
type table struct {
	t     *testing.T
	clk   *arenagame.FakeClock
	g     *arenagame.Game
	reg   *game.Registry
	brain *Brain
	msgs  []agent.Message
	step  int
	calls map[string]int // tool → calls that succeeded
	notes map[string]string
	read  map[string]int // members whose history was read: their bad memories then, plus one
}

const speed = 60 // one wall second is one game minute

func newTable(t *testing.T, seed int64) *table {
	t.Helper()
	clk := arenagame.NewFakeClock(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
	g, err := arenagame.New(arenagame.Config{Seed: seed, Speed: speed, Clock: clk, Poll: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	tb := &table{t: t, clk: clk, g: g, reg: game.NewRegistry(g), brain: New(g), calls: map[string]int{}, notes: map[string]string{}, read: map[string]int{}}
	type notesArgs struct {
		Section string `json:"section,omitempty"`
		Text    string `json:"text"`
	}
	type planArgs struct {
		Steps []string `json:"steps"`
	}
	tb.reg.Add(game.Tool{Name: agent.ToolUpdateNotes, Kind: game.Note, Schema: game.SchemaFor[notesArgs]()},
		func(_ context.Context, raw json.RawMessage) (game.Result, error) {
			var a notesArgs
			if err := json.Unmarshal(raw, &a); err != nil {
				return game.Result{}, err
			}
			tb.notes[a.Section] = a.Text
			return game.Result{Output: "notes updated"}, nil
		})
	tb.reg.Add(game.Tool{Name: agent.ToolSetPlan, Kind: game.Note, Schema: game.SchemaFor[planArgs]()},
		func(context.Context, json.RawMessage) (game.Result, error) {
			return game.Result{Output: "plan set"}, nil
		})
	return tb
}

// play runs one step: the clock moves minutes of game time, the brain answers, and its
// calls run through the catalogue (validated, dry-run, called), as the runner does.
func (tb *table) play(minutes int, advice string) agent.Reply {
	t := tb.t
	t.Helper()
	tb.step++
	tb.clk.Advance(time.Duration(minutes) * time.Minute / speed)
	obs, err := tb.g.Observe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	input := fmt.Sprintf("# Step %d\n\n## World\n\n%s", tb.step, obs.Summary)
	if advice != "" {
		input += "\n\n## Advice from the person\n\n> " + advice + "\n\nFirst fold this advice into your notes."
	}
	tb.msgs = append(tb.msgs, agent.Message{Role: agent.RoleUser, Content: input})
	reply, err := tb.brain.Next(context.Background(), agent.Request{Messages: tb.msgs, Tools: tb.reg.Tools(), Observation: obs})
	if err != nil {
		t.Fatalf("step %d: %v", tb.step, err)
	}
	tb.msgs = append(tb.msgs, agent.Message{Role: agent.RoleAssistant, Content: reply.Text, ToolCalls: reply.Calls})
	for _, c := range reply.Calls {
		tb.msgs = append(tb.msgs, agent.Message{Role: agent.RoleTool, ToolCallID: c.ID, Content: tb.run(c)})
	}
	return reply
}

// run validates, dry-runs and makes one call; the autopilot's calls are all valid and
// none is refused, and every dry run says what the call then does.
func (tb *table) run(c agent.ToolCall) string {
	t := tb.t
	t.Helper()
	v, err := tb.reg.Check(c.Tool, c.Args)
	if err != nil {
		t.Fatalf("step %d: invalid call %s %s: %v", tb.step, c.Tool, c.Args, err)
	}
	tb.checkHistoryRead(c)
	sim, predicted, err := tb.reg.SimulateValidated(context.Background(), v)
	if err != nil {
		t.Fatalf("step %d: dry run of %s: %v", tb.step, c.Tool, err)
	}
	res, err := tb.reg.CallValidated(context.Background(), v)
	if err != nil {
		t.Fatalf("step %d: %s %s: %v", tb.step, c.Tool, c.Args, err)
	}
	if res.Err != nil {
		t.Fatalf("step %d: the game refused %s %s: %v", tb.step, c.Tool, c.Args, res.Err)
	}
	if predicted && sim.Fails {
		t.Fatalf("step %d: %s ran but its dry run said it would fail: %s", tb.step, c.Tool, sim.Summary)
	}
	tb.calls[c.Tool]++
	return res.Output
}

// checkHistoryRead fails the test when the autopilot answers a member with a bad shared
// history without having read it first.
func (tb *table) checkHistoryRead(c agent.ToolCall) {
	var a struct {
		Name    string `json:"name"`
		ReplyTo int    `json:"reply_to"`
	}
	_ = json.Unmarshal(c.Args, &a) // validated already
	switch c.Tool {
	case arenagame.ToolMember:
		who, _ := tb.g.View().Member(a.Name)
		tb.read[a.Name] = who.BadMemories + 1
	case arenagame.ToolSendMessage:
		v := tb.g.View()
		for _, m := range v.Messages {
			if m.ID != a.ReplyTo {
				continue
			}
			if who, ok := v.Member(m.From); ok && who.BadHistory && tb.read[who.Name] <= who.BadMemories {
				tb.t.Fatalf("step %d: answered %s, who has a bad history with it, without reading it", tb.step, who.Name)
			}
		}
	}
}

// The autopilot plays 200 steps of a fast clock (two game minutes a step): it answers
// members, checks histories, fights when called and reports back, keeps its energy up,
// and never makes a call the game refuses.
func TestAutopilotPlays200Steps(t *testing.T) {
	for seed := int64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) { play200(t, seed) })
	}
}

func play200(t *testing.T, seed int64) {
	tb := newTable(t, seed)
	quiet := 0
	for i := 0; i < 200; i++ {
		reply := tb.play(2, "")
		game := 0
		for _, c := range reply.Calls {
			if c.Tool != agent.ToolUpdateNotes && c.Tool != agent.ToolSetPlan {
				game++
			}
		}
		if game == 0 {
			quiet++
			if !strings.Contains(reply.Text, "waiting for") {
				t.Fatalf("step %d: no calls and no word of what it waits for: %q", tb.step, reply.Text)
			}
		}
	}
	v := tb.g.View()
	t.Logf("calls %v; %d quiet steps; gold %d, energy %d, won %d, standing %d", tb.calls, quiet, v.Agent.Gold, v.Agent.Energy, v.Agent.BattlesWon, v.Agent.Standing)
	for _, tool := range []string{arenagame.ToolSendMessage, arenagame.ToolJoinBattle, arenagame.ToolMember, arenagame.ToolWork} {
		if tb.calls[tool] == 0 {
			t.Errorf("never called %s", tool)
		}
	}
	reported := 0
	for _, b := range v.Battles {
		if b.Side != "" && b.Reported {
			reported++
		}
	}
	if reported == 0 {
		t.Error("never reported to the leader after joining")
	}
	if v.Agent.Energy <= 0 {
		t.Errorf("ended exhausted: %+v", v.Agent)
	}
	if tb.notes["Situation"] == "" || tb.notes["Strategy"] == "" {
		t.Errorf("notes not kept: %v", tb.notes)
	}
}

// Advice to stay out of battles is folded into the notes and followed; advice to fight
// again is followed too.
func TestAutopilotFollowsFightAdvice(t *testing.T) {
	tb := newTable(t, 3)
	reply := tb.play(1, "Don't fight for now, save your energy.")
	if !strings.Contains(reply.Text, "stay out of battles") || !strings.Contains(tb.notes["Advice"], "Don't fight for now") {
		t.Fatalf("advice not taken: %q, notes %v", reply.Text, tb.notes)
	}
	for i := 0; i < 60; i++ {
		for _, c := range tb.play(2, "").Calls {
			if c.Tool == arenagame.ToolJoinBattle {
				t.Fatalf("step %d: joined a battle after being told not to fight: %s", tb.step, c.Args)
			}
		}
	}
	tb.play(1, "ok, fight in the battles again")
	for i := 0; i < 60 && tb.calls[arenagame.ToolJoinBattle] == 0; i++ {
		tb.play(2, "")
	}
	if tb.calls[arenagame.ToolJoinBattle] == 0 {
		t.Fatal("did not fight again when told to")
	}
}

func TestPlaysAndFor(t *testing.T) {
	if !Plays("arena") || Plays("universe") {
		t.Fatal("Plays")
	}
	tb := newTable(t, 1)
	if b, ok := For(tb.g); !ok || b == nil {
		t.Fatal("For(arena) is not the arena")
	}
	if _, ok := For(nil); ok {
		t.Fatal("For(nil) is the arena")
	}
}
