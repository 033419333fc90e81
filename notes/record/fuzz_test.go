package record_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/coplayhq/coplay/notes/record"
)

// FuzzData reads arbitrary record data of any type: it never panics, and what it reads
// is written the same way twice (what is read is what is written back: encoding is
// stable, so a record read and journaled again does not drift).
func FuzzData(f *testing.F) {
	for _, s := range []string{
		`{"observation":{"summary_edits":[[0,1,"a"]],"same":["map"],"map_edits":[{"i":0,"p":{"label":"A"}}]}}`,
		`{"call":{"tool":"t","args":{"a":1},"problems":[{"path":"a"}]}}`, `{"result":{"output":"<ok>"}}`,
		`{"decision":"veto","reason":"no"}`, `{"call_id":"c","decision":"approve","rule":"allow t"}`,
		`{"notes":{"version":2,"changed":["Situation"],"plan":[{"id":1}],"plan_removed":1}}`,
		`{"notes":{"text":"x","version":1}}`, `{"rules":{"a":true}}`, `{"rules":["allow a"]}`, `[1]`, `null`,
		`{"seq":3,"type":"tool_result","call":{"id":"c","tool":"t"},"result":{"unknown":true}}`,
	} {
		f.Add("tool_proposed", s)
		f.Add("decision", s)
	}
	f.Fuzz(func(t *testing.T, typ, data string) {
		raw := json.RawMessage(data)
		if !json.Valid(raw) {
			return // the notebook stores only valid JSON
		}
		ty := record.Type(typ)
		d, err := record.Decode(ty, raw)
		if err != nil {
			return
		}
		once, err := record.Encode(ty, d)
		if err != nil {
			return // a value the format cannot hold (a time out of range)
		}
		again, err := record.Decode(ty, once)
		if err != nil {
			t.Fatalf("%s: %s was written as %s, which does not read: %v", ty, data, once, err)
		}
		twice, err := record.Encode(ty, again)
		if err != nil || !bytes.Equal(once, twice) {
			t.Fatalf("%s: %s written as %s, then as %s (%v)", ty, data, once, twice, err)
		}
	})
}

// FuzzLineEdits: the edits DiffLines makes from a to b turn a into b, and survive
// being journaled.
func FuzzLineEdits(f *testing.F) {
	f.Add("line one\nline two\nline three", "line one\nline 2\nline three\nfour")
	f.Add("", "a")
	f.Add("a\nb\nc", "")
	f.Fuzz(func(t *testing.T, a, b string) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) || strings.Count(a, "\n")*strings.Count(b, "\n") > 1e6 {
			return // JSON holds text: invalid UTF-8 comes back as U+FFFD in any format
		}
		edits := record.DiffLines(a, b)
		raw, err := json.Marshal(edits)
		if err != nil {
			t.Fatal(err)
		}
		var back []record.LineEdit
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatalf("%s does not read back: %v", raw, err)
		}
		got, err := record.ApplyLines(a, back)
		if err != nil || got != b {
			t.Fatalf("%q with %s = %q, %v; want %q", a, raw, got, err, b)
		}
	})
}
