package notes

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// The state history: every game state a session saved, so that a fork can start from
// the world as it stood at any step (fork.go). A save is keyed by the seq of the first
// record of the commit that held it (the next seq when the commit held none): the
// state as it stood before the record seq S was written is the latest save keyed ≤ S.
// The runner saves the state after each Act call and at the start of each step, so the
// save in the commit that holds a step's record is the world that step observed.
//
// Each save is stored as the chunks that changed since the save before it
// (statediff.go), DEFLATE-compressed; every snapEvery-th save, and any that changed
// too much for a diff to pay, whole. The bucket is made when the first save is written:
// sessions of older notebooks have none, and their forks start from the latest state.

var bucketSnaps = []byte("snaps") // seq (8 bytes) -> a save, whole or as edits

// snapEvery is how often a save is stored whole: it bounds how many edits rebuilding
// one applies (each a pass over the state).
const snapEvery = 128

// Flags of a stored save.
const (
	snapWhole = 1 << iota // the payload is the whole state, not edits
)

// kindSnap marks a sealed save.
const kindSnap byte = 'h'

// snapCache is the last save a session wrote, so the next one is diffed without
// rebuilding it from the file.
type snapCache struct {
	key   uint64
	raw   []byte
	chain int // saves since the last whole one
}

// putSnapshot stores raw as the save keyed key, as edits of the save before it when
// that pays. It is called in the transaction that writes the state.
func (s *Session) putSnapshot(sb *bolt.Bucket, key uint64, raw []byte) error {
	b, err := sb.CreateBucketIfNotExists(bucketSnaps)
	if err != nil {
		return err
	}
	b.FillPercent = 1.0 // appended only
	prev, chain, err := s.lastSnapshot(b)
	if err != nil {
		return err
	}
	flags := byte(0)
	var payload []byte
	if prev != nil && chain+1 < snapEvery {
		if edits, ok := diffState(prev, raw); ok {
			payload = edits
			chain++
		}
	}
	if payload == nil {
		flags, payload, chain = snapWhole, raw, 0
	}
	val := append([]byte{flags}, deflate(payload)...)
	if err := b.Put(seqKey(key), seal(kindSnap, seqKey(key), val)); err != nil {
		return err
	}
	s.snap = &snapCache{key: key, raw: append([]byte(nil), raw...), chain: chain}
	return nil
}

// lastSnapshot returns the newest save of b and how many edits it is from a whole one.
func (s *Session) lastSnapshot(b *bolt.Bucket) ([]byte, int, error) {
	k, _ := b.Cursor().Last()
	if k == nil {
		return nil, 0, nil
	}
	key := binary.BigEndian.Uint64(k)
	if c := s.snap; c != nil && c.key == key {
		return c.raw, c.chain, nil
	}
	return snapshotAt(b, key)
}

// snapshotAt rebuilds the latest save keyed ≤ seq, and how many edits it is from the
// whole save it was rebuilt from. It returns nil when there is none.
func snapshotAt(b *bolt.Bucket, seq uint64) (raw []byte, chain int, err error) {
	c := b.Cursor()
	k, v := c.Seek(seqKey(seq))
	switch {
	case k == nil:
		k, v = c.Last()
	case binary.BigEndian.Uint64(k) > seq:
		k, v = c.Prev()
	}
	if k == nil {
		return nil, 0, nil
	}
	// Walk back to the whole save, then apply the edits forward.
	var chainVals [][]byte
	var keys [][]byte
	for ; k != nil; k, v = c.Prev() {
		p, err := openSnap(k, v)
		if err != nil {
			return nil, 0, err
		}
		chainVals = append(chainVals, p)
		keys = append(keys, k)
		if p[0]&snapWhole != 0 {
			break
		}
	}
	if len(chainVals) == 0 || chainVals[len(chainVals)-1][0]&snapWhole == 0 {
		return nil, 0, fmt.Errorf("notes: state history: %w: no whole save before %d", ErrCorrupt, seq)
	}
	for i := len(chainVals) - 1; i >= 0; i-- {
		body, err := inflate(chainVals[i][1:], maxState)
		if err != nil {
			return nil, 0, fmt.Errorf("notes: state history at %d: %w: %w", binary.BigEndian.Uint64(keys[i]), ErrCorrupt, err)
		}
		if chainVals[i][0]&snapWhole != 0 {
			raw = body
			continue
		}
		if raw, err = patchState(raw, body); err != nil {
			return nil, 0, fmt.Errorf("notes: state history at %d: %w: %w", binary.BigEndian.Uint64(keys[i]), ErrCorrupt, err)
		}
	}
	return raw, len(chainVals) - 1, nil
}

func openSnap(k, v []byte) ([]byte, error) {
	p, sealed, err := unseal(kindSnap, k, v)
	switch {
	case err != nil:
		return nil, fmt.Errorf("notes: state history at %d: %w: %w", binary.BigEndian.Uint64(k), ErrCorrupt, err)
	case !sealed || len(p) < 1:
		return nil, fmt.Errorf("notes: state history at %d: %w: not a save", binary.BigEndian.Uint64(k), ErrCorrupt)
	}
	return p, nil
}

// ErrNoHistory is returned by StateAt for a session that kept no state history (one
// written by an older coplay, or a game that saves no state).
var ErrNoHistory = errors.New("no state history")

// StateAt returns the game's saved state as it stood before journal record seq was
// written: for a step's record, the world that step observed.
func (s *Session) StateAt(seq uint64) ([]byte, error) {
	var out []byte
	err := s.view(func(sb *bolt.Bucket) error {
		b := sb.Bucket(bucketSnaps)
		if b == nil {
			return ErrNoHistory
		}
		raw, _, err := snapshotAt(b, seq)
		if err != nil {
			return err
		}
		if raw == nil {
			return ErrNoHistory
		}
		out = raw
		return nil
	})
	return out, err
}

// copySnapshots copies the saves of from keyed < before into to, as they are stored.
func copySnapshots(from, to *bolt.Bucket, before uint64) error {
	src := from.Bucket(bucketSnaps)
	if src == nil {
		return nil
	}
	dst, err := to.CreateBucketIfNotExists(bucketSnaps)
	if err != nil {
		return err
	}
	dst.FillPercent = 1.0
	c := src.Cursor()
	for k, v := c.First(); k != nil && binary.BigEndian.Uint64(k) < before; k, v = c.Next() {
		if err := dst.Put(bytes.Clone(k), bytes.Clone(v)); err != nil {
			return err
		}
	}
	return nil
}
