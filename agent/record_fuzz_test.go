package agent

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/notes"
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
		for _, ty := range []string{typ, string(EventObservation), string(EventProposed), string(EventResult), string(EventDecision)} {
			d.event(notes.Record{Seq: 1, Type: ty, Step: 1, CallID: "c", Data: json.RawMessage(data)})
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
			o := enc.observation(obs)
			raw, err := json.Marshal(recData{Observation: o})
			if err != nil {
				t.Fatal(err)
			}
			ev, ok := dec.event(notes.Record{Seq: 2, Type: string(EventObservation), Step: 1, Data: raw})
			if !ok || ev.Observation == nil || ev.Observation.Summary != s {
				t.Fatalf("observation %q came back as %+v (ok %v) from %s", s, ev.Observation, ok, raw)
			}
		}
	})
}
