package arena

import (
	"fmt"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/game"
)

// A purchase with max_price is refused once the price has moved above it, and changes
// nothing.
func TestBuyRefusedWhenPriceMovedAboveMax(t *testing.T) {
	g, clk := newTest(t, 4)
	seen := g.View().Prices["bread"]
	for i := 0; i < 100 && g.View().Prices["bread"] <= seen; i++ {
		advance(g, clk, marketPeriod)
	}
	now := g.View().Prices["bread"]
	if now <= seen {
		t.Fatalf("bread never rose above %d", seen)
	}
	before := save(t, g)
	a := map[string]any{"item": "bread", "quantity": 1, "max_price": seen}
	sim := simulate(t, g, ToolBuy, a)
	res := call(t, g, ToolBuy, a)
	want := fmt.Sprintf("price changed: bread is now %d gold, above your max_price %d", now, seen)
	if res.Err == nil || res.Err.Code != CodePriceChanged || res.Err.Message != want {
		t.Fatalf("buy at max_price %d with bread at %d: %+v", seen, now, res)
	}
	if !sim.Fails || !strings.Contains(sim.Summary, want) || sim.Effects != nil {
		t.Fatalf("the dry run did not predict the refusal: %+v", sim)
	}
	if string(before) != string(save(t, g)) {
		t.Fatal("a refused purchase changed the world")
	}
	if res := call(t, g, ToolBuy, map[string]any{"item": "bread", "quantity": 1, "max_price": now}); !res.OK() {
		t.Fatalf("buying at the current price: %v", res.Err)
	}
}

// What the game refuses, it says plainly, with what to do.
func TestRefusalsSayWhatAndWhy(t *testing.T) {
	g, clk := newTest(t, 1)
	for {
		if v := g.View(); len(v.Battles) > 0 {
			break
		}
		advance(g, clk, 1)
	}
	id := g.View().Battles[0].ID
	inspect(g, func(w *world) { w.s.Agent.Gold, w.s.Agent.Energy = 5, 12 })
	cases := []struct {
		tool string
		args any
		code int
		want string
	}{
		{ToolMember, map[string]any{"name": "Mra"}, CodeUnknown, `unknown member "Mra": did you mean "Mara"?`},
		{ToolSendMessage, map[string]any{"to": "Mra", "text": "hi"}, CodeUnknown, `did you mean "Mara"?`},
		{ToolSendMessage, map[string]any{"to": "Mara", "text": "  "}, CodeBadRequest, "the message is empty"},
		{ToolSendMessage, map[string]any{"to": "Mara", "text": strings.Repeat("a", 300)}, CodeBadRequest, "300 characters long; at most 280"},
		{ToolSendMessage, map[string]any{"to": "Mara", "text": "hi", "reply_to": 9999}, CodeUnknown, "no message #9999"},
		{ToolBuy, map[string]any{"item": "stew", "quantity": 2}, CodeNoGold, "not enough gold: 2 stew cost"},
		{ToolBuy, map[string]any{"item": "apple", "quantity": 99}, CodeNotEnough, "in stock"},
		{ToolSell, map[string]any{"item": "iron", "quantity": 1}, CodeNotEnough, "you hold 0 iron, not 1"},
		{ToolConsume, map[string]any{"item": "stew"}, CodeNotEnough, "you hold 0 stew, not 1: buy some"},
		{ToolWork, map[string]any{"job": "forge", "shifts": 1}, CodeNotEnough, "not enough energy: 1 forge shift(s) take 25, you have 12"},
		{ToolJoinBattle, map[string]any{"battle": id, "energy": 50, "side": g.View().Battles[0].Sides[0]}, CodeNotEnough, "not enough energy: you have 12, asked to commit 50"},
		{ToolJoinBattle, map[string]any{"battle": "battle-1", "energy": 5}, CodeUnknown, `no battle "battle-1"`},
		{ToolJoinCommunity, map[string]any{"community": "Tide"}, CodeConflict, "leave_community first"},
	}
	for _, c := range cases {
		if c.tool != ToolMember {
			if sim := simulate(t, g, c.tool, c.args); !sim.Fails {
				t.Errorf("%s %v: the dry run predicted success: %+v", c.tool, c.args, sim)
			}
		}
		res := call(t, g, c.tool, c.args)
		if res.Err == nil || res.Err.Code != c.code || !strings.Contains(res.Err.Message, c.want) {
			t.Errorf("%s %v: got %+v, want code %d and %q", c.tool, c.args, res.Err, c.code, c.want)
		}
	}
	// Once the battle started, it cannot be joined.
	for !g.View().Battles[0].Over && g.View().Now.Before(g.View().Battles[0].Start) {
		advance(g, clk, 1)
	}
	inspect(g, func(w *world) { w.s.Agent.Energy = 50 })
	res := call(t, g, ToolJoinBattle, map[string]any{"battle": id, "energy": 10, "side": g.View().Battles[0].Sides[0]})
	if res.Err == nil || res.Err.Code != CodeConflict || !strings.Contains(res.Err.Message, id+" already started at") {
		t.Errorf("joining a started battle: %+v", res.Err)
	}
}

// Every Act tool's dry run predicts exactly what the call then does at the same game
// time: failure or success, and the gold and energy afterwards.
func TestDryRunsMatchOutcomes(t *testing.T) {
	g, clk := newTest(t, 5)
	calls := func() []struct {
		tool string
		args any
	} {
		v := g.View()
		out := []struct {
			tool string
			args any
		}{
			{ToolBuy, map[string]any{"item": "bread", "quantity": 2}},
			{ToolBuy, map[string]any{"item": "stew", "quantity": 3, "max_price": v.Prices["stew"]}},
			{ToolSell, map[string]any{"item": "bread", "quantity": 1}},
			{ToolConsume, map[string]any{"item": "bread"}},
			{ToolWork, map[string]any{"job": "farm", "shifts": 1}},
			{ToolWork, map[string]any{"job": "forge", "shifts": 4}},
			{ToolSendMessage, map[string]any{"to": "channel", "text": "hello all"}},
			{ToolLeaveCommunity, map[string]any{}},
			{ToolJoinCommunity, map[string]any{"community": "Thorn"}},
		}
		for _, b := range v.Battles {
			if !b.Over {
				out = append(out, struct {
					tool string
					args any
				}{ToolJoinBattle, map[string]any{"battle": b.ID, "energy": 15, "side": b.Sides[1]}})
			}
		}
		return out
	}
	checked := map[string]bool{}
	for m := 0; m < 90; m++ {
		advance(g, clk, 1)
		for i, c := range calls() {
			if (m+i)%5 != 0 {
				continue
			}
			sim := simulate(t, g, c.tool, c.args)
			res := call(t, g, c.tool, c.args)
			if sim.Fails != (res.Err != nil) {
				t.Fatalf("minute %d %s %v: dry run %+v, call %+v", m, c.tool, c.args, sim, res)
			}
			checked[c.tool] = true
			if res.Err != nil {
				continue
			}
			a := g.View().Agent
			if want, ok := sim.Effects[EffectGoldAfter]; ok && c.tool != ToolWork && float64(a.Gold) != want {
				t.Fatalf("%s %v: predicted gold %v, got %d", c.tool, c.args, want, a.Gold)
			}
			if want, ok := sim.Effects[EffectEnergyAfter]; ok && float64(a.Energy) != want {
				t.Fatalf("%s %v: predicted energy %v, got %d", c.tool, c.args, want, a.Energy)
			}
		}
	}
	for _, tl := range g.Tools() {
		if tl.Kind == game.Act && !checked[tl.Name] {
			t.Errorf("%s was never tried", tl.Name)
		}
	}
}

// Work pays what its dry run said when it ends, with a schedule trigger.
func TestWorkPaysWhenItEnds(t *testing.T) {
	g, clk := newTest(t, 6)
	gold := g.View().Agent.Gold
	sim := simulate(t, g, ToolWork, map[string]any{"job": "courier", "shifts": 2})
	if res := call(t, g, ToolWork, map[string]any{"job": "courier", "shifts": 2}); !res.OK() {
		t.Fatal(res.Err)
	}
	drain(g)
	advance(g, clk, 20)
	v := g.View()
	if v.Agent.Working || float64(v.Agent.Gold) < float64(gold)+sim.Effects[EffectIncome] {
		t.Fatalf("after two courier shifts: working %v, gold %d (was %d, predicted +%v)", v.Agent.Working, v.Agent.Gold, gold, sim.Effects[EffectIncome])
	}
	found := false
	for _, tr := range drain(g) {
		if tr.Type == "schedule" && tr.Subject == "work" && strings.Contains(tr.Text, "+14 gold") {
			found = true
		}
	}
	if !found {
		t.Fatal("no schedule trigger when the work ended")
	}
}

// Answering a member raises their trust, and they answer back.
func TestRepliesMoveTrustAndAreAnswered(t *testing.T) {
	g, clk := newTest(t, 1)
	var msg MessageView
	for msg.ID == 0 {
		advance(g, clk, 1)
		for _, m := range g.View().Messages {
			if m.To == AgentName && !m.Answered {
				msg = m
				break
			}
		}
	}
	before, _ := g.View().Member(msg.From)
	res := call(t, g, ToolSendMessage, map[string]any{"to": msg.From, "text": "good to hear from you", "reply_to": msg.ID})
	if !res.OK() {
		t.Fatal(res.Err)
	}
	after, _ := g.View().Member(msg.From)
	if after.Trust <= before.Trust {
		t.Fatalf("answering %s left trust at %d (was %d)", msg.From, after.Trust, before.Trust)
	}
	advance(g, clk, 4)
	for _, m := range g.View().Messages {
		if m.From == msg.From && m.To == AgentName && m.ReplyTo > msg.ID {
			return
		}
	}
	t.Fatalf("%s did not answer", msg.From)
}
