package arena

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

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
