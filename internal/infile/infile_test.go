package infile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadRegularFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte("[defaults]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	data, err := Read(path, Small)
	if err != nil || string(data) != "[defaults]\n" {
		t.Fatalf("Read = %q, %v", data, err)
	}
	// Exactly at the limit is read; one byte over is refused, naming the limit.
	if _, err := Read(path, 11); err != nil {
		t.Errorf("a file of exactly the limit: %v", err)
	}
	_, err = Read(path, 10)
	if err == nil || !strings.Contains(err.Error(), path+" is larger than 10 bytes") {
		t.Errorf("a file over the limit: %v", err)
	}
}

func TestReadRefusesTheLargeAndTheIrregular(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.toml")
	if err := os.WriteFile(big, make([]byte, Small+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(big, Small); err == nil || !strings.Contains(err.Error(), "larger than 1 MiB") {
		t.Errorf("a file over 1 MiB: %v", err)
	}
	if _, err := Read(dir, Small); err == nil || !strings.Contains(err.Error(), "is a directory, not a regular file") {
		t.Errorf("a directory: %v", err)
	}
	if _, err := Read(filepath.Join(dir, "none"), Small); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{Small: "1 MiB", Large: "64 MiB", 512 << 10: "512 KiB", 1000: "1000 bytes"} {
		if got := Limit(n); got != want {
			t.Errorf("Limit(%d) = %q, want %q", n, got, want)
		}
	}
}
