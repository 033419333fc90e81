//go:build unix

package live

import (
	"fmt"
	"os"
	"syscall"
)

// checkPrivate refuses a directory that is a link, belongs to another user, or that
// others may enter; one of this user's that is merely too open is closed (0700).
func checkPrivate(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("live: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("live: %s is not a directory: coplay will not put its socket there", dir)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("live: %s belongs to user %d, not to you: coplay will not put its socket there", dir, st.Uid)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("live: %s is open to other users (mode %04o) and cannot be closed: %w", dir, fi.Mode().Perm(), err)
		}
	}
	return nil
}
