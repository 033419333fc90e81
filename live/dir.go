package live

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// ErrNoOwner means no coplay process serves the notebook: nobody plays in it now (or
// the one that did ended without removing its socket).
var ErrNoOwner = errors.New("no coplay is playing in this notebook")

// Dir returns the directory that holds coplay's sockets, creating it: coplay/ under
// $XDG_RUNTIME_DIR (a directory the system gives each user), else coplay-UID under the
// system's temporary directory. It must be a directory of this user's that nobody else
// may enter; one that is not is an error, never silently used.
func Dir() (string, error) {
	var dir string
	if base := os.Getenv("XDG_RUNTIME_DIR"); base != "" && filepath.IsAbs(base) {
		dir = filepath.Join(base, "coplay")
	} else {
		dir = filepath.Join(os.TempDir(), "coplay-"+strconv.Itoa(os.Getuid()))
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("live: creating %s: %w", dir, err)
	}
	if err := checkPrivate(dir); err != nil {
		return "", err
	}
	return dir, nil
}

// SocketPath returns the socket of the coplay that plays in the notebook at notebook:
// a name made from the notebook's absolute path with links resolved, so that every
// way of naming one file finds the same socket, and short enough for any system's
// limit on socket paths.
func SocketPath(notebook string) (string, error) {
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(notebook)
	if err != nil {
		return "", fmt.Errorf("live: %w", err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(dir, hex.EncodeToString(sum[:8])+".sock"), nil
}
