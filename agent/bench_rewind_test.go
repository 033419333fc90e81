package agent_test

import (
	"bytes"
	"os"
	"strconv"
	"testing"

	"github.com/coplayhq/coplay/agent"
)

// BenchmarkRewindBudget plays 300 autopilot steps of the offline universe (the notebook
// as coplay run keeps it: the state history a fork needs included) and prints what the
// notebook and its export take a step, against issue #32's bounds: file growth ≤ 2 KB
// a step and export ≤ 1 KB a step. It also reads the session back step by step, as
// coplay sessions replay does. COPLAY_GROWTH_STEPS changes the number of steps. Run with
//
//	go test ./agent -run '^$' -bench RewindBudget -benchtime 1x -v
func BenchmarkRewindBudget(b *testing.B) {
	steps := 300
	if s, err := strconv.Atoi(os.Getenv("COPLAY_GROWTH_STEPS")); err == nil && s > 0 {
		steps = s
	}
	var g growth
	var export bytes.Buffer
	var replayed int
	for b.Loop() {
		g = playAutopilot(b, steps)
		export.Reset()
		if err := g.session.Export(&export); err != nil {
			b.Fatal(err)
		}
		rp, err := agent.ReadReplay(g.session)
		if err != nil {
			b.Fatal(err)
		}
		replayed = len(rp.Steps)
	}
	g.report(b)
	n := float64(steps)
	file, exp := float64(g.fileBytes)/n, float64(export.Len())/n
	b.Logf("%d steps: file growth %.0f B/step (bound 2048), export %.0f B/step (bound 1024), state history %.0f B/step, %d steps replayed",
		steps, file, exp, float64(g.sizes.Snaps.Bytes)/n, replayed)
	b.ReportMetric(file, "file-B/step")
	b.ReportMetric(exp, "export-B/step")
	b.ReportMetric(float64(g.sizes.Snaps.Bytes)/n, "history-B/step")
}
