package live

import (
	"context"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// BenchmarkAttachLatency measures the time from the runner emitting a proposal to its
// arrival on an attached client over the socket (the goal: at most 100 ms). It reports
// the median and the 99th percentile.
//
//	go test -run '^$' -bench AttachLatency ./live/
func BenchmarkAttachLatency(b *testing.B) {
	b.Setenv("XDG_RUNTIME_DIR", b.TempDir())
	notebook := filepath.Join(b.TempDir(), "coplay.db")
	srv, err := Listen(notebook)
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	f := newFake()
	h := NewHub(f)
	own := h.Subscribe("screen", false)
	go func() {
		for range own.Events() {
		}
	}()
	srv.ServeAttach(h, Hello{Session: "bench"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rm, err := Attach(ctx, notebook, "")
	if err != nil {
		b.Fatal(err)
	}
	defer rm.Close()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		ev := proposal("c" + string(rune('a'+i%26)))
		ev.Time = time.Now()
		f.events <- ev
		got := <-rm.Events()
		lat = append(lat, time.Since(got.Time))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms-median")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "ms-p99")
	close(f.events)
}
