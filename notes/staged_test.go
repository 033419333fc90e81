package notes

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDeferredEditsWaitForCommit: with DeferEdits, note and plan edits are checked and
// read back at once, cost no commit of their own, are lost with the process if no
// Commit follows, and are written, each as its own version, by the next Commit.
func TestDeferredEditsWaitForCommit(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "n.db")
	b, s := createAt(t, path, "s", "g", "m")
	s.DeferEdits()
	before := b.Commits()
	if _, err := s.UpdateSection("Situation", "first", 1); err != nil {
		t.Fatal(err)
	}
	n, err := s.UpdateSection("Situation", "second", 1)
	if err != nil || n.Version != 2 {
		t.Fatalf("second edit = %+v, %v; want version 2", n, err)
	}
	if _, err := s.UpdateSection("Situation", strings.Repeat("x", MaxSection+1), 1); err == nil {
		t.Fatal("an edit over the limit was accepted while deferred")
	}
	if _, err := s.SetPlan([]PlanStep{{Text: "a"}, {Text: "b"}}, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateStep(2, StatusDoing, "", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateStep(3, StatusDone, "", 1); err == nil {
		t.Fatal("a step the staged plan does not have was accepted")
	}
	if got := b.Commits() - before; got != 0 {
		t.Fatalf("deferred edits made %d commits", got)
	}
	cur, _ := s.Notes()
	plan, _ := s.Plan()
	if !strings.Contains(cur.Text, "second") || len(plan) != 2 || plan[1].Status != StatusDoing {
		t.Fatalf("staged edits not read back: %q %+v", cur.Text, plan)
	}
	if _, err := s.Commit(Batch{Records: []Record{{Type: "text", Data: []byte(`{}`)}}}); err != nil {
		t.Fatal(err)
	}
	if got := b.Commits() - before; got != 1 {
		t.Fatalf("commit with staged edits made %d commits, want 1", got)
	}
	b.Close()

	b, err = Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s, err = b.Session("s")
	if err != nil {
		t.Fatal(err)
	}
	hist, err := s.NoteHistory()
	if err != nil || len(hist) != 2 || !strings.Contains(hist[0].Text, "first") || !strings.Contains(hist[1].Text, "second") {
		t.Fatalf("history after commit = %+v, %v; want both versions", hist, err)
	}
	plan, err = s.Plan()
	if err != nil || len(plan) != 2 || plan[1].Status != StatusDoing {
		t.Fatalf("plan after commit = %+v, %v", plan, err)
	}
	// Staged but never committed: gone with the process, the file unchanged.
	s.DeferEdits()
	if _, err := s.UpdateSection("Situation", "third", 2); err != nil {
		t.Fatal(err)
	}
	b.Close()
	b2, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	s2, _ := b2.Session("s")
	if n, _ := s2.Notes(); strings.Contains(n.Text, "third") {
		t.Fatal("an edit no Commit wrote is in the file")
	}
}
