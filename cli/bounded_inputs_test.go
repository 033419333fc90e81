//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/coplayhq/coplay/notes"
)

// config check reads a bounded regular file: /dev/zero and a FIFO with no writer are
// refused at once, in words, and exit 1; neither is read.
func TestConfigCheckRefusesDevicesAndFIFOs(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "config.toml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	for path, want := range map[string]string{
		"/dev/zero": "/dev/zero is a device, not a regular file",
		fifo:        fifo + " is a named pipe (FIFO), not a regular file",
	} {
		var out, errOut strings.Builder
		if code := run([]string{"config", "check", path}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), want) {
			t.Errorf("config check %s: exit %d, stderr %q; want 1 and %q", path, code, errOut.String(), want)
		}
	}
}

// A notebook others may read is made 0600 when coplay opens it, and the person is told
// on stderr.
func TestOpenNotebookIsMadePrivate(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "coplay.db")
	book, err := notes.Open(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	book.Close()
	if err := os.Chmod(data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr := coplayRun(t, []string{"XDG_CONFIG_HOME=" + t.TempDir(), "OPENAI_API_KEY="}, "", "run", "--data", data, "--steps", "1", "--no-rate-limit")
	if want := "coplay: the notebook " + data + " was readable by others (0644); it is now 0600"; !strings.Contains(stderr, want) {
		t.Errorf("stderr:\n%s\nwant a line %q", stderr, want)
	}
	if fi, err := os.Stat(data); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("notebook mode after a run: %v, %v; want 0600", fi.Mode().Perm(), err)
	}
}
