package notes

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/notes/record"
)

// FuzzDecodeRecord feeds the journal decoder stored values it did not write (a damaged
// or hand-edited notebook), in both formats: legacy JSON records and sealed blocks.
// Decoding must never panic; an error names the record and matches ErrCorrupt; records
// that decode render in an export without panicking, and encode and decode back to
// themselves, so that what is read is what would be written.
func FuzzDecodeRecord(f *testing.F) {
	seeds := []string{
		`{"seq":1,"time":"2026-11-22T03:12:57.507837177Z","type":"started","text":"x"}`,
		`{"seq":7,"time":"2026-11-22T03:12:57Z","type":"tool_proposed","step":2,"call_id":"call_0_0","data":{"call":{"id":"call_0_0","tool":"dock_ship","args":{"shipSymbol":"COPLAY-1"},"kind":"act","needs_ok":true}}}`,
		`{"seq":8,"time":"2026-11-22T03:12:57Z","type":"decision","call_id":"call_0_0","data":{"call_id":"call_0_0","decision":"veto","reason":"no"}}`,
		`{"seq":9,"time":"2026-11-22T03:12:57Z","type":"tool_result","call_id":"c","data":{"call":{"id":"c","tool":"t","args":"{\"bad"},"result":{"error":{"code":4214,"message":"in transit","data":{"arrival":"2026-11-22T03:13:57Z"}},"wait":{"until":"2026-11-22T03:13:57Z","reason":"ship in transit"}}}}`,
		`{"seq":3,"type":"notes_changed","data":{"notes":{"text":"# Notes\n## Plan","version":2,"plan":[{"id":1,"text":"mine","status":"doing"}]}}}`,
		`{"seq":4,"type":"observation","data":{"observation":{"summary":"x","metrics":[{"name":"credits","value":1e308}]}}}`,
		`{"seq":5,"type":"text","data":"a string, not an object"}`,
		`{"seq":5,"type":"text","data":[1,2,{"a":null}]}`,
		`{"seq":-1,"time":"0000-01-01T00:00:00Z"}`,
		`{"time":"9999-12-31T23:59:59.999999999+14:00","step":-9223372036854775808}`,
		`null`, `[]`, `"x"`, `{`, `{"seq":1}{"seq":2}`, "\xff\xfe", ``,
	}
	for i, s := range seeds {
		f.Add(uint64(i+1), []byte(s))
	}
	// Blocks of this format, to mutate.
	for i, recs := range [][]Record{
		{{Seq: 1, Type: "started", Data: json.RawMessage(`{"text":"x"}`)}},
		{
			{Seq: 40, Time: time.Unix(1_800_000_000, 5), Type: record.TypeProposed, Step: 3, CallID: "c1", Data: json.RawMessage(`{"call":{"tool":"dock","args":{}}}`)},
			{Seq: 41, Time: time.Unix(1_800_000_001, 0), Type: record.TypeDecision, Step: 3, CallID: "c1", Data: json.RawMessage(`{"decision":"auto","by":"policy"}`)},
			{Seq: 42, Time: time.Unix(1_800_000_001, 9), Type: record.TypeToolStart, Step: 3, CallID: "c1"},
			{Seq: 43, Type: "custom type", Step: -3, Data: json.RawMessage(`"` + strings.Repeat("long text ", 40) + `"`)},
		},
	} {
		v, err := encodeBlock(recs)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(recs[0].Seq, v)
		_ = i
	}
	f.Fuzz(func(t *testing.T, seq uint64, v []byte) {
		recs, err := decodeBlock(seqKey(seq), v)
		if err != nil {
			if want := "journal record "; !strings.Contains(err.Error(), want) || !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %q does not name the record or match ErrCorrupt", err)
			}
			return
		}
		w := bufio.NewWriter(io.Discard)
		for _, r := range recs {
			writeRecord(w, r)
			decisionExecutes(r.Data)
		}
		w.Flush()

		// What was read is what would be written: encode it again (with seqs from the
		// key, as the journal numbers them) and decode it back.
		for i := range recs {
			if recs[i].Type == "" {
				return // a legacy record without a type: Commit would never store it
			}
			recs[i].Seq = seq + uint64(i)
		}
		enc, err := encodeBlock(recs)
		if err != nil {
			return // a time this format cannot hold: Commit would never store it
		}
		checkRoundTrip(t, seq, enc, recs, func(a, b []byte) bool {
			return len(a) == 0 || reflect.DeepEqual(jsonValue(t, a), jsonValue(t, b))
		})
	})
}

// checkRoundTrip decodes enc, the block of recs numbered from seq, and fails the test
// unless it gives recs back: the same seqs, times, types, steps and call ids, and data
// that sameData finds the same.
func checkRoundTrip(t *testing.T, seq uint64, enc []byte, recs []Record, sameData func(a, b []byte) bool) {
	t.Helper()
	got, err := decodeBlock(seqKey(seq), enc)
	if err != nil {
		t.Fatalf("an encoded block does not decode: %v", err)
	}
	if len(got) != len(recs) {
		t.Fatalf("round trip: %d records, then %d", len(recs), len(got))
	}
	for i, r := range recs {
		g := got[i]
		if g.Seq != r.Seq || !g.Time.Equal(r.Time) || g.Type != r.Type || g.Step != r.Step || g.CallID != r.CallID || !sameData(r.Data, g.Data) {
			t.Fatalf("round trip changed record %d:\n%+v\n%+v", i, r, g)
		}
	}
}

// FuzzBlockRoundTrip encodes records built from arbitrary fields and checks that they
// decode to themselves, and that any single flipped byte of the stored block is caught.
func FuzzBlockRoundTrip(f *testing.F) {
	f.Add("tool_result", "call-1", 7, int64(1_800_000_000_000_000_000), []byte(`{"result":{"output":"ok"}}`), uint8(3), uint16(5))
	f.Add("x", "", -1, int64(0), []byte(``), uint8(0), uint16(0))
	f.Fuzz(func(t *testing.T, typ, callID string, step int, nanos int64, data []byte, n uint8, flip uint16) {
		if typ == "" || (len(data) > 0 && !json.Valid(data)) || step < math.MinInt32 || step > math.MaxInt32 {
			return
		}
		var recs []Record
		for i := 0; i <= int(n%8); i++ {
			r := Record{Seq: 100 + uint64(i), Type: record.Type(typ), Step: step, CallID: callID, Data: data}
			if nanos != 0 {
				r.Time = time.Unix(0, nanos+int64(i)*1e6)
			}
			recs = append(recs, r)
		}
		v, err := encodeBlock(recs)
		if err != nil {
			return // a time outside what the format holds
		}
		checkRoundTrip(t, 100, v, recs, bytes.Equal)
		bad := bytes.Clone(v)
		bad[int(flip)%len(bad)] ^= 0x01
		if _, err := decodeBlock(seqKey(100), bad); err == nil {
			t.Fatalf("a flipped byte at %d went unnoticed", int(flip)%len(bad))
		}
	})
}

// jsonValue decodes v, keeping numbers exact, for comparing JSON by meaning (the
// encoder may write "&" as "\u0026").
func jsonValue(t *testing.T, v []byte) any {
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		t.Fatalf("data %q does not decode: %v", v, err)
	}
	return x
}
