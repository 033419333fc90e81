package arena

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/game"
)

// newScenario starts a scenario on a fake clock, with no goroutine.
func newScenario(t *testing.T, name string, seed int64) (*Game, *FakeClock) {
	t.Helper()
	clk := NewFakeClock(wallStart)
	g, err := New(Config{Seed: seed, Speed: testSpeed, Clock: clk, Poll: -1, Scenario: name})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	return g, clk
}

// Every scenario builds the same world each time, whatever the seed's shuffle: Kestrel
// in Ember under Mara, the scenario's energy and gold; the same minutes give the same
// world, and a world saved mid-scenario goes on exactly as the one that was not saved.
func TestScenariosAreDeterministic(t *testing.T) {
	for _, name := range ScenarioNames() {
		t.Run(name, func(t *testing.T) {
			a, ca := newScenario(t, name, 7)
			b, cb := newScenario(t, name, 7)
			if !bytes.Equal(save(t, a), save(t, b)) {
				t.Fatal("two starts of the scenario differ")
			}
			other, _ := newScenario(t, name, 99)
			v, o := a.View(), other.View()
			sc, _ := scenarioNamed(name)
			if v.Agent.Community != "Ember" || v.Agent.Leader != "Mara" || v.Agent.Energy != sc.energy || v.Agent.Gold != sc.gold {
				t.Fatalf("agent %+v, want Ember under Mara with energy %d and gold %d", v.Agent, sc.energy, sc.gold)
			}
			if !sameMessages(v.Messages, o.Messages) || len(v.Battles) != len(o.Battles) {
				t.Fatal("the starting situation depends on the seed")
			}
			for m := 0; m < 20; m++ {
				advance(a, ca, 1)
				advance(b, cb, 1)
			}
			mid := save(t, a)
			if !bytes.Equal(mid, save(t, b)) {
				t.Fatal("the same minutes gave different worlds")
			}
			r, err := New(Config{State: mid, Speed: testSpeed, Clock: NewFakeClock(wallStart), Poll: -1})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			rc := r.clk.clock.(*FakeClock)
			for m := 0; m < 50; m++ {
				advance(a, ca, 1)
				advance(r, rc, 1)
			}
			if !bytes.Equal(save(t, a), save(t, r)) {
				t.Fatal("the restored scenario went on differently")
			}
		})
	}
}

func sameMessages(a, b []MessageView) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].From != b[i].From || a[i].Text != b[i].Text {
			return false
		}
	}
	return true
}

// During its quiet time a scenario's world sends only its own triggers: hello's none at
// all, and no member writes unless answered.
func TestScenarioQuietTime(t *testing.T) {
	g, clk := newScenario(t, "hello", 1)
	v := g.View()
	if len(v.Messages) != 1 || v.Messages[0].ID != 1 || v.Messages[0].From != "Oren" || !v.Messages[0].Mentions || v.Messages[0].Read {
		t.Fatalf("messages at the start: %+v", v.Messages)
	}
	if got := drain(g); len(got) != 0 {
		t.Fatalf("the starting situation sent triggers: %v", got)
	}
	for m := 0; m < 40; m++ {
		advance(g, clk, 1)
	}
	if got := drain(g); len(got) != 0 || len(g.View().Messages) != 1 {
		t.Fatalf("a quiet world sent %v", got)
	}
	call(t, g, ToolSendMessage, map[string]any{"to": "Oren", "text": "hi Oren", "reply_to": 1})
	for m := 0; m < 19; m++ { // to 08:59
		advance(g, clk, 1)
	}
	if got := drain(g); len(got) != 1 || got[0].Type != "message.received" || got[0].Subject != "Oren" {
		t.Fatalf("Oren's answer: %v", got)
	}
	for m := 0; m < 20; m++ {
		advance(g, clk, 1)
	}
	if len(drain(g)) == 0 {
		t.Fatal("the world stayed quiet after the scenario's quiet time")
	}
}

// no-food: bread costs 6 until 08:10, then 7, without a market.changed trigger; a buy
// with max_price 6 is refused then, and one with max_price 7 goes through.
func TestScenarioNoFoodPriceMoves(t *testing.T) {
	g, clk := newScenario(t, "no-food", 1)
	v := g.View()
	if v.Agent.Gold != 0 || len(v.Agent.Inventory) != 0 || v.Prices["bread"] != 6 || len(v.Battles) != 1 || v.Battles[0].ID != "battle-456" || v.Battles[0].Call != 1 {
		t.Fatalf("start: %+v, bread %d, battles %+v", v.Agent, v.Prices["bread"], v.Battles)
	}
	call(t, g, ToolWork, map[string]any{"job": "courier", "shifts": 1})
	for m := 0; m < 11; m++ {
		advance(g, clk, 1)
	}
	var types []string
	for _, tr := range drain(g) {
		types = append(types, tr.Type+" "+tr.Subject)
	}
	if strings.Join(types, ",") != "schedule work" {
		t.Fatalf("triggers by 08:11: %v, want only the end of the work", types)
	}
	res := call(t, g, ToolBuy, map[string]any{"item": "bread", "quantity": 1, "max_price": 6})
	if res.Err == nil || res.Err.Code != CodePriceChanged || !strings.Contains(res.Err.Message, "bread is now 7 gold") {
		t.Fatalf("buy at max_price 6: %+v", res)
	}
	if res := call(t, g, ToolBuy, map[string]any{"item": "bread", "quantity": 1, "max_price": 7}); res.Err != nil || g.View().Agent.Gold != 0 {
		t.Fatalf("buy at max_price 7: %+v, gold %d", res, g.View().Agent.Gold)
	}
}

// mid-plan: at 08:05 Mara calls everyone to battle-456 (#2), and a battle.announced
// trigger says so.
func TestScenarioMidPlanCall(t *testing.T) {
	g, clk := newScenario(t, "mid-plan", 1)
	for m := 0; m < 4; m++ {
		advance(g, clk, 1)
	}
	if got := drain(g); len(got) != 0 || len(g.View().Battles) != 0 {
		t.Fatalf("before 08:05: %v", got)
	}
	advance(g, clk, 1)
	got := drain(g)
	if len(got) != 1 || got[0].Type != "battle.announced" || got[0].Subject != "battle-456" || !strings.Contains(got[0].Text, "Everyone fight in battle-456!") {
		t.Fatalf("at 08:05: %v", got)
	}
	if b := g.View().Battles; len(b) != 1 || b[0].Call != 2 || !b[0].Joinable {
		t.Fatalf("battles: %+v", b)
	}
}

// battle-starts: battle-456 begins at 08:04 with a battle.started trigger that says it
// can still be joined until 08:09; it can, and afterwards it cannot.
func TestScenarioBattleStartsTakesLateFighters(t *testing.T) {
	g, clk := newScenario(t, "battle-starts", 1)
	for m := 0; m < 4; m++ {
		advance(g, clk, 1)
	}
	got := drain(g)
	if len(got) != 1 || got[0].Type != "battle.started" || !strings.Contains(got[0].Text, "join by 08:09") {
		t.Fatalf("at 08:04: %v", got)
	}
	obs, _ := g.Observe(context.Background())
	if !strings.Contains(obs.Summary, "join by 08:09") {
		t.Fatalf("the world does not say the battle can be joined:\n%s", obs.Summary)
	}
	if res := call(t, g, ToolJoinBattle, map[string]any{"battle": "battle-456", "energy": 30}); res.Err != nil {
		t.Fatalf("join after the start: %+v", res)
	}
	if b := g.View().Battles[0]; b.Side != "Ember" || b.Energy != 30 || g.View().Agent.Energy != 30 {
		t.Fatalf("battle %+v, energy %d", b, g.View().Agent.Energy)
	}
	for m := 0; m < 5; m++ {
		advance(g, clk, 1)
	}
	res := call(t, g, ToolJoinBattle, map[string]any{"battle": "battle-456", "energy": 5})
	if res.Err == nil || !strings.Contains(res.Err.Message, "already started") {
		t.Fatalf("join after the deadline: %+v", res)
	}
}

// --scenario: an unknown name is refused with the closest, a resumed session cannot
// take one, and New refuses an unknown one too.
func TestScenarioFlag(t *testing.T) {
	if _, err := openDriver(t, game.Values{"scenario": "helo"}, game.Env{CheckOnly: true}); err == nil || !strings.Contains(err.Error(), `did you mean "hello"`) {
		t.Fatalf("--scenario helo: %v", err)
	}
	if _, err := openDriver(t, game.Values{"scenario": "hello"}, game.Env{CheckOnly: true, Resuming: true}); err == nil || !strings.Contains(err.Error(), "resumed session") {
		t.Fatalf("--scenario on resume: %v", err)
	}
	if _, err := openDriver(t, game.Values{"scenario": "no-food"}, game.Env{CheckOnly: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := New(Config{Scenario: "nope", Poll: -1}); err == nil || !strings.Contains(err.Error(), "battle-starts") {
		t.Fatalf("New with an unknown scenario: %v", err)
	}
}
