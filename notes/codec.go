package notes

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"sync"
	"time"

	"github.com/coplayhq/coplay/notes/record"
)

// The notebook's values are stored in one of two encodings:
//
//   - legacy (format 1, notebooks written before the compact format): plain JSON,
//     starting with '{'. It is still read, never written.
//   - sealed (format 2): sealMagic, a kind byte, the payload, and a CRC32C of the
//     key, the kind and the payload. A flipped byte anywhere in the value (or a value
//     moved to another key) fails the checksum and is reported as damage naming the
//     session and the record: it is never read back silently altered.
//
// 0xC0 can begin neither JSON nor valid UTF-8, so the two encodings cannot be mistaken
// for one another.
const sealMagic = 0xC0

// Kinds of sealed value.
const (
	kindRecord byte = 'r' // a journal record (binary header, JSON data)
	kindInfo   byte = 'i' // a session's info (JSON)
	kindCall   byte = 'c' // a call index entry (varints)
	kindState  byte = 's' // the game state: sha256 of the raw state, then DEFLATE
	kindText   byte = 't' // a version of the notes or the plan (see history.go)
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errChecksum is the cause named when a sealed value does not match its checksum.
var errChecksum = errors.New("checksum mismatch (the file was changed outside coplay or is damaged)")

// seal wraps payload as a value of kind stored under key.
func seal(kind byte, key, payload []byte) []byte {
	out := make([]byte, 0, len(payload)+6)
	out = append(out, sealMagic, kind)
	out = append(out, payload...)
	crc := crc32.Update(crc32.Checksum(key, castagnoli), castagnoli, out[1:])
	return binary.BigEndian.AppendUint32(out, crc)
}

// unseal checks a sealed value of kind stored under key and returns its payload. ok is
// false when v is not sealed at all (a legacy value).
func unseal(kind byte, key, v []byte) (payload []byte, ok bool, err error) {
	if len(v) == 0 || v[0] != sealMagic {
		return nil, false, nil
	}
	if len(v) < 6 {
		return nil, true, fmt.Errorf("value of %d bytes is too short: %w", len(v), errChecksum)
	}
	if v[1] != kind {
		return nil, true, fmt.Errorf("value has kind %q, want %q: %w", v[1], kind, errChecksum)
	}
	body, sum := v[1:len(v)-4], binary.BigEndian.Uint32(v[len(v)-4:])
	if crc32.Update(crc32.Checksum(key, castagnoli), castagnoli, body) != sum {
		return nil, true, errChecksum
	}
	return body[1:], true, nil
}

// Record types stored as one byte (the index is the code); any other type is stored as
// its string. Stored in every block: the list is never reordered, and a type added to
// the format is stored as its string (a code added here would not be read by an older
// coplay).
var typeCodes = []record.Type{
	"", record.TypeStarted, record.TypeObservation, record.TypeStep, record.TypeText,
	record.TypeProposed, record.TypeDecision, record.TypeToolStart, record.TypeResult,
	record.TypeAdvice, record.TypeNotes, record.TypeWaiting, record.TypeUsage, record.TypeError,
	record.TypeTurnLimit, record.TypeState, record.TypeOutcomeUnknown, record.TypeRules,
	record.TypeToolUpdated,
}

var typeCode = func() map[record.Type]byte {
	m := map[record.Type]byte{}
	for i, t := range typeCodes {
		if t != "" {
			m[t] = byte(i)
		}
	}
	return m
}()

// The journal is stored in blocks: one bbolt value holds consecutive records of one
// step, keyed by the first one's seq, compressed together. A step's thirty-odd records
// thus cost one key and one checksum instead of thirty, and what they repeat (call ids,
// tool names, JSON keys) compresses away. Appending to the journal rewrites its last
// block, in the same transaction: bbolt copies the last page on every commit anyway, so
// this costs no extra write, and the old block stays intact until the commit is durable.

// A block is closed (the next record starts a new one) when it is expected to fill
// most of a page once compressed, or when it holds blockMaxRaw bytes or
// blockMaxRecords records before compression: one block per page keeps pages full
// (FillPercent 1 on an append-only bucket) without values overflowing into more pages.
const (
	blockPageShare  = 0.95 // of the page size, compressed
	blockMaxRaw     = 64 << 10
	blockMaxRecords = 1024
)

// Flags of a block and of a record in it.
const (
	blockDeflated = 1 << iota // the block's body is DEFLATE-compressed
)
const (
	recTime = 1 << iota // a time follows (absent: the zero time)
)

// appendEntry encodes r, the record after prev in its block (nil for the first), as
//
//	uvarint length, flags, [zigzag varint nanoseconds since prev's time (or the Unix
//	epoch)], type code [, uvarint length, type], zigzag varint step, uvarint length,
//	call id, data
func appendEntry(dst []byte, r, prev *Record) ([]byte, error) {
	var p []byte
	flags := byte(0)
	if !r.Time.IsZero() {
		// UnixNano is defined for 1678..2262; anything else cannot be a real record's time.
		if y := r.Time.Year(); y < 1680 || y > 2260 {
			return nil, fmt.Errorf("notes: record %d: time %v is out of range", r.Seq, r.Time)
		}
		flags |= recTime
	}
	p = append(p, flags)
	if flags&recTime != 0 {
		base := int64(0)
		if prev != nil && !prev.Time.IsZero() {
			base = prev.Time.UnixNano()
		}
		p = binary.AppendVarint(p, r.Time.UnixNano()-base)
	}
	if c, ok := typeCode[r.Type]; ok {
		p = append(p, c)
	} else {
		p = append(p, 0)
		p = binary.AppendUvarint(p, uint64(len(r.Type)))
		p = append(p, r.Type...)
	}
	p = binary.AppendVarint(p, int64(r.Step))
	p = binary.AppendUvarint(p, uint64(len(r.CallID)))
	p = append(p, r.CallID...)
	p = append(p, r.Data...)
	dst = binary.AppendUvarint(dst, uint64(len(p)))
	return append(dst, p...), nil
}

// encodeBlock seals recs, consecutive records starting at recs[0].Seq.
func encodeBlock(recs []Record) ([]byte, error) {
	var body []byte
	for i := range recs {
		var prev *Record
		if i > 0 {
			prev = &recs[i-1]
		}
		var err error
		if body, err = appendEntry(body, &recs[i], prev); err != nil {
			return nil, err
		}
	}
	if len(body) > maxRecordData {
		// It could not be read back (decodeBlock bounds what it inflates).
		return nil, fmt.Errorf("notes: journal records %d to %d: %d bytes is more than the %d a block may hold",
			recs[0].Seq, recs[len(recs)-1].Seq, len(body), maxRecordData)
	}
	p := []byte{0}
	if z := deflate(body); len(z) < len(body) {
		p[0] = blockDeflated
		p = append(p, z...)
	} else {
		p = append(p, body...)
	}
	return seal(kindRecord, seqKey(recs[0].Seq), p), nil
}

// decodeBlock reads a journal value stored under key k: a sealed block, or one legacy
// JSON record. It never panics on bad input; its errors name the records.
func decodeBlock(k, v []byte) (_ []Record, err error) {
	seq := uint64(0)
	if len(k) == 8 {
		seq = binary.BigEndian.Uint64(k)
	}
	defer faultAt(&err, recordAt(seq))
	bad := func(err error) ([]Record, error) {
		return nil, fmt.Errorf("journal record %d: %w: %w", seq, ErrCorrupt, err)
	}
	p, sealed, err := unseal(kindRecord, k, v)
	if err != nil {
		return bad(err)
	}
	if !sealed {
		var r Record
		if err := json.Unmarshal(v, &r); err != nil {
			return bad(err)
		}
		return []Record{r}, nil
	}
	if len(p) < 1 || p[0]&^blockDeflated != 0 {
		return bad(errors.New("unknown block flags"))
	}
	body := p[1:]
	if p[0]&blockDeflated != 0 {
		if body, err = inflate(body, maxRecordData); err != nil {
			return bad(fmt.Errorf("data: %w", err))
		}
	} else {
		body = bytes.Clone(body) // v is bbolt's memory, valid only inside the transaction
	}
	var out []Record
	for len(body) > 0 {
		n, w := binary.Uvarint(body)
		if w <= 0 || n > uint64(len(body)-w) {
			return bad(fmt.Errorf("record %d runs past the end of its block", seq+uint64(len(out))))
		}
		var prev *Record
		if len(out) > 0 {
			prev = &out[len(out)-1]
		}
		r, err := decodeEntry(seq+uint64(len(out)), body[w:w+int(n)], prev)
		if err != nil {
			return nil, fmt.Errorf("journal record %d: %w: %w", seq+uint64(len(out)), ErrCorrupt, err)
		}
		out = append(out, r)
		body = body[w+int(n):]
	}
	if len(out) == 0 {
		return bad(errors.New("empty block"))
	}
	return out, nil
}

// decodeEntry reads one record of a block (see appendEntry).
func decodeEntry(seq uint64, p []byte, prev *Record) (Record, error) {
	r := Record{Seq: seq}
	rd := bytes.NewReader(p)
	flags, err := rd.ReadByte()
	if err != nil {
		return r, err
	}
	if flags&^recTime != 0 {
		return r, fmt.Errorf("unknown flags %#x", flags)
	}
	if flags&recTime != 0 {
		n, err := binary.ReadVarint(rd)
		if err != nil {
			return r, fmt.Errorf("time: %w", err)
		}
		if prev != nil && !prev.Time.IsZero() {
			n += prev.Time.UnixNano()
		}
		r.Time = time.Unix(0, n)
	}
	code, err := rd.ReadByte()
	if err != nil {
		return r, err
	}
	switch {
	case code == 0:
		t, err := readString(rd)
		if err != nil {
			return r, fmt.Errorf("type: %w", err)
		}
		r.Type = record.Type(t)
		if r.Type == "" {
			return r, errors.New("no type")
		}
	case int(code) < len(typeCodes):
		r.Type = typeCodes[code]
	default:
		return r, fmt.Errorf("unknown type code %d", code)
	}
	step, err := binary.ReadVarint(rd)
	if err != nil || step < math.MinInt32 || step > math.MaxInt32 {
		return r, fmt.Errorf("step: %v", err)
	}
	r.Step = int(step)
	if r.CallID, err = readString(rd); err != nil {
		return r, fmt.Errorf("call id: %w", err)
	}
	if data := p[len(p)-rd.Len():]; len(data) > 0 {
		if !json.Valid(data) {
			return r, errors.New("data is not valid JSON")
		}
		r.Data = json.RawMessage(data) // body is already a copy
	}
	return r, nil
}

// entrySize is how many bytes r takes in a block before compression.
func entrySize(r, prev *Record) int {
	b, _ := appendEntry(nil, r, prev)
	return len(b)
}

// maxRecordData bounds a block before compression: what a stored value may inflate
// to, so that a damaged value cannot claim gigabytes. A record larger than this is
// refused when it is written.
const maxRecordData = 64 << 20

func readString(rd *bytes.Reader) (string, error) {
	n, err := binary.ReadUvarint(rd)
	if err != nil {
		return "", err
	}
	if n > uint64(rd.Len()) {
		return "", fmt.Errorf("length %d runs past the end", n)
	}
	b := make([]byte, n)
	_, _ = io.ReadFull(rd, b)
	return string(b), nil
}

var flateWriters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.DefaultCompression)
	return w
}}

// deflate compresses p with DEFLATE (compress/flate: no dependency beyond the standard
// library, and the checksum around it is ours).
func deflate(p []byte) []byte {
	var buf bytes.Buffer
	w := flateWriters.Get().(*flate.Writer)
	w.Reset(&buf)
	_, _ = w.Write(p)
	_ = w.Close()
	flateWriters.Put(w)
	return buf.Bytes()
}

// inflate reverses deflate, refusing output larger than limit.
func inflate(p []byte, limit int64) ([]byte, error) {
	r := flate.NewReader(bytes.NewReader(p))
	defer r.Close()
	out, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(out)) > limit {
		return nil, fmt.Errorf("inflates to more than %d bytes", limit)
	}
	return out, nil
}
