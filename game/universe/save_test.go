package universe

import (
	"bytes"
	"sync"
	"testing"
)

func TestSameSeedSameUniverse(t *testing.T) {
	clock := NewFakeClock(testStart)
	a, b := New(Config{Seed: 99, Clock: clock}), New(Config{Seed: 99, Clock: clock})
	ta, _ := a.Register("TWIN", "COSMIC")
	tb, _ := b.Register("TWIN", "COSMIC")
	if ta != tb {
		t.Errorf("tokens differ for the same seed: %q vs %q", ta, tb)
	}
	sa, _ := a.Save()
	sb, _ := b.Save()
	if !bytes.Equal(sa, sb) {
		t.Error("the same seed and the same actions saved different states")
	}
	c := New(Config{Seed: 100, Clock: clock})
	if c.st.Systems[0].Symbol == a.st.Systems[0].Symbol && c.st.Systems[1].Symbol == a.st.Systems[1].Symbol {
		t.Error("seeds 99 and 100 generated the same galaxy")
	}
}

func TestSaveRestoreExact(t *testing.T) {
	c := newTestClient(t, 13, false)
	playthrough(c)
	data, err := c.u.Save()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Restore(data, Config{Clock: c.clock})
	if err != nil {
		t.Fatal(err)
	}
	again, err := r.Save()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, again) {
		t.Error("Save(Restore(Save())) differs from Save()")
	}
	// The restored universe carries on: the token still works, and the random source
	// continues where it left off, so the next contract offer is the same in both.
	rc := &client{t: t, base: newServer(t, r), clock: c.clock, u: r, token: c.token}
	ma := c.must(200, "get-my-agent", "GET", "/v2/my/agent", nil)
	mb := rc.must(200, "get-my-agent", "GET", "/v2/my/agent", nil)
	if num(ma, "data.credits") != num(mb, "data.credits") || str(ma, "data.symbol") != str(mb, "data.symbol") {
		t.Errorf("agent differs after restore: %v vs %v", dig(ma, "data"), dig(mb, "data"))
	}
	register(c, "NEXT")
	register(rc, "NEXT")
	ka := c.must(200, "get-contracts", "GET", "/v2/my/contracts", nil)
	kb := rc.must(200, "get-contracts", "GET", "/v2/my/contracts", nil)
	if str(ka, "data.0.id") != str(kb, "data.0.id") || str(ka, "data.0.id") == "" {
		t.Errorf("next contract after restore: %q vs %q", str(ka, "data.0.id"), str(kb, "data.0.id"))
	}
}

func TestSaveKeepsNoTokens(t *testing.T) {
	u := New(Config{Seed: 3, Clock: NewFakeClock(testStart)})
	tok, err := u.Register("SECRETIVE", "COSMIC")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := u.Save()
	if bytes.Contains(data, []byte(tok)) {
		t.Fatal("saved bytes contain the agent token")
	}
	r, err := Restore(data, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := r.AgentToken("secretive"); !ok || got != tok {
		t.Errorf("AgentToken after restore = %q, %v; want the original token", got, ok)
	}
	if _, ok := r.AgentToken("NOBODY"); ok {
		t.Error("AgentToken of an unknown agent reported one")
	}
}

func TestRestoreRejectsBadBytes(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("not json"), []byte(`{"format":"other/1"}`), []byte(`{"format":"coplay-universe/1","state":{}}`)} {
		if _, err := Restore(data, Config{}); err == nil {
			t.Errorf("Restore(%q) succeeded, want an error", data)
		}
	}
}

// TestConcurrentRequests runs agents in parallel so the race detector sees the handlers.
func TestConcurrentRequests(t *testing.T) {
	c := newTestClient(t, 14, false)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok, err := c.u.Register("RACER"+string(rune('A'+i)), "COSMIC")
			if err != nil {
				t.Error(err)
				return
			}
			pc := &client{t: t, base: c.base, token: tok, clock: c.clock, u: c.u}
			for range 10 {
				pc.do("get-my-ships", "GET", "/v2/my/ships", nil)
				pc.do("get-status", "GET", "/v2", nil)
				pc.do("orbit-ship", "POST", "/v2/my/ships/RACER"+string(rune('A'+i))+"-1/orbit", nil)
				pc.do("dock-ship", "POST", "/v2/my/ships/RACER"+string(rune('A'+i))+"-1/dock", nil)
			}
		}()
	}
	wg.Wait()
	if n := len(c.u.st.Agents); n != 4 {
		t.Errorf("%d agents registered, want 4", n)
	}
}
