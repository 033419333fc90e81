package agent

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/coplayhq/coplay/notes"
)

// openFixture opens a copy of a notebook from testdata/notebooks (in a temporary
// directory, so that the test may write to it) and its one session; it is closed when
// the test ends.
func openFixture(tb testing.TB, name string) (*notes.Book, *notes.Session) {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "notebooks", name))
	if err != nil {
		tb.Fatalf("fixture notebook: %v", err)
	}
	path := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		tb.Fatal(err)
	}
	book, err := notes.Open(path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { book.Close() })
	sess, err := book.Session("")
	if err != nil {
		tb.Fatal(err)
	}
	return book, sess
}
