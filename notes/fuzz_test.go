package notes

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

// FuzzDecodeRecord feeds the journal decoder stored values it did not write (a damaged
// or hand-edited notebook). Decoding must never panic; an error names the record's seq;
// a record that decodes renders in an export without panicking, and encodes and decodes
// back to itself, so that what is read is what would be written.
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
	f.Fuzz(func(t *testing.T, seq uint64, v []byte) {
		r, err := decodeRecord(seqKey(seq), v)
		if err != nil {
			if want := fmt.Sprintf("journal record %d", seq); !strings.Contains(err.Error(), want) {
				t.Fatalf("error %q does not name %q", err, want)
			}
			return
		}
		w := bufio.NewWriter(io.Discard)
		writeRecord(w, r)
		w.Flush()
		decisionExecutes(r.Data)

		enc, err := json.Marshal(r)
		if err != nil {
			return // a time outside what RFC 3339 can write: Append would never store it
		}
		r2, err := decodeRecord(seqKey(seq), enc)
		if err != nil {
			t.Fatalf("a decoded record does not decode again: %v\n%s", err, enc)
		}
		if r2.Seq != r.Seq || !r2.Time.Equal(r.Time) || r2.Type != r.Type || r2.Step != r.Step || r2.CallID != r.CallID {
			t.Fatalf("round trip changed the record:\n%+v\n%+v", r, r2)
		}
		if len(r.Data) > 0 && !reflect.DeepEqual(jsonValue(t, r.Data), jsonValue(t, r2.Data)) {
			t.Fatalf("round trip changed the data: %s → %s", r.Data, r2.Data)
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
