package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/notes"
)

// TestForkStateLiveAndRewound: a driver that can rewind gets the state the step
// observed, moved by the time since; one that cannot (a live game) gets the session's
// latest state and is told its world has moved on.
func TestForkStateLiveAndRewound(t *testing.T) {
	t.Parallel()
	_, s := newSession(t, "live", "mcp", "model")
	observed := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for step, state := range []string{"world at 1", "world at 2"} {
		recs := []notes.Record{{Type: "step", Step: step + 1}, {Type: "observation", Step: step + 1, Data: []byte(`{"observation":{"time":"` + observed.Add(time.Duration(step)*time.Hour).Format(time.RFC3339) + `"}}`)}}
		if _, err := s.Commit(notes.Batch{Records: recs, Step: step + 1, State: []byte(state)}); err != nil {
			t.Fatal(err)
		}
	}
	at := notes.ForkPoint{Session: "live", Step: 1}
	state, live, err := forkState(s, at, game.Driver{Name: "mcp"}, time.Now())
	if err != nil || !live || string(state) != "world at 2" {
		t.Errorf("live game: state %q, live %v, %v; want the latest state, live", state, live, err)
	}
	now := observed.Add(90 * time.Minute)
	var ago time.Duration
	rewind := game.Driver{Name: "universe", Rewind: func(st []byte, d time.Duration) ([]byte, error) {
		ago = d
		return append([]byte("rewound "), st...), nil
	}}
	state, live, err = forkState(s, at, rewind, now)
	if err != nil || live || string(state) != "rewound world at 1" || ago != 90*time.Minute {
		t.Errorf("built-in world: state %q, live %v, ago %v, %v; want step 1's world rewound by 90m", state, live, ago, err)
	}
	if _, _, err := forkState(s, notes.ForkPoint{Session: "live", Step: 3}, rewind, now); err == nil || !strings.Contains(err.Error(), "no step 3") {
		t.Errorf("a step past the end: %v", err)
	}
}

// TestWaitingAdvice: advice given during the step before the fork had not reached the
// model yet; advice given earlier had.
func TestWaitingAdvice(t *testing.T) {
	t.Parallel()
	_, s := newSession(t, "s", "arena", "autopilot")
	recs := []notes.Record{
		{Type: "step", Step: 1}, {Type: "advice", Step: 1, Data: []byte(`{"text":"read at step 2"}`)},
		{Type: "step", Step: 2}, {Type: "advice", Step: 2, Data: []byte(`{"text":"sell the iron"}`)},
		{Type: "advice", Step: 2, Data: []byte(`{"text":"and rest"}`)},
		{Type: "step", Step: 3}, {Type: "advice", Step: 3, Data: []byte(`{"text":"after the fork point"}`)},
	}
	if _, err := s.Commit(notes.Batch{Records: recs}); err != nil {
		t.Fatal(err)
	}
	got, err := waitingAdvice(s, notes.ForkPoint{Session: "s", Step: 3})
	if err != nil || strings.Join(got, "; ") != "sell the iron; and rest" {
		t.Errorf("waiting advice at step 3 = %q, %v", got, err)
	}
	// Advice that cannot be read is an error naming it, not advice quietly lost.
	if _, err := s.Commit(notes.Batch{Records: []notes.Record{{Type: "advice", Step: 3, Data: []byte(`{"text":["sell"]}`)}, {Type: "step", Step: 4}}}); err != nil {
		t.Fatal(err)
	}
	if got, err := waitingAdvice(s, notes.ForkPoint{Session: "s", Step: 4}); err == nil || !strings.Contains(err.Error(), "journal record 8 (advice)") {
		t.Errorf("unreadable advice at step 3 = %q, %v", got, err)
	}
}
