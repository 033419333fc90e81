package arena

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// script plays the same calls at the same game times on a game: the determinism, save
// and dry-run tests share it.
func script(t *testing.T, g *Game, clk *FakeClock, from, to int) {
	t.Helper()
	for m := from; m < to; m++ {
		advance(g, clk, 1)
		switch m % 7 {
		case 1:
			v := g.View()
			for _, msg := range v.Messages {
				if msg.Mentions && !msg.Answered {
					call(t, g, ToolSendMessage, map[string]any{"to": msg.From, "text": "hello " + msg.From, "reply_to": msg.ID})
					break
				}
			}
		case 3:
			for _, b := range g.View().Battles {
				if b.Joinable && b.Side == "" && slices.Contains(b.Sides, g.View().Agent.Community) {
					call(t, g, ToolJoinBattle, map[string]any{"battle": b.ID, "energy": 10})
				}
			}
		case 5:
			call(t, g, ToolBuy, map[string]any{"item": "apple", "quantity": 1})
		case 6:
			call(t, g, ToolConsume, map[string]any{"item": "apple"})
		}
	}
}

func TestSameSeedSameWorld(t *testing.T) {
	a, ca := newTest(t, 7)
	b, cb := newTest(t, 7)
	script(t, a, ca, 0, 120)
	script(t, b, cb, 0, 120)
	sa, sb := save(t, a), save(t, b)
	if !bytes.Equal(sa, sb) {
		t.Fatal("two games of seed 7 played the same way differ")
	}
	oa, _ := a.Observe(context.Background())
	ob, _ := b.Observe(context.Background())
	if oa.Summary != ob.Summary {
		t.Fatalf("summaries differ:\n%s\n---\n%s", oa.Summary, ob.Summary)
	}
	c, cc := newTest(t, 8)
	script(t, c, cc, 0, 120)
	if bytes.Equal(sa, save(t, c)) {
		t.Fatal("seeds 7 and 8 made the same world")
	}
}

func TestWorldsDiffer(t *testing.T) {
	leaders := map[string]bool{}
	for seed := int64(1); seed <= 6; seed++ {
		s := newState(seed)
		var ls []string
		bad := 0
		for _, m := range s.Members {
			if m.Leader {
				ls = append(ls, m.Name)
			}
			if m.Trust < 0 {
				bad++
			}
		}
		if len(ls) != len(Communities) || bad != 3 || len(s.Members) != 12 {
			t.Fatalf("seed %d: leaders %v, %d members with a bad history, %d members", seed, ls, bad, len(s.Members))
		}
		leaders[strings.Join(ls, ",")] = true
	}
	if len(leaders) < 3 {
		t.Fatalf("six seeds made only %d sets of leaders", len(leaders))
	}
}

// A world saved mid-game and restored continues exactly as the original does.
func TestSaveRestoreMidGame(t *testing.T) {
	g, clk := newTest(t, 9)
	script(t, g, clk, 0, 75)
	saved := save(t, g)

	clk2 := NewFakeClock(wallStart.Add(1000)) // another wall clock: game time goes on from the save
	r, err := New(Config{Seed: 12345, Speed: testSpeed, Clock: clk2, State: saved, Poll: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	if !bytes.Equal(saved, save(t, r)) {
		t.Fatal("the restored world differs from the saved one")
	}
	if r.View().Now != g.View().Now {
		t.Fatalf("restored at %v, saved at %v", r.View().Now, g.View().Now)
	}
	script(t, g, clk, 75, 150)
	script(t, r, clk2, 75, 150)
	if !bytes.Equal(save(t, g), save(t, r)) {
		t.Fatal("the restored world went another way than the original")
	}
	og, _ := g.Observe(context.Background())
	or, _ := r.Observe(context.Background())
	if og.Summary != or.Summary {
		t.Fatalf("summaries differ:\n%s\n---\n%s", og.Summary, or.Summary)
	}
}

func TestRestoreRefusesBadState(t *testing.T) {
	for _, c := range []struct{ state, want string }{
		{`not json`, "reading the saved world"},
		{`{"version": 99}`, "version 99"},
		{`{"version": 1}`, "incomplete"},
		{`{"version": 1, "now": "2100-01-01T08:00:00Z", "members": [null], "prices": {}, "stock": {}}`, "member 0 is empty"},
		{`{"version": 1, "now": "2100-01-01T08:00:00Z", "members": [{"name": "A"}], "prices": {}, "stock": {}, "battles": [{"id": "b"}]}`, "battle 0 is incomplete"},
	} {
		_, err := New(Config{State: []byte(c.state), Poll: -1})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("state %s: %v, want %q", c.state, err, c.want)
		}
	}
}

func TestPricesMove(t *testing.T) {
	for _, it := range Items() {
		seen := map[int]bool{}
		for p := int64(0); p < 48; p++ {
			v := price(3, it, p)
			if v < 1 || v > it.Base*2 {
				t.Fatalf("%s in period %d costs %d (base %d)", it.Name, p, v, it.Base)
			}
			if v != price(3, it, p) {
				t.Fatalf("%s's price in period %d is not a function of the seed", it.Name, p)
			}
			seen[v] = true
		}
		if len(seen) < 3 {
			t.Errorf("%s took only %d prices over 4 hours", it.Name, len(seen))
		}
	}
	// In play: the market's prices change as the clock goes on.
	g, clk := newTest(t, 3)
	before := g.View().Prices
	changed := false
	for i := 0; i < 12 && !changed; i++ {
		advance(g, clk, marketPeriod)
		changed = !mapsEqual(before, g.View().Prices)
	}
	if !changed {
		t.Fatal("prices did not move in an hour of play")
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// A battle goes to the side with more energy, unless luck (15% either way) decides a
// close one; the agent's energy counts, and winning pays.
func TestBattlesResolveByEnergy(t *testing.T) {
	for seed := int64(1); seed <= 20; seed++ {
		g, clk := newTest(t, seed)
		var id string
		for id == "" {
			advance(g, clk, 1)
			for _, b := range g.View().Battles {
				if b.Joinable && slices.Contains(b.Sides, g.View().Agent.Community) {
					id = b.ID
				}
			}
		}
		// Make the agent's side far stronger than the other: it must win.
		inspect(g, func(w *world) { w.s.Agent.Energy = 100 })
		res := call(t, g, ToolJoinBattle, map[string]any{"battle": id, "energy": 100})
		if !res.OK() {
			t.Fatalf("seed %d: join: %v", seed, res.Err)
		}
		var home, other string
		inspect(g, func(w *world) {
			b, _ := w.battleNamed(id)
			home = w.agentSide(b)
			other = b.Sides[0]
			if other == home {
				other = b.Sides[1]
			}
			b.Plan = nil                                       // no more commitments
			b.Committed[other] = b.Committed[home] * 100 / 140 // at most 1/1.4 of the agent's side
		})
		gold := g.View().Agent.Gold
		for !battleOver(g, id) {
			advance(g, clk, 1)
		}
		v := g.View()
		b := battleView(v, id)
		if b.Winner != home {
			t.Fatalf("seed %d: %s won against %s with less energy (%v)", seed, b.Winner, home, b.Committed)
		}
		if v.Agent.BattlesWon != 1 || v.Agent.Gold < gold+10+75 {
			t.Fatalf("seed %d: a won battle with 100 energy paid %d gold (won %d)", seed, v.Agent.Gold-gold, v.Agent.BattlesWon)
		}
	}
}

func battleOver(g *Game, id string) bool { return battleView(g.View(), id).Over }

func battleView(v View, id string) BattleView {
	for _, b := range v.Battles {
		if b.ID == id {
			return b
		}
	}
	return BattleView{}
}

// Ignoring a call for help is remembered; answering one in time is too.
func TestCallsForHelpAreRemembered(t *testing.T) {
	g, clk := newTest(t, 2)
	var answered, ignored string
	for m := 0; m < 600 && (answered == "" || ignored == ""); m++ {
		advance(g, clk, 1)
		inspect(g, func(w *world) {
			for _, msg := range w.s.Messages {
				if msg.Kind != kindHelp || msg.Settled || w.answered(msg.ID) {
					continue
				}
				if answered == "" {
					answered = msg.From
					o, err := w.planSend(sendArgs{To: msg.From, Text: "I'm here", ReplyTo: msg.ID})
					if err != nil {
						t.Fatal(err)
					}
					o.apply()
				} else if msg.From != answered {
					ignored = msg.From
				}
			}
		})
	}
	if answered == "" || ignored == "" {
		t.Fatal("no two calls for help in ten hours")
	}
	advance(g, clk, int(helpDue/time.Minute)+1)
	inspect(g, func(w *world) {
		good, _ := w.memberNamed(answered)
		bad, _ := w.memberNamed(ignored)
		if !hasMemory(good, "you answered when I asked for help") {
			t.Errorf("%s does not remember being helped: %+v", answered, good.Memories)
		}
		if !hasMemory(bad, "you ignored my call for help") {
			t.Errorf("%s does not remember being ignored: %+v", ignored, bad.Memories)
		}
	})
}

func hasMemory(m *member, text string) bool {
	return slices.ContainsFunc(m.Memories, func(x memory) bool { return x.Text == text })
}

// Energy drifts toward its resting level, and stays within 0–100.
func TestEnergyDrifts(t *testing.T) {
	g, clk := newTest(t, 1)
	inspect(g, func(w *world) { w.s.Agent.Energy = 0 })
	advance(g, clk, 60)
	if e := g.View().Agent.Energy; e <= 0 || e > restLevel {
		t.Fatalf("an hour of rest from 0 energy gave %d", e)
	}
	inspect(g, func(w *world) { w.s.Agent.Energy = MaxEnergy })
	advance(g, clk, 60)
	if e := g.View().Agent.Energy; e >= MaxEnergy || e < restLevel {
		t.Fatalf("an hour from full energy left %d", e)
	}
}
