package notes

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

func tempPath(t testing.TB) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "coplay.db")
}

func openBook(t testing.TB, path string) *Book {
	t.Helper()
	b, err := Open(path, &Options{Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func TestOpenCreatesPrivateFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sub", "dir", "coplay.db")
	b := openBook(t, path)
	if b.Path() != path {
		t.Errorf("Path() = %q, want %q", b.Path(), path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("file mode = %o, want 600", perm)
	}
	di, err := os.Stat(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if perm := di.Mode().Perm(); perm != 0o700 {
		t.Errorf("directory mode = %o, want 700", perm)
	}
}

func TestOpenLockedGivesClearError(t *testing.T) {
	t.Parallel()
	path := tempPath(t)
	openBook(t, path)
	start := time.Now()
	_, err := Open(path, &Options{Timeout: 150 * time.Millisecond})
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open: err = %v, want ErrLocked", err)
	}
	if want := path + " is in use by another coplay"; err.Error() != want {
		t.Errorf("message = %q, want %q", err.Error(), want)
	}
	// The wait is bounded by the timeout rather than hanging.
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("second Open waited %v", d)
	}
}

func TestOpenRejectsForeignAndCorruptFiles(t *testing.T) {
	t.Parallel()
	valid := func(t *testing.T, path string) {
		b, s := createAt(t, path, "x", "g", "m")
		fill(t, s, 3000)
		b.Close()
	}
	cases := []struct {
		name    string
		make    func(t *testing.T, path string)
		message string
	}{
		{"text file", func(t *testing.T, path string) {
			os.WriteFile(path, []byte("my shopping list\nmilk\n"), 0o644)
		}, "is not a coplay notebook or is damaged"},
		{"random bytes", func(t *testing.T, path string) {
			p := make([]byte, 16384)
			for i := range p {
				p[i] = byte(i*7919 + i/3)
			}
			os.WriteFile(path, p, 0o644)
		}, "is not a coplay notebook or is damaged"},
		{"another program's bbolt file", func(t *testing.T, path string) {
			db, err := bolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			db.Update(func(tx *bolt.Tx) error {
				b, _ := tx.CreateBucket([]byte("widgets"))
				return b.Put([]byte("a"), []byte("b"))
			})
			db.Close()
		}, "is not a coplay notebook: it is a bbolt database of another program"},
		{"truncated notebook", func(t *testing.T, path string) {
			valid(t, path)
			fi, _ := os.Stat(path)
			os.Truncate(path, fi.Size()/2)
		}, "is damaged"},
		{"both meta pages zeroed", func(t *testing.T, path string) {
			valid(t, path)
			f, _ := os.OpenFile(path, os.O_RDWR, 0)
			f.WriteAt(make([]byte, 2*4096), 0)
			f.Close()
		}, "is not a coplay notebook or is damaged"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := tempPath(t)
			c.make(t, path)
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Open(path, &Options{Timeout: 100 * time.Millisecond})
			if err == nil {
				b.Close()
				t.Fatal("Open succeeded on a bad file")
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("err = %v, want ErrCorrupt", err)
			}
			if !strings.HasPrefix(err.Error(), path+" ") || !strings.Contains(err.Error(), c.message) {
				t.Errorf("message = %q, want the path and %q", err.Error(), c.message)
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(before, after) {
				t.Error("Open modified the bad file")
			}
		})
	}
}

// A zero-byte file is a truncated notebook (coplay writes a new one whole before Open
// returns), never an empty notebook to fill: it is reported and left alone.
func TestOpenEmptyFileIsDamaged(t *testing.T) {
	t.Parallel()
	path := tempPath(t)
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, open := range map[string]func(string, *Options) (*Book, error){"Open": Open, "OpenReadOnly": OpenReadOnly} {
		b, err := open(path, nil)
		if err == nil {
			b.Close()
			t.Fatalf("%s of a zero-byte file succeeded", name)
		}
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "0 bytes") {
			t.Errorf("%s: %v, want ErrCorrupt naming the file and its emptiness", name, err)
		}
	}
	if fi, _ := os.Stat(path); fi.Size() != 0 {
		t.Error("the empty file was written to")
	}
}

// OpenReadOnly never writes: the file's bytes and time stay as they were, every read
// works, and writes fail with ErrReadOnly.
func TestOpenReadOnlyNeverWrites(t *testing.T) {
	t.Parallel()
	path := tempPath(t)
	b := openBook(t, path)
	s, _ := b.Create("s", "g", "m")
	mustAppend(t, s, Record{Type: "text", Data: json.RawMessage(`{"text":"hi"}`)})
	if _, err := s.UpdateSection("Situation", "here", 1); err != nil {
		t.Fatal(err)
	}
	b.Close()
	before, _ := os.ReadFile(path)
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(path, past, past)

	ro, err := OpenReadOnly(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := ro.Session("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ro.List(); err != nil {
		t.Fatal(err)
	}
	if err := rs.Export(io.Discard); err != nil {
		t.Fatal(err)
	}
	if n, err := rs.Notes(); err != nil || n.Version != 1 {
		t.Fatalf("Notes() = %+v, %v", n, err)
	}
	if _, err := rs.Append(Record{Type: "text"}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Append on a read-only book: %v, want ErrReadOnly", err)
	}
	if err := ro.Delete("s"); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Delete on a read-only book: %v, want ErrReadOnly", err)
	}
	ro.Close()
	after, _ := os.ReadFile(path)
	fi, _ := os.Stat(path)
	if !bytes.Equal(before, after) || !fi.ModTime().Equal(past) {
		t.Error("opening read-only changed the file")
	}
	if _, err := OpenReadOnly(filepath.Join(t.TempDir(), "none.db"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("OpenReadOnly of a missing file: %v, want ErrNotExist", err)
	}
}

// A read-only file system and a permission problem are named as such, never as damage.
func TestOpenErrorsNameReadOnlyAndPermission(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cause error
		want  string
	}{
		{&os.PathError{Op: "open", Path: "x", Err: syscall.EROFS}, "read-only file system"},
		{&os.PathError{Op: "open", Path: "x", Err: syscall.EACCES}, "permission denied"},
	} {
		err := openError("/data/coplay.db", false, c.cause)
		if !errors.Is(err, ErrReadOnly) || errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.want) ||
			!strings.Contains(err.Error(), "/data/coplay.db") {
			t.Errorf("%v became %v, want ErrReadOnly saying %q", c.cause, err, c.want)
		}
	}
	if os.Geteuid() == 0 {
		t.Skip("running as root: file modes do not stop root")
	}
	path := tempPath(t)
	b := openBook(t, path)
	b.Close()
	os.Chmod(path, 0o400)
	if _, err := Open(path, nil); !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("Open of a file this user may not write: %v", err)
	}
	if b, err := OpenReadOnly(path, nil); err != nil {
		t.Errorf("OpenReadOnly of a file this user may read: %v", err)
	} else {
		b.Close()
	}
}

// Serial: DefaultPath reads XDG_DATA_HOME and HOME from the process (t.Setenv).
func TestDefaultPath(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_DATA_HOME", dir)
	got, err := DefaultPath()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "coplay", "coplay.db"); got != want {
		t.Errorf("DefaultPath() = %q, want %q", got, want)
	}
	if fi, err := os.Stat(filepath.Dir(got)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("directory not created 0700: %v %v", fi, err)
	}

	t.Setenv("XDG_DATA_HOME", "relative/ignored")
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "cfg"))
	t.Setenv("HOME", dir)
	got, err = DefaultPath()
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, ".local", "share", "coplay", "coplay.db")
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		cfg, _ := os.UserConfigDir()
		want = filepath.Join(cfg, "coplay", "coplay.db")
	}
	if got != want {
		t.Errorf("with relative XDG_DATA_HOME: DefaultPath() = %q, want %q", got, want)
	}
}

// A notebook others may read (created by hand, copied in, or from a coplay before
// notebooks were made private) is made 0600 once coplay opens it, and the person is told.
func TestOpenMakesAnExistingNotebookPrivate(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no permission bits")
	}
	path := tempPath(t)
	openBook(t, path).Close()
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	var told []string
	b, err := Open(path, &Options{Notice: func(text string) { told = append(told, text) }})
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("mode after Open = %04o, want 0600", perm)
	}
	want := "the notebook " + path + " was readable by others (0644); it is now 0600"
	if len(told) != 1 || told[0] != want {
		t.Errorf("told %q, want [%q]", told, want)
	}
	// Once private, nothing more is said.
	told = nil
	openBook(t, path).Close()
	if len(told) != 0 {
		t.Errorf("a private notebook: told %q", told)
	}
	// A read-only open (coplay sessions list) makes it private too, its contents untouched.
	if err := os.Chmod(path, 0o660); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	ro, err := OpenReadOnly(path, &Options{Notice: func(text string) { told = append(told, text) }})
	if err != nil {
		t.Fatal(err)
	}
	ro.Close()
	after, _ := os.ReadFile(path)
	want = "the notebook " + path + " was readable and writable by others (0660); it is now 0600"
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 || len(told) != 1 || told[0] != want || !bytes.Equal(before, after) {
		t.Errorf("OpenReadOnly: mode %04o, told %q, contents kept %v; want 0600, %q", fi.Mode().Perm(), told, bytes.Equal(before, after), want)
	}
}
