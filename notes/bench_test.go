package notes

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/coplayhq/coplay/notes/record"
)

// BenchmarkAppend measures durable journal appends: each one is its own
// fsynced transaction, as the agent does for decisions and results.
// appends/s = 1e9 / ns/op.
func BenchmarkAppend(b *testing.B) {
	book := openBook(b, tempPath(b))
	s, err := book.Create("bench", "g", "m")
	if err != nil {
		b.Fatal(err)
	}
	data := json.RawMessage(`{"decision":"approve","reason":"cheap enough"}`)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := s.Append(Record{Type: record.TypeDecision, Step: i / 10, CallID: fmt.Sprintf("c%d", i), Data: data}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "appends/s")
}

// BenchmarkOpenFirstScreen measures opening a notebook whose session has
// 100,000 journal records and reading what the first screen needs: the
// session info, notes, plan, the last 200 records and the recovery.
func BenchmarkOpenFirstScreen(b *testing.B) {
	path := tempPath(b)
	book, s := createAt(b, path, "big", "spacetraders", "m")
	fill(b, s, 100_000)
	s.UpdateSection("Situation", "Lots of history.", 10_000)
	s.SetPlan([]PlanStep{{Text: "a"}, {Text: "b"}}, 10_000)
	book.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		book, err := Open(path, nil)
		if err != nil {
			b.Fatal(err)
		}
		s, err := book.Session("")
		if err != nil {
			b.Fatal(err)
		}
		if info, err := s.Info(); err != nil || info.Records != 100_000 {
			b.Fatalf("Info() = %+v, %v", info, err)
		}
		if _, err := s.Notes(); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Plan(); err != nil {
			b.Fatal(err)
		}
		if tail, err := s.Tail(200); err != nil || len(tail) != 200 {
			b.Fatalf("Tail(200) = %d records, %v", len(tail), err)
		}
		if _, err := s.Recover(); err != nil {
			b.Fatal(err)
		}
		book.Close()
	}
}
