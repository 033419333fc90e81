package notes

import (
	"fmt"
	"io"

	bolt "go.etcd.io/bbolt"
)

// Snapshot writes a consistent copy of the whole notebook file to w, as of one moment,
// while the book stays open for writing. A second coplay process reads such a copy (see
// package live) instead of waiting for the writer's lock, which it would never get while
// a game is open.
//
// The copy is taken in one read transaction: bbolt lets readers and its one writer run
// together, so the writer's commits, and their fsyncs, go on while it runs, except one
// that must grow the file: that waits for every read transaction to end (the file is
// mapped again). So w must take bytes quickly, a file rather than a socket: package
// live copies to a private file first and streams that.
// What the copy holds was committed; nothing half-written is in it. The copy carries
// only what the book stored, which is already scrubbed of the secrets it was told of.
//
// If size is not nil it is called with the copy's length before the first byte is
// written (a socket sends it ahead, so the reader can tell a copy cut short); an error
// it returns ends the snapshot.
func (b *Book) Snapshot(w io.Writer, size func(int64) error) (n int64, err error) {
	err = b.view(func(tx *bolt.Tx) error {
		if size != nil {
			if err := size(tx.Size()); err != nil {
				return err
			}
		}
		var werr error
		n, werr = tx.WriteTo(w)
		return werr
	})
	if err != nil {
		return n, fmt.Errorf("notes: snapshot of %s: %w", b.path, err)
	}
	return n, nil
}
