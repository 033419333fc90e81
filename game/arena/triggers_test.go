package arena

import (
	"testing"
	"time"
)

// Triggers arrive as the clock advances, with nobody calling the game: the game's own
// goroutine notices the time.
func TestTriggersArriveWithoutCalls(t *testing.T) {
	clk := NewFakeClock(wallStart)
	g, err := New(Config{Seed: 1, Speed: testSpeed, Clock: clk, Poll: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	clk.Advance(30 * time.Second) // 30 game minutes
	seen := map[string]bool{}
	deadline := time.After(20 * time.Second) // only a hung test waits this long
	for !seen["battle.announced"] || !seen["message.received"] {
		select {
		case tr := <-g.Triggers():
			seen[tr.Type] = true
			if tr.Time.Before(wallStart) || tr.Text == "" { // timed on the wall clock
				t.Fatalf("trigger without a time or text: %+v", tr)
			}
		case <-deadline:
			t.Fatalf("after 30 game minutes, only %v", seen)
		}
	}
}

// Something wakes the agent at least every wakeEvery game minutes.
func TestSomethingWakesTheAgentOften(t *testing.T) {
	for seed := int64(1); seed <= 5; seed++ {
		g, clk := newTest(t, seed)
		last := Epoch
		for m := 0; m < 600; m++ {
			advance(g, clk, 1)
			for _, tr := range drain(g) {
				at := g.clk.game(tr.Time) // triggers are timed on the wall clock
				if gap := at.Sub(last); gap > wakeEvery*time.Minute {
					t.Fatalf("seed %d: nothing for %v before %v", seed, gap, tr)
				}
				last = at
			}
		}
		if gap := g.View().Now.Sub(last); gap > wakeEvery*time.Minute {
			t.Fatalf("seed %d: nothing for the last %v", seed, gap)
		}
	}
}

// With nobody reading, the channel keeps the newest triggers and the world never waits;
// Close closes it.
func TestTriggersNeverBlock(t *testing.T) {
	open := func(buffer int) (*Game, *FakeClock) {
		clk := NewFakeClock(wallStart)
		g, err := New(Config{Seed: 1, Speed: testSpeed, Clock: clk, Poll: -1, Buffer: buffer})
		if err != nil {
			t.Fatal(err)
		}
		return g, clk
	}
	g, clk := open(3)
	twin, twinClk := open(1000)
	defer twin.Close()
	clk.Advance(3 * time.Minute) // 180 game minutes: dozens of triggers for 3 places
	twinClk.Advance(3 * time.Minute)
	g.Sync()
	twin.Sync()
	got, all := drain(g), drain(twin)
	if len(got) != 3 || len(all) < 20 {
		t.Fatalf("%d triggers waiting of %d, want the buffer's 3", len(got), len(all))
	}
	for i, tr := range got {
		if want := all[len(all)-3+i]; tr != want {
			t.Fatalf("kept %+v, want the newest %+v", tr, want)
		}
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := <-g.Triggers(); ok {
		t.Fatal("the channel is open after Close")
	}
	if err := g.Close(); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
	clk.Advance(time.Minute)
	g.Sync() // a closed game still moves, and sends nothing
}
