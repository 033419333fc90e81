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
const snapEvery = 512

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

// putState stores raw (already scrubbed) as the game's state. A save in a commit that
// begins a step (step is true) goes into the state history, keyed key: it is the world
// that step observed, which a fork starts from. Any other save (after an Act call, when
// the run stops) is the tail: the state as it is now, kept as the changes from the
// history's newest save and replaced by the next save, since only the state at the start
// of a step is ever asked for again. The state (Session.State) is the tail when there is
// one, else the history's newest save; the whole state an older notebook kept in its
// state bucket is removed once the history has one. An unchanged state is not written.
func (s *Session) putState(sb *bolt.Bucket, key uint64, raw []byte, step bool) error {
	b, err := sb.CreateBucketIfNotExists(bucketSnaps)
	if err != nil {
		return err
	}
	newest, _, err := s.lastSnapshot(b)
	if err != nil {
		return err
	}
	if k, _ := b.Cursor().Last(); step && k != nil && binary.BigEndian.Uint64(k) >= key {
		// The history's newest save has this key already (it was saved before any
		// record): replacing it with its own edits would lose it, so this is the tail.
		step = false
	}
	st := sb.Bucket(bucketState)
	hasTail := st.Get(keyTail) != nil
	switch {
	case newest != nil && bytes.Equal(newest, raw):
		if hasTail {
			return st.Delete(keyTail) // back to the newest save
		}
		return nil
	case !step && newest != nil:
		edits, ok := diffState(newest, raw)
		flags := byte(0)
		if !ok {
			flags, edits = snapWhole, raw
		}
		return st.Put(keyTail, seal(kindSnap, keyTail, append([]byte{flags}, deflate(edits)...)))
	}
	if err := s.putSnapshot(sb, key, raw); err != nil {
		return err
	}
	if hasTail {
		if err := st.Delete(keyTail); err != nil {
			return err
		}
	}
	if st.Get(keyState) != nil {
		return st.Delete(keyState)
	}
	return nil
}

// keyTail, in the state bucket, holds the tail of the state history (putState).
var keyTail = []byte("tail")

// latestState returns the state: the tail applied to the history's newest save, or that
// save; ok is false when the session has no history.
func latestState(sb *bolt.Bucket) (raw []byte, ok bool, err error) {
	b := sb.Bucket(bucketSnaps)
	if b == nil {
		return nil, false, nil
	}
	k, _ := b.Cursor().Last()
	if k == nil {
		return nil, false, nil
	}
	if raw, _, err = snapshotAt(b, binary.BigEndian.Uint64(k)); err != nil {
		return nil, false, err
	}
	if v := sb.Bucket(bucketState).Get(keyTail); v != nil {
		p, err := openSnap(keyTail, v)
		if err != nil {
			return nil, false, err
		}
		body, err := inflate(p[1:], maxState)
		if err != nil {
			return nil, false, fmt.Errorf("notes: the game state: %w: %w", ErrCorrupt, err)
		}
		if p[0]&snapWhole != 0 {
			raw = body
		} else if raw, err = patchState(raw, body); err != nil {
			return nil, false, fmt.Errorf("notes: the game state: %w: %w", ErrCorrupt, err)
		}
	}
	return append([]byte{}, raw...), true, nil
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
	raw, chain, err := snapshotAt(b, key)
	if err == nil && raw != nil {
		s.snap = &snapCache{key: key, raw: raw, chain: chain}
	}
	return raw, chain, err
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
	where := "the state's tail"
	if len(k) == 8 {
		where = fmt.Sprintf("state history at %d", binary.BigEndian.Uint64(k))
	}
	switch {
	case err != nil:
		return nil, fmt.Errorf("notes: %s: %w: %w", where, ErrCorrupt, err)
	case !sealed || len(p) < 1:
		return nil, fmt.Errorf("notes: %s: %w: not a save", where, ErrCorrupt)
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
