package notes

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/coplayhq/coplay/notes/record"
)

// A snapshot taken while the book is open for writing opens read-only elsewhere and
// holds every session committed before it, and nothing committed after.
func TestSnapshotWhileOpenForWriting(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	book, err := Open(filepath.Join(dir, "coplay.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer book.Close()
	if _, err := book.Create("first", "universe", "autopilot"); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	var size int64
	if _, err := book.Snapshot(&buf, func(n int64) error { size = n; return nil }); err != nil {
		t.Fatal(err)
	}
	if size != int64(buf.Len()) {
		t.Fatalf("the snapshot announced %d bytes and wrote %d", size, buf.Len())
	}
	if _, err := book.Create("second", "arena", "autopilot"); err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(dir, "copy.db")
	if err := os.WriteFile(copyPath, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	snap, err := OpenReadOnly(copyPath, nil)
	if err != nil {
		t.Fatalf("the snapshot does not open: %v", err)
	}
	defer snap.Close()
	list, err := snap.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Name != "first" {
		t.Fatalf("the snapshot lists %+v, want only the session made before it", list)
	}
}

// A commit with History puts its state into the history at its first record, as a
// step's commit does; later saves are the tail, and a History commit without records
// is only the tail (its key would be the last save's).
func TestCommitHistoryWithoutSteps(t *testing.T) {
	b, s := createAt(t, t.TempDir()+"/n.db", "served", "arena", "served")
	defer b.Close()
	notice := func() []Record { return []Record{{Type: record.TypeNotice, Data: []byte(`{"text":"act"}`)}} }
	states := []string{`{"gold":10,"msgs":["a"]}`, `{"gold":9,"msgs":["a","b"]}`, `{"gold":8,"msgs":["a","b","c"]}`, `{"gold":7}`}
	var keys []uint64
	for i, st := range states {
		var recs []Record
		if i < 3 {
			recs = notice()
		}
		got, err := s.Commit(Batch{Records: recs, State: []byte(st), History: i != 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) > 0 {
			keys = append(keys, got[0].Seq)
		}
		if cur, err := s.State(); err != nil || string(cur) != st {
			t.Fatalf("after save %d the state is %s (%v)", i, cur, err)
		}
	}
	for i, want := range map[int]string{0: states[0], 1: states[0], 2: states[2]} {
		if got, err := s.StateAt(keys[i]); err != nil || string(got) != want {
			t.Errorf("StateAt(%d) = %s (%v), want %s", keys[i], got, err, want)
		}
	}
}

// A save before any record is the history's first, keyed 1; a History commit whose
// first record is 1 must not replace it with its own edits.
func TestHistoryAfterASaveWithoutRecords(t *testing.T) {
	b, s := createAt(t, t.TempDir()+"/n.db", "served", "arena", "served")
	defer b.Close()
	if err := s.SaveState([]byte(`{"gold":10}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(Batch{Records: []Record{{Type: record.TypeNotice}}, State: []byte(`{"gold":9}`), History: true}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.State(); err != nil || string(got) != `{"gold":9}` {
		t.Fatalf("state %s (%v)", got, err)
	}
	if got, err := s.StateAt(1); err != nil || string(got) != `{"gold":10}` {
		t.Fatalf("StateAt(1) = %s (%v)", got, err)
	}
}
