//go:build unix

package infile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO with no writer and an endless device are refused at once, not waited on.
func TestReadRefusesAFIFOAndADevice(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "keys.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	if _, err := Read(fifo, Small); err == nil || !strings.Contains(err.Error(), fifo+" is a named pipe (FIFO), not a regular file") {
		t.Errorf("a FIFO: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	if _, err := Read("/dev/zero", Small); err == nil || !strings.Contains(err.Error(), "/dev/zero is a device, not a regular file") {
		t.Errorf("/dev/zero: %v", err)
	}
}
