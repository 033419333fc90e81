package agent

import "testing"

func TestLoopWatchTellsThenStops(t *testing.T) {
	t.Parallel()
	var w loopWatch
	want := map[int]loopVerdict{LoopTellAt: loopTell, LoopStopAt: loopStop}
	for i := 1; i <= LoopStopAt; i++ {
		// Arguments spelled differently are the same call.
		args := `{}`
		if i%2 == 0 {
			args = ` { } `
		}
		if got := w.observe("look", []byte(args), "a quiet room", false); got != want[i] {
			t.Fatalf("call %d: verdict %d, want %d", i, got, want[i])
		}
	}
	// A stop starts the count again.
	if got := w.observe("look", []byte(`{}`), "a quiet room", false); got != loopGoOn {
		t.Fatalf("after a stop: verdict %d", got)
	}
}

func TestLoopWatchCountsOnlyTheSameCallAndResult(t *testing.T) {
	t.Parallel()
	var w loopWatch
	for i := 0; i < 3*LoopStopAt; i++ {
		// The same call answering otherwise, and other arguments, are progress.
		res := []string{"a quiet room", "a door opens"}[i%2]
		if got := w.observe("look", []byte(`{}`), res, false); i < 2*(LoopTellAt-1) && got != loopGoOn {
			t.Fatalf("call %d (%s): verdict %d", i, res, got)
		}
		w.observe("look", []byte(`{"at":"`+string(rune('a'+i))+`"}`), "a quiet room", false)
	}
	w.reset()
	for i := 1; i < LoopStopAt; i++ {
		w.observe("look", []byte(`{}`), "x", false)
	}
	if got := w.observe("move", []byte(`{}`), "moved", true); got != loopGoOn {
		t.Fatalf("a change: verdict %d", got)
	}
	if got := w.observe("look", []byte(`{}`), "x", false); got != loopGoOn {
		t.Fatalf("after a change the count starts again: verdict %d", got)
	}
}
