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

// Record types stored as one byte; anything else is stored as its string.
var typeCodes = []string{
	"", "started", "observation", "step", "text", TypeProposed, TypeDecision, "tool_started",
	TypeResult, "advice", "notes_changed", "waiting", "usage", "error", "turn_limit", "state",
	TypeOutcomeUnknown, "rules_changed", "tool_updated",
}

var typeCode = func() map[string]byte {
	m := map[string]byte{}
	for i, t := range typeCodes {
		if t != "" {
			m[t] = byte(i)
		}
	}
	return m
}()

// Flags of an encoded record.
const (
	flagTime     = 1 << iota // a time follows (absent: the zero time)
	flagDeflated             // the data is DEFLATE-compressed
)

// deflateMin is the data size from which compressing a record's data is tried: below it
// DEFLATE's own overhead eats the gain.
const deflateMin = 160

// encodeRecord writes r (its Seq is the key, not stored again) in the sealed format:
//
//	flags, [zigzag varint unix nanoseconds], type code [, uvarint length, type],
//	zigzag varint step, uvarint length, call id, data (JSON, or DEFLATE of it)
func encodeRecord(r Record) ([]byte, error) {
	var p []byte
	flags := byte(0)
	var nanos int64
	if !r.Time.IsZero() {
		// UnixNano is defined for 1678..2262; anything else cannot be a real record's time.
		if y := r.Time.Year(); y < 1680 || y > 2260 {
			return nil, fmt.Errorf("notes: record time %v is out of range", r.Time)
		}
		flags |= flagTime
		nanos = r.Time.UnixNano()
	}
	data := []byte(r.Data)
	if len(data) >= deflateMin {
		if z := deflate(data); len(z) < len(data)*9/10 {
			data, flags = z, flags|flagDeflated
		}
	}
	p = append(p, flags)
	if flags&flagTime != 0 {
		p = binary.AppendVarint(p, nanos)
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
	p = append(p, data...)
	return seal(kindRecord, seqKey(r.Seq), p), nil
}

// decodeRecord reads a journal value stored under key k, sealed or legacy. It never
// panics on bad input; its errors name the record.
func decodeRecord(k, v []byte) (Record, error) {
	seq := uint64(0)
	if len(k) == 8 {
		seq = binary.BigEndian.Uint64(k)
	}
	bad := func(err error) (Record, error) {
		return Record{}, fmt.Errorf("journal record %d: %w: %w", seq, ErrCorrupt, err)
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
		return r, nil
	}
	r := Record{Seq: seq}
	rd := bytes.NewReader(p)
	flags, err := rd.ReadByte()
	if err != nil {
		return bad(err)
	}
	if flags&^(flagTime|flagDeflated) != 0 {
		return bad(fmt.Errorf("unknown flags %#x", flags))
	}
	if flags&flagTime != 0 {
		n, err := binary.ReadVarint(rd)
		if err != nil {
			return bad(fmt.Errorf("time: %w", err))
		}
		r.Time = time.Unix(0, n)
	}
	code, err := rd.ReadByte()
	if err != nil {
		return bad(err)
	}
	switch {
	case code == 0:
		if r.Type, err = readString(rd); err != nil {
			return bad(fmt.Errorf("type: %w", err))
		}
	case int(code) < len(typeCodes):
		r.Type = typeCodes[code]
	default:
		return bad(fmt.Errorf("unknown type code %d", code))
	}
	step, err := binary.ReadVarint(rd)
	if err != nil || step < math.MinInt32 || step > math.MaxInt32 {
		return bad(fmt.Errorf("step: %v", err))
	}
	r.Step = int(step)
	if r.CallID, err = readString(rd); err != nil {
		return bad(fmt.Errorf("call id: %w", err))
	}
	data := p[len(p)-rd.Len():]
	if flags&flagDeflated != 0 {
		if data, err = inflate(data, maxRecordData); err != nil {
			return bad(fmt.Errorf("data: %w", err))
		}
	}
	if len(data) > 0 {
		if !json.Valid(data) {
			return bad(errors.New("data is not valid JSON"))
		}
		// A copy: v is bbolt's memory, valid only inside the transaction.
		r.Data = append(json.RawMessage(nil), data...)
	}
	return r, nil
}

// maxRecordData bounds what one record's data may inflate to, so that a damaged value
// cannot claim gigabytes.
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
