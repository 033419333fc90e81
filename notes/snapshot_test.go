package notes

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
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
