package notes

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Versions of the notes and of the plan are kept as a chain of edits: every
// checkpointEvery-th version whole, the others as the one span that changed from the
// version before (a section rewrite or a status change is one span). Any version can be
// rebuilt from the checkpoint at or before it. Versions written before this format
// (format 1) are whole JSON values and act as checkpoints.

// checkpointEvery is how often a version is stored whole: it bounds how many edits a
// read applies.
const checkpointEvery = 32

// textVersion is one rebuilt version.
type textVersion struct {
	Text []byte
	Step int
	Time time.Time
}

// Flags of a stored version.
const (
	versionWhole    = 1 << iota // the payload is the whole text (a checkpoint)
	versionDeflated             // the text is DEFLATE-compressed
)

// encodeVersion stores v as a checkpoint (prev == nil) or as the span by which it
// differs from prev:
//
//	flags, zigzag varint step, zigzag varint unix nanoseconds,
//	whole: the text; edit: uvarint prefix length, uvarint suffix length, middle
func encodeVersion(key []byte, v textVersion, prev []byte) []byte {
	var p []byte
	flags := byte(0)
	if prev == nil {
		flags = versionWhole
	}
	p = append(p, flags)
	p = binary.AppendVarint(p, int64(v.Step))
	p = binary.AppendVarint(p, v.Time.UnixNano())
	if prev == nil {
		if z := deflate(v.Text); len(z) < len(v.Text) {
			p[0] |= versionDeflated
			p = append(p, z...)
		} else {
			p = append(p, v.Text...)
		}
		return seal(kindText, key, p)
	}
	pre := 0
	for pre < len(prev) && pre < len(v.Text) && prev[pre] == v.Text[pre] {
		pre++
	}
	suf := 0
	for suf < len(prev)-pre && suf < len(v.Text)-pre && prev[len(prev)-1-suf] == v.Text[len(v.Text)-1-suf] {
		suf++
	}
	p = binary.AppendUvarint(p, uint64(pre))
	p = binary.AppendUvarint(p, uint64(suf))
	p = append(p, v.Text[pre:len(v.Text)-suf]...)
	return seal(kindText, key, p)
}

// decodeVersion applies a stored version to prev (the version before it, nil when
// none is known) and returns the result. whole reports whether it was a checkpoint.
func decodeVersion(key, val, prev []byte) (v textVersion, whole bool, err error) {
	defer faultAt(&err, func() string {
		if len(key) == 8 {
			return fmt.Sprintf("version %d", binary.BigEndian.Uint64(key))
		}
		return fmt.Sprintf("a version whose key is damaged (%x)", key[:min(len(key), 16)])
	})
	p, sealed, err := unseal(kindText, key, val)
	if err != nil {
		return v, false, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if !sealed {
		return v, true, errLegacy
	}
	if len(p) < 1 {
		return v, false, fmt.Errorf("%w: empty version", ErrCorrupt)
	}
	flags := p[0]
	p = p[1:]
	step, n := binary.Varint(p)
	if n <= 0 {
		return v, false, fmt.Errorf("%w: bad step", ErrCorrupt)
	}
	p = p[n:]
	nanos, n := binary.Varint(p)
	if n <= 0 {
		return v, false, fmt.Errorf("%w: bad time", ErrCorrupt)
	}
	p = p[n:]
	v.Step, v.Time = int(step), time.Unix(0, nanos)
	if flags&^(versionWhole|versionDeflated) != 0 || flags == versionDeflated {
		return v, false, fmt.Errorf("%w: unknown flags %#x", ErrCorrupt, flags)
	}
	if flags&versionDeflated != 0 {
		text, err := inflate(p, maxVersion)
		if err != nil {
			return v, false, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		v.Text = text
		return v, true, nil
	}
	if flags&versionWhole != 0 {
		v.Text = append([]byte(nil), p...)
		return v, true, nil
	}
	if prev == nil {
		return v, false, errors.New("an edit without the version before it")
	}
	pre, n := binary.Uvarint(p)
	if n <= 0 {
		return v, false, fmt.Errorf("%w: bad prefix", ErrCorrupt)
	}
	p = p[n:]
	suf, n := binary.Uvarint(p)
	if n <= 0 || pre > uint64(len(prev)) || suf > uint64(len(prev))-pre {
		return v, false, fmt.Errorf("%w: bad suffix", ErrCorrupt)
	}
	p = p[n:]
	out := make([]byte, 0, int(pre)+len(p)+int(suf))
	out = append(out, prev[:pre]...)
	out = append(out, p...)
	out = append(out, prev[len(prev)-int(suf):]...)
	v.Text = out
	return v, false, nil
}

// maxVersion bounds what a stored version may inflate to.
const maxVersion = 16 << 20

// errLegacy marks a version stored whole as JSON (format 1); the caller decodes it.
var errLegacy = errors.New("legacy version")

// versions reads the versions of a history bucket in order, calling fn with each
// one's key and value rebuilt by decode's caller. legacy turns a format 1 value into a
// textVersion.
func versions(b *bolt.Bucket, from uint64, legacy func(k, v []byte) (textVersion, error), fn func(k []byte, v textVersion) error) (err error) {
	at := from
	defer faultAt(&err, func() string { return fmt.Sprintf("the versions from %d on", at) })
	c := b.Cursor()
	// Start at the checkpoint at or before from.
	start := from - (from-1)%checkpointEvery
	if from == 0 {
		start = 1
	}
	var prev []byte
	for k, val := c.Seek(seqKey(start)); k != nil; k, val = c.Next() {
		if len(k) == 8 {
			at = binary.BigEndian.Uint64(k)
		}
		v, _, err := decodeVersion(k, val, prev)
		if errors.Is(err, errLegacy) {
			v, err = legacy(k, val)
		}
		if err != nil {
			return fmt.Errorf("version %d: %w", binary.BigEndian.Uint64(k), err)
		}
		prev = v.Text
		if binary.BigEndian.Uint64(k) >= from {
			if err := fn(k, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// latestVersion rebuilds the newest version of a history bucket; ok is false when the
// bucket is empty.
func latestVersion(b *bolt.Bucket, legacy func(k, v []byte) (textVersion, error)) (v textVersion, seq uint64, ok bool, err error) {
	k, _ := b.Cursor().Last()
	if k == nil {
		return v, 0, false, nil
	}
	last := binary.BigEndian.Uint64(k)
	err = versions(b, last, legacy, func(k []byte, got textVersion) error {
		v, seq, ok = got, binary.BigEndian.Uint64(k), true
		return nil
	})
	return v, seq, ok, err
}

// putVersion stores version seq of a history bucket, given the text of version seq-1
// (nil when there is none).
func putVersion(b *bolt.Bucket, seq uint64, v textVersion, prev []byte) error {
	b.FillPercent = 1.0 // versions are only ever appended
	if (seq-1)%checkpointEvery == 0 {
		prev = nil
	}
	return b.Put(seqKey(seq), encodeVersion(seqKey(seq), v, prev))
}

// jsonVersion is how format 1 stored notes and plan versions: JSON with the text and
// its step and time.
func jsonVersion[T any](get func(T) (text []byte, step int, t time.Time)) func(k, v []byte) (textVersion, error) {
	return func(k, v []byte) (textVersion, error) {
		var x T
		if err := json.Unmarshal(v, &x); err != nil {
			return textVersion{}, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		text, step, t := get(x)
		return textVersion{Text: text, Step: step, Time: t}, nil
	}
}
