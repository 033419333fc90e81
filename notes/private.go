package notes

import (
	"fmt"
	"io/fs"
	"os"
	"runtime"
)

// makePrivate makes the notebook at path, of mode, 0600 when other users may read,
// write or run it, and tells the person through opts.Notice: the notebook holds
// everything played, and a new one is created 0600. A chmod that fails (a file owned
// by another user) is said too, unless readOnly (a backup on a read-only disk would say
// it at every look); the notebook opens all the same. Windows keeps no such bits.
func makePrivate(path string, mode fs.FileMode, opts *Options, readOnly bool) {
	perm := mode.Perm()
	if perm&0o077 == 0 || runtime.GOOS == "windows" {
		return
	}
	open := "readable by others"
	switch {
	case perm&0o044 != 0 && perm&0o022 != 0:
		open = "readable and writable by others"
	case perm&0o044 == 0 && perm&0o022 != 0:
		open = "writable by others"
	case perm&0o066 == 0:
		open = "open to others"
	}
	text := fmt.Sprintf("the notebook %s was %s (%04o); it is now 0600", path, open, perm)
	if err := os.Chmod(path, 0o600); err != nil {
		if readOnly {
			return
		}
		text = fmt.Sprintf("the notebook %s is %s (%04o) and could not be made 0600: %v", path, open, perm, err)
	}
	if opts != nil && opts.Notice != nil {
		opts.Notice(text)
		return
	}
	fmt.Fprintln(os.Stderr, "coplay: "+text)
}
