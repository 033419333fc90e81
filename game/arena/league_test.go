package arena

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/internal/drivertest"
)

// newLeagueTest returns a league of seats on a fake clock, with no goroutines.
func newLeagueTest(t *testing.T, seats ...string) (*League, *FakeClock) {
	t.Helper()
	clk := NewFakeClock(wallStart)
	l, err := NewLeague(Config{Seed: 1, Speed: testSpeed, Clock: clk, Poll: -1}, seats)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l, clk
}

// triggered returns the first trigger of type typ waiting for g, if any.
func triggered(g *Game, typ string) (game.Trigger, bool) {
	for _, tr := range drain(g) {
		if tr.Type == typ {
			return tr, true
		}
	}
	return game.Trigger{}, false
}

// Two seats see each other's messages as triggers, and communities go round-robin by
// seat order from the lone agent's.
func TestLeagueSeatsWriteToEachOther(t *testing.T) {
	l, _ := newLeagueTest(t, "Heron", "Finch", "Lark", "Wren2")
	heron, finch, wren := l.Seats()[0], l.Seats()[1], l.Seats()[3]
	lone, _ := newTest(t, 1)
	home := lone.View().Agent.Community
	if v := heron.View(); v.Agent.Name != "Heron" || v.Agent.Community != home || strings.Join(v.Players, ",") != "Finch,Lark,Wren2" {
		t.Fatalf("Heron's view: %+v (lone agent's community %s)", v.Agent, home)
	}
	if c0, c1 := heron.View().Agent.Community, finch.View().Agent.Community; c0 == c1 || wren.View().Agent.Community != c0 {
		t.Fatalf("communities are not round-robin: Heron %s, Finch %s, Wren2 %s", c0, c1, wren.View().Agent.Community)
	}
	if r := finch.Info().Rules; !strings.HasPrefix(r, "You are Finch in the arena") || !strings.Contains(r, "**Players**: Heron, Lark, Wren2") {
		t.Fatalf("Finch's rules: %.80s…", r)
	}
	if lone.Info().Rules != rules {
		t.Fatal("a lone agent's rules changed")
	}
	drain(finch)
	if res := call(t, heron, "send_message", map[string]any{"to": "finch", "text": "meet me at battle-456?"}); !res.OK() || !strings.Contains(res.Output, "Sent") {
		t.Fatalf("send to Finch: %+v", res)
	}
	tr, ok := triggered(finch, "message.received")
	if !ok || tr.Subject != "Heron" || !strings.Contains(tr.Text, "meet me at battle-456?") {
		t.Fatalf("Finch's trigger: %+v %v", tr, ok)
	}
	obs, _ := finch.Observe(context.Background())
	if !strings.Contains(obs.Summary, "Heron") || !strings.Contains(obs.Summary, "players: Heron, Lark, Wren2") {
		t.Fatalf("Finch's world does not show Heron's message:\n%s", obs.Summary)
	}
	// A post on Heron's channel reaches Wren2 (same community), not Finch.
	drain(wren)
	drain(finch)
	call(t, heron, "send_message", map[string]any{"to": "channel", "text": "Wren2, hold the line"})
	if _, ok := triggered(wren, "message.received"); !ok {
		t.Fatal("Wren2 did not hear Heron on their channel")
	}
	if countFrom(finch, "Heron") != 1 {
		t.Fatalf("Finch saw Heron's channel post: %d messages from Heron", countFrom(finch, "Heron"))
	}
}

func countFrom(g *Game, from string) int {
	n := 0
	for _, m := range g.View().Messages {
		if m.From == from {
			n++
		}
	}
	return n
}

// A seat that joins a battle joins it in every seat's world.
func TestLeagueBattlesAreShared(t *testing.T) {
	l, clk := newLeagueTest(t, "Heron", "Finch")
	heron, finch := l.Seats()[0], l.Seats()[1]
	var id string
	for m := 0; m < 120 && id == ""; m++ {
		advance(heron, clk, 1)
		for _, b := range heron.View().Battles {
			if b.Joinable {
				id = b.ID
			}
		}
	}
	if id == "" {
		t.Fatal("no battle to join in two game hours")
	}
	side := battleView(heron.View(), id).Sides[0]
	before := battleView(finch.View(), id).Committed[side]
	if res := call(t, heron, "join_battle", map[string]any{"battle": id, "side": side, "energy": 20}); !res.OK() {
		t.Fatalf("join: %+v", res)
	}
	if after := battleView(finch.View(), id).Committed[side]; after != before+20 {
		t.Fatalf("Finch sees %s's %s at %d, was %d: Heron's 20 did not arrive", id, side, after, before)
	}
	if a, b := battleView(heron.View(), id).Committed, battleView(finch.View(), id).Committed; a[side] != b[side] {
		t.Fatalf("the seats see different battles: %v and %v", a, b)
	}
}

// A league saved and restored is the same, seat by seat, clock included; through the
// driver and game.OpenLeague, the newest seat's save is the one restored.
func TestLeagueSaveResume(t *testing.T) {
	l, clk := newLeagueTest(t, "Heron", "Finch")
	advance(l.Seats()[0], clk, 37)
	call(t, l.Seats()[0], "send_message", map[string]any{"to": "Finch", "text": "hello"})
	saved, err := l.Save()
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewLeague(Config{State: saved, Speed: testSpeed, Clock: clk, Poll: -1}, []string{"Heron", "Finch"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	again, _ := r.Save()
	if !bytes.Equal(saved, again) {
		t.Fatalf("restored league differs:\n%s\n%s", saved, again)
	}
	if got, want := r.Seats()[1].Now(), l.Seats()[1].Now(); !got.Equal(want) {
		t.Fatalf("the clock came back at %v, want %v", got, want)
	}

	opts := game.Values{"seed": int64(2)}
	ctx := context.Background()
	if _, err := game.OpenLeague(ctx, DriverName, game.Env{CheckOnly: true, Options: opts}, []string{"Mara"}); err == nil || !strings.Contains(err.Error(), "member's name") {
		t.Fatalf("a seat named as a member: %v", err)
	}
	gl, err := game.OpenLeague(ctx, DriverName, game.Env{Clock: clk, Options: opts}, []string{"Heron", "Finch"})
	if err != nil {
		t.Fatal(err)
	}
	first, _ := gl.Seats[0].Save()
	call(t, gl.Seats[1].Game.(*Game), "send_message", map[string]any{"to": "Heron", "text": "after the first save"})
	newest, _ := gl.Seats[1].Save()
	gl.Close()
	states := map[string][]byte{"Heron": first, "Finch": newest}
	back, err := game.OpenLeague(ctx, DriverName, game.Env{Clock: clk, Resuming: true, SeatStates: states, Options: opts}, []string{"Finch", "Heron"})
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	if back.Seats[0].Name != "Finch" || countFrom(back.Seats[1].Game.(*Game), "Finch") != 1 {
		t.Fatal("the resumed league is not the newest save")
	}
}

// Seats that write to each other at once, with their clocks running, never wait on each
// other (each seat's lock is released before its letters go out).
func TestLeagueSeatsWriteAtOnce(t *testing.T) {
	clk := NewFakeClock(wallStart)
	l, err := NewLeague(Config{Seed: 3, Speed: testSpeed, Clock: clk, Poll: time.Millisecond}, []string{"Heron", "Finch"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var wg sync.WaitGroup
	for i, g := range l.Seats() {
		other := []string{"Finch", "Heron"}[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < 50; n++ {
				raw := drivertest.Args(t, map[string]any{"to": other, "text": fmt.Sprintf("note %d", n)})
				if res, err := g.Call(context.Background(), "send_message", raw); err != nil || !res.OK() {
					t.Errorf("send: %+v %v", res, err)
					return
				}
				clk.Advance(time.Second)
			}
		}()
	}
	wg.Wait()
	for _, g := range l.Seats() {
		if n := len(g.View().Messages); n < 100 {
			t.Errorf("%s sees %d messages, want the 100 sent and received", g.View().Agent.Name, n)
		}
	}
}

// A seat saves its own world and the letters other seats had not saved yet (SavePart):
// a letter reaches a world saved before it once on resume, never twice, and letters
// sent after a resume are numbered after the ones before it.
func TestLeaguePartsResume(t *testing.T) {
	opts := game.Values{"seed": int64(4)}
	ctx := context.Background()
	clk := NewFakeClock(wallStart)
	seats := []string{"Heron", "Finch", "Lark"}
	open := func(states map[string][]byte) *game.League {
		t.Helper()
		gl, err := game.OpenLeague(ctx, DriverName, game.Env{Clock: clk, Resuming: states != nil, SeatStates: states, Options: opts}, seats)
		if err != nil {
			t.Fatal(err)
		}
		return gl
	}
	saveAll := func(gl *game.League) map[string][]byte {
		t.Helper()
		out := map[string][]byte{}
		for _, s := range gl.Seats {
			b, err := s.Save()
			if err != nil {
				t.Fatal(err)
			}
			out[s.Name] = b
		}
		return out
	}
	gl := open(nil)
	first := saveAll(gl)
	heron, finch := gl.Seats[0].Game.(*Game), gl.Seats[1].Game.(*Game)
	call(t, finch, "send_message", map[string]any{"to": "Heron", "text": "one"})
	call(t, heron, "send_message", map[string]any{"to": "Finch", "text": "back"})
	// Heron's save holds Finch's "one"; Finch's does not hold Heron's "back", which
	// only Heron's part carries. Lark saved nothing since.
	states := map[string][]byte{"Heron": must(gl.Seats[0].Save()), "Finch": first["Finch"], "Lark": first["Lark"]}
	if part := string(states["Heron"]); !strings.Contains(part, `"part":true`) || strings.Count(part, `"world":{"version"`) != 1 || !strings.Contains(part, `"pending":[{"From":"Heron"`) {
		t.Fatalf("Heron's save is not Heron's part alone:\n%.400s", part)
	}
	gl.Close()

	back := open(states)
	heron, finch = back.Seats[0].Game.(*Game), back.Seats[1].Game.(*Game)
	if h, f := countFrom(heron, "Finch"), countFrom(finch, "Heron"); h != 1 || f != 1 {
		t.Fatalf("after resume Heron has %d of Finch's letters and Finch %d of Heron's, want 1 and 1", h, f)
	}
	call(t, finch, "send_message", map[string]any{"to": "Heron", "text": "two"})
	again := saveAll(back)
	back.Close()
	last := open(again)
	defer last.Close()
	if h := countFrom(last.Seats[0].Game.(*Game), "Finch"); h != 2 {
		t.Fatalf("Heron has %d of Finch's letters after two resumes, want 2 (each once)", h)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
