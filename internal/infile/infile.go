// Package infile reads a file a person hands coplay (config.toml, keys.json, a
// cassette, an OpenAPI spec) within bounds: a regular file of at most a given size.
// A FIFO, a device or a directory is refused in words rather than read: a FIFO with no
// writer would block for ever, and /dev/zero never ends. It imports nothing of
// coplay's, so every package may use it.
package infile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Common limits.
const (
	// Small is for files a person writes by hand: config.toml, keys.json.
	Small = 1 << 20
	// Large is for files a program may write at length: a cassette, an OpenAPI spec.
	Large = 64 << 20
)

// Read returns the contents of the regular file at path, refusing anything else and a
// file over limit bytes. Errors name the file; one from opening it (a missing file:
// errors.Is(err, fs.ErrNotExist)) is the *fs.PathError as it is.
func Read(path string, limit int64) ([]byte, error) {
	// O_NONBLOCK: opening a FIFO waits for a writer otherwise. It changes nothing for
	// a regular file (and is ignored where there are no FIFOs).
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if kind := notRegular(fi.Mode()); kind != "" {
		return nil, fmt.Errorf("%s is %s, not a regular file", path, kind)
	}
	if fi.Size() > limit {
		return nil, tooLarge(path, limit)
	}
	// The size said is not trusted: the file may grow, or be one that says 0 (/proc).
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(path, limit)
	}
	return data, nil
}

// notRegular names what a file of mode m is when it is not a regular file, else "".
func notRegular(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return ""
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&(fs.ModeDevice|fs.ModeCharDevice) != 0:
		return "a device"
	}
	return "a special file"
}

func tooLarge(path string, limit int64) error {
	return fmt.Errorf("%s is larger than %s, the most coplay reads of this file", path, Limit(limit))
}

// Limit says a limit of n bytes in the largest whole unit: 1 MiB, 64 MiB, 512 KiB.
func Limit(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
