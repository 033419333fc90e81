package ratelimit

import (
	"testing"
	"time"
)

func TestTakeSpendsTheSecondThenTheBurst(t *testing.T) {
	k := New(SpaceTraders)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 32 {
		if d := k.Take("a", now); !d.Allowed {
			t.Fatalf("request %d of 32 refused", i+1)
		}
	}
	d := k.Take("a", now)
	if d.Allowed || d.RetryAfter != 500*time.Millisecond || d.Remaining != 0 {
		t.Fatalf("request 33: %+v, want refused, retry after 0.5 s, none remaining", d)
	}
	if d := k.Take("b", now); !d.Allowed {
		t.Fatalf("another key is refused: %+v", d)
	}
	if d := k.Take("a", now.Add(500*time.Millisecond)); !d.Allowed {
		t.Fatalf("half a second later: %+v, want one more", d)
	}
	if d := k.Take("a", now.Add(500*time.Millisecond)); d.Allowed {
		t.Fatalf("two in half a second passed")
	}
	later := now.Add(SpaceTraders.BurstWindow)
	for i := range 32 {
		if d := k.Take("a", later); !d.Allowed {
			t.Fatalf("after the burst window, request %d refused", i+1)
		}
	}
}
