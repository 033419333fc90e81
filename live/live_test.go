package live_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/live"
	"github.com/coplayhq/coplay/notes"
)

// owner opens a notebook for writing with one session and serves it, as a playing coplay does.
// The socket goes in a runtime directory of the test's own (t.Setenv), so the tests
// that use it (and playing) are serial: the socket's path comes from the environment.
func owner(t *testing.T) (string, *notes.Book, *live.Server) {
	t.Helper()
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	path := filepath.Join(t.TempDir(), "coplay.db")
	book, err := notes.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { book.Close() })
	if _, err := book.Create("playing-now", "arena", "autopilot"); err != nil {
		t.Fatal(err)
	}
	srv, err := live.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	srv.ServeSnapshots(book)
	srv.SetPlaying(func() []string { return []string{"playing-now"} })
	return path, book, srv
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// A second process reads the notebook while the owner holds its write lock: the copy
// opens, lists the sessions, and names the one played now.
func TestSnapshotWhileAnotherPlays(t *testing.T) {
	path, book, _ := owner(t)
	if _, err := notes.OpenReadOnly(path, &notes.Options{Timeout: 50 * time.Millisecond}); !errors.Is(err, notes.ErrLocked) {
		t.Fatalf("without the socket, a reader is locked out (%v): this test would prove nothing", err)
	}
	copyPath, playing, err := live.Snapshot(ctx(t), path)
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(copyPath)
	if len(playing) != 1 || playing[0] != "playing-now" {
		t.Fatalf("playing = %v", playing)
	}
	fi, err := os.Stat(copyPath)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("the copy's mode is %04o, want 0600", fi.Mode().Perm())
	}
	snap, err := notes.OpenReadOnly(copyPath, &notes.Options{Name: path})
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	if snap.Path() != path {
		t.Fatalf("the copy calls itself %s, want %s", snap.Path(), path)
	}
	list, err := snap.List()
	if err != nil || len(list) != 1 || list[0].Name != "playing-now" {
		t.Fatalf("List = %+v, %v", list, err)
	}
	// The owner keeps writing after the copy.
	if _, err := book.Create("after", "arena", "autopilot"); err != nil {
		t.Fatal(err)
	}
}

// The socket and its directory are the user's alone.
func TestSocketIsPrivate(t *testing.T) {
	_, _, srv := owner(t)
	fi, err := os.Stat(srv.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket mode %v, want a 0600 socket", fi.Mode())
	}
	di, err := os.Stat(filepath.Dir(srv.Path()))
	if err != nil {
		t.Fatal(err)
	}
	if di.Mode().Perm() != 0o700 {
		t.Fatalf("directory mode %04o, want 0700", di.Mode().Perm())
	}
}

// A directory of ours left open to others is closed before a socket goes in it.
func TestOpenDirectoryIsClosed(t *testing.T) {
	base := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", base)
	if err := os.Mkdir(filepath.Join(base, "coplay"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(base, "coplay"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := live.Dir()
	if err != nil {
		t.Fatal(err)
	}
	di, _ := os.Stat(dir)
	if di.Mode().Perm() != 0o700 {
		t.Fatalf("mode %04o after Dir, want 0700", di.Mode().Perm())
	}
}

// Nobody plays: no socket, or a socket its coplay left behind when it died.
func TestNoOwner(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	path := filepath.Join(t.TempDir(), "coplay.db")
	if _, _, err := live.Snapshot(ctx(t), path); !errors.Is(err, live.ErrNoOwner) {
		t.Fatalf("no socket: %v, want ErrNoOwner", err)
	}
	sock, err := live.SocketPath(path)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if _, _, err := live.Snapshot(ctx(t), path); !errors.Is(err, live.ErrNoOwner) {
		t.Fatalf("stale socket: %v, want ErrNoOwner", err)
	}
	// The next owner replaces the stale socket.
	srv, err := live.Listen(path)
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	srv.Close()
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Close left the socket: %v", err)
	}
}

// An operation the owner does not serve is an error in words, not a hang.
func TestUnknownOperation(t *testing.T) {
	path, _, _ := owner(t)
	_, _, _, err := live.Dial(ctx(t), path, live.Request{Op: "teleport"})
	if err == nil || !strings.Contains(err.Error(), `does not serve "teleport"`) {
		t.Fatalf("err = %v", err)
	}
}

// Two paths to one notebook find one socket.
func TestSocketPathFollowsLinks(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	dir := t.TempDir()
	real := filepath.Join(dir, "coplay.db")
	if err := os.WriteFile(real, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.db")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	a, _ := live.SocketPath(real)
	b, _ := live.SocketPath(link)
	if a != b {
		t.Fatalf("%s and %s", a, b)
	}
}
