//go:build !unix

package live

import "os"

// checkKeyFile has nothing to check where the system keeps no Unix owners and modes.
func checkKeyFile(string) error { return nil }

// signature is what tells that a file changed: size, time and mode.
func signature(path string) (fileSig, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileSig{}, err
	}
	return fileSig{size: fi.Size(), mod: fi.ModTime(), mode: fi.Mode()}, nil
}
