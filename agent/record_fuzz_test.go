package agent

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/notes"
	"github.com/coplayhq/coplay/notes/record"
)

// FuzzDecodeEvent feeds the journal's event decoder (resume, the screen's log) record
// data it did not write: it must never panic, and an observation it rebuilds from line
// edits must match what the encoder was given.
func FuzzDecodeEvent(f *testing.F) {
	for _, s := range []string{
		`{"observation":{"summary_edits":[[0,1,"a"]],"same":["map"]}}`,
		`{"observation":{"summary":"x\ny","map_edits":[{"i":0,"p":{"label":"A"}}]}}`,
		`{"call":{"tool":"t","args":{"a":1}}}`, `{"result":{"output":"ok"}}`, `{"decision":"veto"}`,
		`{"notes":{"version":2,"changed":["Situation"]}}`, `[1]`, `{"observation":{"summary_edits":[[9,9]]}}`,
	} {
		f.Add("observation", s, "line one\nline two\nline three", "line one\nline 2\nline three\nfour")
	}
	f.Fuzz(func(t *testing.T, typ, data, before, after string) {
		var d decoder
		for _, ty := range []record.Type{record.Type(typ), record.TypeObservation, record.TypeProposed, record.TypeResult, record.TypeDecision} {
			_, _ = d.event(notes.Record{Seq: 1, Type: ty, Step: 1, CallID: "c", Data: json.RawMessage(data)})
		}
		// Round trip: what the encoder journals for two observations rebuilds them (JSON
		// holds text: invalid UTF-8 comes back as U+FFFD in any format).
		if !utf8.ValidString(before) || !utf8.ValidString(after) {
			return
		}
		var enc recorder
		var dec decoder
		for _, s := range []string{before, after} {
			obs := game.Observation{Summary: s}
			o, err := enc.observation(obs)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := record.Encode(record.TypeObservation, record.Data{Observation: o})
			if err != nil {
				t.Fatal(err)
			}
			ev, err := dec.event(notes.Record{Seq: 2, Type: record.TypeObservation, Step: 1, Data: raw})
			if err != nil || ev.Observation == nil || ev.Observation.Summary != s {
				t.Fatalf("observation %q came back as %+v (%v) from %s", s, ev.Observation, err, raw)
			}
		}
	})
}
