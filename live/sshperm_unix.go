//go:build unix

package live

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// checkKeyFile refuses an authorized_keys file that someone else could have written, as
// sshd's StrictModes does: the file and its directory must belong to this user (or to
// root) and be writable by nobody else. Otherwise anyone who could write there could add
// a key, and with it steer the game.
func checkKeyFile(path string) error {
	for _, p := range []string{path, filepath.Dir(path)} {
		fi, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("reading SSH keys: %w", err)
		}
		what := "the SSH keys file " + path
		if p != path {
			what = "the directory of the SSH keys file " + path
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() && st.Uid != 0 {
			return fmt.Errorf("%s belongs to user %d, not to you: coplay will not take keys from it", what, st.Uid)
		}
		if fi.Mode().Perm()&0o022 != 0 {
			return fmt.Errorf("%s is writable by others (mode %04o): coplay will not take keys that anyone may add (chmod go-w %s)", what, fi.Mode().Perm(), p)
		}
	}
	return nil
}

// signature is what tells that a file changed: size, time, mode, owner and inode.
func signature(path string) (fileSig, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileSig{}, err
	}
	sig := fileSig{size: fi.Size(), mod: fi.ModTime(), mode: fi.Mode()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		sig.owner = fmt.Sprintf("%d:%d:%d", st.Uid, st.Dev, st.Ino)
	}
	return sig, nil
}
