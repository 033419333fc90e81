package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/autopilot"
	"github.com/coplayhq/coplay/notes"
)

// growth is what an autopilot run did to its notebook.
type growth struct {
	steps     int
	fileBytes int64 // the notebook's high-water mark after the run, less the empty notebook's
	fileSize  int64 // the file's size on disk after the run
	commits   uint64
	free      int64
	sizes     notes.Sizes
	session   *notes.Session // still open: the caller may read it (the book closes with the test)
}

// playAutopilot plays steps steps of the offline universe (seed 1) with the autopilot,
// every call approved and the universe saved as coplay run does, on a fresh notebook,
// and reports how the notebook grew.
func playAutopilot(tb testing.TB, steps int) growth {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "coplay.db")
	book, sess := createSession(tb, path, "growth", "universe", "autopilot")
	base, err := book.FileBytes()
	if err != nil {
		tb.Fatal(err)
	}
	off := startUniverse(tb, nil)
	commits0 := book.Commits()
	r, err := agent.New(agent.Config{Game: off.Game, Brain: autopilot.New(off.Game), Session: sess,
		ApproveAll: true, MaxSteps: steps, MaxIterations: steps + 1, SaveState: off.Save})
	if err != nil {
		tb.Fatal(err)
	}
	runToEnd(tb, context.Background(), r, func(ev agent.Event) {
		if ev.Type == agent.EventError {
			tb.Logf("step %d: %s", ev.Step, ev.Text)
		}
	})
	g := growth{steps: steps, commits: book.Commits() - commits0, session: sess}
	if g.fileBytes, err = book.FileBytes(); err != nil {
		tb.Fatal(err)
	}
	g.fileBytes -= base
	g.free = book.FreeBytes()
	if g.sizes, err = sess.Sizes(); err != nil {
		tb.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	g.fileSize = fi.Size()
	return g
}

// report prints the growth per step, in total and by kind of data.
func (g growth) report(tb testing.TB) {
	n := float64(g.steps)
	tb.Logf("%d autopilot steps: notebook grew %.0f B/step (high-water mark; file on disk %d B), %.1f commits/step",
		g.steps, float64(g.fileBytes)/n, g.fileSize, float64(g.commits)/n)
	types := make([]string, 0, len(g.sizes.Journal))
	var journal int64
	for t, b := range g.sizes.Journal {
		types = append(types, t)
		journal += b.Bytes
	}
	sort.Slice(types, func(i, j int) bool { return g.sizes.Journal[types[i]].Bytes > g.sizes.Journal[types[j]].Bytes })
	tb.Logf("  free pages %d B; pages by bucket: %v", g.free, g.sizes.Pages)
	tb.Logf("  journal %.0f B/step", float64(journal)/n)
	for _, t := range types {
		b := g.sizes.Journal[t]
		tb.Logf("    %-16s %6.0f B/step  %6d records  %5.0f B/record", t, float64(b.Bytes)/n, b.Count, float64(b.Bytes)/float64(b.Count))
	}
	for _, x := range []struct {
		name string
		b    notes.Bytes
	}{{"notes versions", g.sizes.Notes}, {"plan versions", g.sizes.Plan}, {"call index", g.sizes.Calls}, {"game state", g.sizes.State}, {"state history", g.sizes.Snaps}} {
		tb.Logf("  %-18s %6.0f B/step  %6d values", x.name, float64(x.b.Bytes)/n, x.b.Count)
	}
}

// BenchmarkNotebookGrowth plays 1,000 autopilot steps (COPLAY_GROWTH_STEPS to change)
// and reports the notebook's growth per step, by record type. Run with
// go test ./agent -run '^$' -bench NotebookGrowth -benchtime 1x -v
func BenchmarkNotebookGrowth(b *testing.B) {
	steps := 1000
	if s, err := strconv.Atoi(os.Getenv("COPLAY_GROWTH_STEPS")); err == nil && s > 0 {
		steps = s
	}
	var g growth
	for b.Loop() {
		g = playAutopilot(b, steps)
	}
	g.report(b)
	b.ReportMetric(float64(g.fileBytes)/float64(steps), "file-B/step")
	b.ReportMetric(float64(g.commits)/float64(steps), "commits/step")
}

// TestNotebookGrowthIsBounded plays 150 autopilot steps and checks the notebook grows
// by at most 3 KB a step (the bound for a 300-step run of coplay run; 1,000 steps, in
// BenchmarkNotebookGrowth, stay under 2 KB: a short run pays the saved universe and the
// free pages over fewer steps). -v prints the breakdown.
func TestNotebookGrowthIsBounded(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays 150 autopilot steps on a real notebook")
	}
	g := playAutopilot(t, 150)
	g.report(t)
	if per := g.fileBytes / int64(g.steps); per > 3072 {
		t.Errorf("the notebook grew %d bytes a step; the bound is 3072", per)
	}
}
