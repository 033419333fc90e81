package polite

import (
	"net/http"
	"testing"
	"time"
)

// frozen is a clock that moves only when told.
type frozen struct{ t time.Time }

func (f *frozen) now() time.Time         { return f.t }
func (f *frozen) add(d time.Duration)    { f.t = f.t.Add(d) }
func newFrozen() *frozen                 { return &frozen{t: time.Date(2026, 11, 22, 23, 0, 0, 0, time.UTC)} }
func spaceTraders() Budget               { return Budget{PerSecond: 2, Burst: 30, BurstWindow: time.Minute} }
func exact(b Budget, f *frozen) *Limiter { l := NewLimiter(b, f.now); l.SetMargins(0, 0); return l }

// serverBudget replays the server's own counting (the offline universe's rules) over send
// times, and says which request it would refuse.
func serverBudget(t *testing.T, sends []time.Time) {
	t.Helper()
	tokens, burst := 2.0, 30
	var last, reset time.Time
	for i, s := range sends {
		if !last.IsZero() {
			tokens = min(2, tokens+s.Sub(last).Seconds()*2)
		}
		last = s
		if !reset.IsZero() && !s.Before(reset) {
			burst, reset = 30, time.Time{}
		}
		switch {
		case tokens >= 1-1e-9:
			tokens--
		case burst > 0:
			burst--
			if reset.IsZero() {
				reset = s.Add(time.Minute)
			}
		default:
			t.Fatalf("request %d at +%v would be refused by the server (tokens %.3f, burst 0)", i, s.Sub(sends[0]), tokens)
		}
	}
}

func TestLimiterNeverExceedsTheBudgetAtAFrozenClock(t *testing.T) {
	for _, margins := range []struct {
		slack float64
		keep  int
	}{{0, 0}, {DefaultSlack, DefaultKeepBurst}} {
		f := newFrozen()
		l := NewLimiter(spaceTraders(), f.now)
		l.SetMargins(margins.slack, margins.keep)
		var sends []time.Time
		immediate := 0
		for i := 0; i < 300; i++ { // the clock never moves: every later slot is a reservation
			at, _ := l.Reserve()
			if at.Equal(f.t) {
				immediate++
			}
			sends = append(sends, at)
		}
		// Sends must be in order for the replay; reservations are handed out in order.
		for i := 1; i < len(sends); i++ {
			if sends[i].Before(sends[i-1]) {
				sort(sends)
				break
			}
		}
		serverBudget(t, sends)
		if want := 32 - margins.keep; immediate != want {
			t.Errorf("margins %+v: %d requests may go at once, want %d (2 steady + burst %d kept %d)", margins, immediate, want, 30, margins.keep)
		}
		span := sends[len(sends)-1].Sub(sends[0])
		t.Logf("margins %+v: 300 requests span %v (%.2f req/s overall)", margins, span, 300/span.Seconds())
	}
}

func sort(ts []time.Time) {
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && ts[j].Before(ts[j-1]); j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}

func TestLimiterPacesAtTheSteadyRateAfterTheBurst(t *testing.T) {
	f := newFrozen()
	l := exact(spaceTraders(), f)
	for i := 0; i < 32; i++ {
		if at, _ := l.Reserve(); !at.Equal(f.t) {
			t.Fatalf("request %d must go at once, goes at +%v", i, at.Sub(f.t))
		}
	}
	at, why := l.Reserve()
	if d := at.Sub(f.t); d != 500*time.Millisecond || why == "" {
		t.Fatalf("33rd request at +%v (%q), want +500ms with a reason", d, why)
	}
	at, _ = l.Reserve()
	if d := at.Sub(f.t); d != time.Second {
		t.Fatalf("34th request at +%v, want +1s", d)
	}
	f.add(61 * time.Second)
	if at, _ := l.Reserve(); !at.Equal(f.t) {
		t.Fatal("after the window the burst pool is full again")
	}
}

func TestLimiter429BlocksAndTheResendTakesAToken(t *testing.T) {
	f := newFrozen()
	l := exact(Budget{PerSecond: 2, Burst: 0, BurstWindow: time.Minute}, f)
	h := http.Header{}
	h.Set("Retry-After", "3")
	l.Observe(h, http.StatusTooManyRequests)
	// Three callers resend after the 429: they must not all go at the moment the block
	// ends. The bucket was empty at the 429 and refills in the 3 s wait to its two
	// tokens, so the server takes two then, and the third half a second later.
	var got []time.Duration
	for i := 0; i < 3; i++ {
		at, why := l.Reserve()
		if why == "" {
			t.Errorf("resend %d has no reason to wait", i)
		}
		got = append(got, at.Sub(f.t))
	}
	want := []time.Duration{3 * time.Second, 3 * time.Second, 3500 * time.Millisecond}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("resends at %v, want %v", got, want)
		}
	}
}

func TestLimiterFollowsTheServerHeaders(t *testing.T) {
	f := newFrozen()
	l := exact(spaceTraders(), f)
	h := http.Header{}
	h.Set("Date", f.t.Add(-10*time.Second).Format(http.TimeFormat)) // the server's clock is 10 s behind
	h.Set("x-ratelimit-limit-per-second", "4")
	h.Set("x-ratelimit-limit-burst", "10")
	h.Set("x-ratelimit-remaining", "0")
	h.Set("x-ratelimit-reset", f.t.Add(-10*time.Second+20*time.Second).Format(time.RFC3339))
	l.Observe(h, http.StatusOK)
	if b := l.Budget(); b.PerSecond != 4 || b.Burst != 10 {
		t.Fatalf("budget %v, want the published 4/s, burst 10", b)
	}
	for i := 0; i < 4; i++ { // a bucket of 4, no burst left
		if at, _ := l.Reserve(); !at.Equal(f.t) {
			t.Fatalf("request %d waits", i)
		}
	}
	if at, _ := l.Reserve(); !at.After(f.t) {
		t.Fatal("the server said no burst is left")
	}
	f.add(20 * time.Second) // the reset, on our clock
	for i := 0; i < 14; i++ {
		if at, _ := l.Reserve(); !at.Equal(f.t) {
			t.Fatalf("after the reset, request %d waits until +%v", i, at.Sub(f.t))
		}
	}
}

func TestZeroBudgetDoesNotLimit(t *testing.T) {
	f := newFrozen()
	l := NewLimiter(Budget{}, f.now)
	for i := 0; i < 1000; i++ {
		if at, _ := l.Reserve(); !at.Equal(f.t) {
			t.Fatalf("request %d waits", i)
		}
	}
}
