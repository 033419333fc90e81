package cli

// The arena's five scenarios (issue #23), each played headless from its starting
// situation (--scenario) by a scripted model over the OpenAI wire format on loopback
// (testdata/cassettes/arena-NAME.cassette.json), asserting what the agent did (the
// events), what the model was told (the requests the scripted server recorded) and the
// world afterwards (the arena's state saved in the notebook, restored on a clock that
// does not move).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/llmtest"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/arena"
	"github.com/coplayhq/coplay/notes"
)

// arenaPlay is one scenario played to its step limit.
type arenaPlay struct {
	events  []agent.Event
	inputs  []string    // each model request's last message: the step's input
	prompts []string    // each model request's messages, all of them
	world   *arena.Game // the world as saved when the run ended; its clock does not move
	plan    []notes.PlanStep
}

// playArena plays scenario with its cassette, headless, with --approve approve and
// --steps steps, after the commands in stdin (which stays open: nobody else speaks). The
// model is served by a test-owned llmtest server (the brain is --model against it), so
// that its requests can be read, unless viaScript: then --brain script:FILE serves it,
// as a person would type it, and inputs is empty.
func playArena(t *testing.T, scenario, approve string, steps int, commands string, viaScript bool, extra ...string) arenaPlay {
	t.Helper()
	cassette := "../testdata/cassettes/arena-" + scenario + ".cassette.json"
	env := []string{"XDG_CONFIG_HOME=" + t.TempDir()}
	brain := []string{"--brain", "script:" + cassette}
	var srv *llmtest.Server
	if !viaScript {
		c, err := llmtest.Load(cassette)
		if err != nil {
			t.Fatal(err)
		}
		srv = llmtest.NewServer(c)
		defer srv.Close()
		env = append(env, "OPENAI_BASE_URL="+srv.URL(), "OPENAI_API_KEY=sk-test-arena-0000")
		brain = []string{"--model", "scripted"}
	}
	data := filepath.Join(t.TempDir(), "n.db")
	args := append([]string{"--game", "arena", "--scenario", scenario, "--approve", approve,
		"--steps", itoa(steps), "--data", data}, brain...)
	out := headlessOpen(t, append(args, extra...), env, commands)
	p := arenaPlay{events: decodeEvents(t, out)}
	if srv != nil {
		for _, r := range srv.Requests() {
			var all []string
			for _, m := range r.Messages {
				all = append(all, m.Content)
			}
			p.inputs = append(p.inputs, all[len(all)-1])
			p.prompts = append(p.prompts, strings.Join(all, "\n"))
		}
	}
	p.world, p.plan = savedArena(t, data)
	return p
}

// savedArena opens the notebook read-only and restores the session's saved arena on a
// clock that never moves, with the session's plan.
func savedArena(t *testing.T, path string) (*arena.Game, []notes.PlanStep) {
	t.Helper()
	book, err := notes.OpenReadOnly(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer book.Close()
	s, err := book.Session("")
	if err != nil {
		t.Fatal(err)
	}
	state, err := s.State()
	if err != nil || len(state) == 0 {
		t.Fatalf("the session saved no world (%v)", err)
	}
	plan, err := s.Plan()
	if err != nil {
		t.Fatal(err)
	}
	g, err := arena.New(arena.Config{State: state, Clock: arena.NewFakeClock(time.Now()), Poll: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g, plan
}

// results returns the tool_result events, in order.
func (p arenaPlay) results() []agent.Event {
	var out []agent.Event
	for _, ev := range p.events {
		if ev.Type == agent.EventResult && ev.Call != nil && ev.Result != nil {
			out = append(out, ev)
		}
	}
	return out
}

// gameCalls lists the game's tools that ran, in order ("buy!412" for a refusal with
// code 412): the notebook's tools left out.
func (p arenaPlay) gameCalls() []string {
	var out []string
	for _, ev := range p.results() {
		if ev.Call.Kind == game.Note {
			continue
		}
		name := ev.Call.Tool
		if ev.Result.Err != nil {
			name += "!" + itoa(ev.Result.Err.Code)
		}
		out = append(out, name)
	}
	return out
}

// result returns the n-th (from 0) result of tool, or fails.
func (p arenaPlay) result(t *testing.T, tool string, n int) agent.Event {
	t.Helper()
	for _, ev := range p.results() {
		if ev.Call.Tool == tool {
			if n == 0 {
				return ev
			}
			n--
		}
	}
	t.Fatalf("no result %d of %s in %v", n, tool, p.gameCalls())
	return agent.Event{}
}

// look calls a Read tool on the saved world.
func (p arenaPlay) look(t *testing.T, tool string, args string) string {
	t.Helper()
	res, err := p.world.Call(context.Background(), tool, json.RawMessage(args))
	if err != nil || res.Err != nil {
		t.Fatalf("%s %s: %v %v", tool, args, err, res.Err)
	}
	return res.Output
}

// message returns the world's message from from that replies to id, or fails.
func (p arenaPlay) reply(t *testing.T, from string, to int) arena.MessageView {
	t.Helper()
	msgs := p.world.View().Messages
	if i := slices.IndexFunc(msgs, func(m arena.MessageView) bool { return m.From == from && m.ReplyTo == to }); i >= 0 {
		return msgs[i]
	}
	t.Fatalf("no message from %s replying to #%d in %+v", from, to, msgs)
	return arena.MessageView{}
}

// trust returns a member's trust in the agent.
func trust(v arena.View, name string) int {
	for _, m := range v.Members {
		if m.Name == name {
			return m.Trust
		}
	}
	return -1000
}

// (1) hello, played with --brain script: as a person types it: Oren says hi; the reply
// is a send_message answering #1 and nothing else happens; the world holds the reply,
// Oren trusts Kestrel 2 more, and nothing else changed.
func TestArenaScenarioHello(t *testing.T) {
	t.Parallel()
	p := playArena(t, "hello", "all", 2, "", true)
	if got := p.gameCalls(); !slices.Equal(got, []string{"send_message"}) {
		t.Fatalf("calls %v, want one send_message", got)
	}
	v := p.world.View()
	r := p.reply(t, arena.AgentName, 1)
	if r.To != "Oren" || !strings.Contains(r.Text, "Hi Oren") {
		t.Fatalf("the reply: %+v", r)
	}
	if trust(v, "Oren") != 12 || v.Agent.Gold != 40 || v.Agent.Inventory["bread"] != 2 || len(v.Battles) != 0 {
		t.Fatalf("Oren's trust %d, agent %+v, battles %d", trust(v, "Oren"), v.Agent, len(v.Battles))
	}
}

// (2) bad-history: Vesna asks for help; the model reads her shared history (the member
// tool, whose result names battle-38) before it answers, and its next request carries
// that history; the answer is in time: the request is settled and Vesna's trust rises
// by 5 from -25.
func TestArenaScenarioBadHistory(t *testing.T) {
	t.Parallel()
	p := playArena(t, "bad-history", "all", 2, "", false)
	if got := p.gameCalls(); !slices.Equal(got, []string{"member", "send_message"}) {
		t.Fatalf("calls %v, want member, then send_message", got)
	}
	if !strings.Contains(p.inputs[0], "Vesna → you: Kestrel, I'm out of food") {
		t.Fatalf("the first input does not show Vesna's call for help:\n%s", p.inputs[0])
	}
	hist := p.result(t, "member", 0).Result.Output
	if !strings.Contains(hist, "fled battle-38") || !strings.Contains(p.prompts[1], "fled battle-38") {
		t.Fatalf("the history read (%q) is not what the model was told next:\n%s", hist, p.inputs[1])
	}
	p.reply(t, arena.AgentName, 1)
	if v := p.world.View(); trust(v, "Vesna") != -20 {
		t.Fatalf("Vesna's trust %d, want -25 + 5", trust(v, "Vesna"))
	}
	if got := p.look(t, arena.ToolMember, `{"name":"Vesna"}`); !strings.Contains(got, "you answered when I asked for help") {
		t.Fatalf("Vesna does not remember the answer:\n%s", got)
	}
}

// index returns the position in the events of the first event that matches, or -1.
func (p arenaPlay) index(match func(agent.Event) bool) int {
	return slices.IndexFunc(p.events, match)
}

// resultAt returns the position of the n-th (from 0) result of tool.
func (p arenaPlay) resultAt(tool string, n int) int {
	for i, ev := range p.events {
		if ev.Type == agent.EventResult && ev.Call != nil && ev.Call.Tool == tool {
			if n == 0 {
				return i
			}
			n--
		}
	}
	return -1
}

// battle returns the saved world's battle id, or fails.
func (p arenaPlay) battle(t *testing.T, id string) arena.BattleView {
	t.Helper()
	for _, b := range p.world.View().Battles {
		if b.ID == id {
			return b
		}
	}
	t.Fatalf("no %s in the world", id)
	return arena.BattleView{}
}

// energyIn reads "Energy N" from a tool's output.
func energyIn(t *testing.T, out string) int {
	t.Helper()
	var n int
	i := strings.LastIndex(out, "Energy ")
	if i < 0 {
		t.Fatalf("no energy in %q", out)
	}
	if _, err := fmt.Sscanf(out[i:], "Energy %d", &n); err != nil {
		t.Fatalf("energy in %q: %v", out, err)
	}
	return n
}

// (3) no-food: called to battle-456 with 30 energy, no food and no gold, the agent
// works, waits for the pay (the end of the shift wakes it), buys bread at the price it
// saw (refused: the price changed), buys again at the new one, eats, joins and reports
// to Mara, across five steps. The world: in battle-456 for Ember with 20 energy,
// reported, the 7 gold earned spent, the bread eaten, Mara's trust +5, the plan done.
func TestArenaScenarioNoFood(t *testing.T) {
	t.Parallel()
	p := playArena(t, "no-food", "all", 5, "", false, "--speed", "300")
	want := []string{"market", "work", "buy!412", "buy", "consume", "join_battle", "send_message"}
	if got := p.gameCalls(); !slices.Equal(got, want) {
		t.Fatalf("calls %v, want %v", got, want)
	}
	if m := p.result(t, "market", 0).Result.Output; !strings.Contains(m, "bread   6 gold") {
		t.Fatalf("the market the model read:\n%s", m)
	}
	refused := p.result(t, "buy", 0)
	if msg := refused.Result.Err.Message; !strings.Contains(msg, "price changed: bread is now 7 gold, above your max_price 6") {
		t.Fatalf("the first buy: %s", msg)
	}
	paid := p.index(func(ev agent.Event) bool {
		return ev.Type == agent.EventTrigger && ev.Trigger.Type == "schedule" && strings.Contains(ev.Trigger.Text, "courier work over: +7 gold")
	})
	work, buy1, buy2, eat, join, report := p.resultAt("work", 0), p.resultAt("buy", 0), p.resultAt("buy", 1), p.resultAt("consume", 0), p.resultAt("join_battle", 0), p.resultAt("send_message", 0)
	if !(work < paid && paid < buy1 && buy1 < buy2 && buy2 < eat && eat < join && join < report) {
		t.Fatalf("out of order: work %d, paid %d, buy %d, buy %d, eat %d, join %d, report %d", work, paid, buy1, buy2, eat, join, report)
	}
	if s := []int{p.events[work].Step, p.events[buy1].Step, p.events[buy2].Step, p.events[join].Step}; !slices.Equal(s, []int{1, 3, 4, 5}) {
		t.Fatalf("steps of work, buy, buy, join: %v", s)
	}
	v := p.world.View()
	b := p.battle(t, "battle-456")
	if b.Side != "Ember" || b.Energy != 20 || !b.Reported || b.Committed["Ember"] != 25+20+20 {
		t.Fatalf("battle-456: %+v", b)
	}
	fed := energyIn(t, p.events[eat].Result.Output)
	// Below its rest level energy drifts back one point every 4 game minutes (0.8 s at
	// speed 300): a slow machine (the race detector) sees a few of those before the run ends.
	if v.Agent.Gold != 0 || v.Agent.Inventory["bread"] != 0 || v.Agent.Energy > fed-20+3 || v.Agent.Energy < fed-21 {
		t.Fatalf("agent %+v after eating up to %d energy and committing 20", v.Agent, fed)
	}
	if trust(v, "Mara") != 15 {
		t.Fatalf("Mara's trust %d, want 10 + 2 (answered) + 3 (reported)", trust(v, "Mara"))
	}
	if len(p.plan) != 5 || slices.ContainsFunc(p.plan, func(s notes.PlanStep) bool { return s.Status != notes.StatusDone }) {
		t.Fatalf("plan: %+v", p.plan)
	}
}

// (4) mid-plan: while the agent rests in the middle of its plan (at 08:05: 3 s at 100×
// to get there), Mara's call to battle-456 wakes it; the next request carries the
// trigger and still the earlier context (Oren's request, the plan); the plan is set
// again with the battle in it and Oren's steps kept; the agent joins and reports. The
// world: two apples for Oren, in battle-456 with 30 energy, reported to Mara, Oren not
// answered yet.
func TestArenaScenarioMidPlan(t *testing.T) {
	t.Parallel()
	p := playArena(t, "mid-plan", "all", 4, "", false, "--speed", "100")
	if got := p.gameCalls(); !slices.Equal(got, []string{"buy", "join_battle", "send_message"}) {
		t.Fatalf("calls %v", got)
	}
	call := p.index(func(ev agent.Event) bool {
		return ev.Type == agent.EventTrigger && ev.Trigger.Type == "battle.announced" && ev.Trigger.Subject == "battle-456"
	})
	plan, replan := p.resultAt("set_plan", 0), p.resultAt("set_plan", 1)
	if !(plan >= 0 && plan < call && call < replan && replan < p.resultAt("join_battle", 0)) || p.events[replan].Step != 3 {
		t.Fatalf("the plan %d, the call %d, the new plan %d (step %d)", plan, call, replan, p.events[replan].Step)
	}
	if len(p.inputs) != 4 || !strings.Contains(p.inputs[2], "Trigger: battle.announced battle-456 — Mara: Everyone fight in battle-456!") {
		t.Fatalf("inputs %d; the third:\n%s", len(p.inputs), p.inputs[len(p.inputs)-1])
	}
	for _, kept := range []string{"could you buy me two apples", "Oren wants two apples", "Buy 2 apples for Oren"} {
		if !strings.Contains(p.prompts[2], kept) {
			t.Errorf("the request after the trigger lost %q", kept)
		}
	}
	var texts, statuses []string
	for _, s := range p.plan {
		texts, statuses = append(texts, s.Text), append(statuses, string(s.Status))
	}
	if !slices.Equal(texts, []string{"Buy 2 apples for Oren", "Join battle-456 for Mara (by 08:25)", "Report to Mara", "Give Oren his apples"}) ||
		!slices.Equal(statuses, []string{"done", "done", "done", "todo"}) {
		t.Fatalf("plan %q %q", texts, statuses)
	}
	v := p.world.View()
	if b := p.battle(t, "battle-456"); b.Side != "Ember" || b.Energy != 30 || !b.Reported || v.Agent.Inventory["apple"] != 2 {
		t.Fatalf("battle %+v, agent %+v", b, v.Agent)
	}
	p.reply(t, arena.AgentName, 2)
	if v.Messages[0].From != "Oren" || v.Messages[0].Answered {
		t.Fatalf("Oren's request: %+v", v.Messages[0])
	}
}

// (5) battle-starts, with --approve ask and rules sent first (join_battle while it
// leaves 20 energy, send_message): the model answers in prose and the agent goes idle
// (the battle starts at 08:04: 4 s at 60× for that one step); battle.started wakes it
// with no command; the next request ends with the trigger; the model reads its energy
// and Mara's loyalty, joins by rule and reports. The world: in battle-456 (already under
// way) for Ember with 30 energy, reported.
func TestArenaScenarioBattleStarts(t *testing.T) {
	t.Parallel()
	rules := `{"cmd":"rule","rule":"allow join_battle if energy_after >= 20"}` + "\n" + `{"cmd":"allow","tool":"send_message","allow":true}` + "\n"
	p := playArena(t, "battle-starts", "ask", 3, rules, false, "--speed", "60")
	idle := p.index(func(ev agent.Event) bool { return ev.Type == agent.EventState && ev.State == agent.Idle })
	woke := p.index(func(ev agent.Event) bool { return ev.Type == agent.EventTrigger && ev.Trigger.Type == "battle.started" })
	step2 := p.index(func(ev agent.Event) bool { return ev.Type == agent.EventStep && ev.Step == 2 })
	if !(idle >= 0 && idle < woke && woke < step2) || p.events[idle].Step != 1 {
		t.Fatalf("idle %d, trigger %d, step 2 %d", idle, woke, step2)
	}
	for _, ev := range p.events[idle:step2] {
		if ev.Type == agent.EventAdvice || ev.Type == agent.EventKeepPlaying {
			t.Fatalf("something other than the trigger woke the agent: %s %s", ev.Type, ev.Text)
		}
	}
	if strings.Contains(p.inputs[0], "Trigger:") || !strings.Contains(p.inputs[1], "Trigger: battle.started battle-456 — battle-456 has begun") {
		t.Fatalf("inputs:\n%s\n---\n%s", p.inputs[0], p.inputs[1])
	}
	if got := p.gameCalls(); !slices.Equal(got, []string{"status", "member", "join_battle", "send_message"}) {
		t.Fatalf("calls %v", got)
	}
	if m := p.result(t, "member", 0).Result.Output; !strings.Contains(m, "loyalty 85") {
		t.Fatalf("the member tool: %s", m)
	}
	joinID := p.result(t, "join_battle", 0).Call.ID
	if i := p.index(func(ev agent.Event) bool {
		return ev.Type == agent.EventDecision && ev.Decision.CallID == joinID && ev.Decision.By == "rule" &&
			strings.Contains(ev.Decision.Rule, "energy_after >= 20")
	}); i < 0 {
		t.Fatal("join_battle was not decided by the rule on energy")
	}
	v := p.world.View()
	b := p.battle(t, "battle-456")
	if b.Side != "Ember" || b.Energy != 30 || !b.Reported || v.Agent.Energy > 30 || v.Agent.Energy < 29 {
		t.Fatalf("battle %+v, energy %d", b, v.Agent.Energy)
	}
}

// --scenario is the arena's: refused for another game, and an unknown one is refused
// with the closest name, both before a session is created.
func TestArenaScenarioFlagIsTheArenas(t *testing.T) {
	t.Parallel()
	env := []string{"XDG_CONFIG_HOME=" + t.TempDir()}
	for _, c := range []struct{ args, want string }{
		{"--game universe --scenario hello", "--scenario is for --game arena, not --game universe"},
		{"--game arena --scenario no-fod", `--scenario must be one of hello, bad-history, no-food, mid-plan, battle-starts, not "no-fod": did you mean "no-food"?`},
	} {
		var out, errOut bytes.Buffer
		data := filepath.Join(t.TempDir(), "n.db")
		args := append([]string{"run", "--headless", "--brain", "autopilot", "--data", data}, strings.Fields(c.args)...)
		if code := runEnv(t, env, args, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", c.args, code, errOut.String(), c.want)
		}
		if _, err := os.Stat(data); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: a notebook was made (%v)", c.args, err)
		}
	}
}
