//go:build unix

package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// config check reads a regular file of at most 1 MiB: an endless device, a FIFO with
// no writer and a directory are refused at once, in words.
func TestLoadIsBounded(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.toml")
	if err := os.WriteFile(big, []byte("# "+strings.Repeat("x", 1<<20)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{big: big + " is larger than 1 MiB", dir: dir + " is a directory, not a regular file"}
	fifo := filepath.Join(dir, "fifo.toml")
	if err := syscall.Mkfifo(fifo, 0o600); err == nil {
		cases[fifo] = fifo + " is a named pipe (FIFO), not a regular file"
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases["/dev/zero"] = "/dev/zero is a device, not a regular file"
	}
	for path, want := range cases {
		if _, err := Load(path, true); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load(%s) = %v, want %q", path, err, want)
		}
	}
}
