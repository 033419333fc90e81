package agent

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/coplayhq/coplay/notes"
)

// FuzzAnswerRecord: an answered question (elicitation_answered) and a rules_changed
// event, as the runner journals them, read back as they were: the answer's server,
// action, content (by meaning: JSON may be re-spaced), who answered and why, and the
// session's rule lines. These are the forms kept for a resumed screen or consumer.
func FuzzAnswerRecord(f *testing.F) {
	f.Add("dungeon", "accept", `{"door":"left","n":1.5e3}`, "person", "", `deny orbit_ship(shipSymbol="a\nb")`)
	f.Add("srv", "decline", "", "rule", "rule: deny elicitation", "allow x(y=\"\\x00\")")
	f.Add("", "cancel", `[1,"<&>"]`, "runner", "the call ended first", "")
	f.Fuzz(func(t *testing.T, server, action, content, by, reason, rule string) {
		for _, s := range []string{server, action, by, reason, rule} {
			if !utf8.ValidString(s) {
				return // JSON holds text: invalid UTF-8 comes back as U+FFFD in any format
			}
		}
		el := &Elicitation{ID: "ask_1_1", Server: server, Action: action, By: by, Reason: reason, CallID: "c1"}
		if content != "" {
			if !json.Valid([]byte(content)) {
				return // the runner only answers with content it checked
			}
			el.Content = json.RawMessage(content)
		}
		var r recorder
		var d decoder
		rec, err := r.encode(&Event{Type: EventAnswered, Step: 1, Elicitation: el, Text: server + ": " + action})
		if err != nil {
			t.Fatalf("recording %+v: %v", el, err)
		}
		ev, err := d.event(notes.Record{Seq: 1, Type: rec.Type, Step: 1, Data: rec.Data})
		if err != nil || ev.Elicitation == nil {
			t.Fatalf("%+v journaled as %s does not read back: %v", el, rec.Data, err)
		}
		got := *ev.Elicitation
		if !sameJSONValue(got.Content, el.Content) {
			t.Fatalf("content %s came back as %s", el.Content, got.Content)
		}
		got.Content, el.Content = nil, nil
		if !reflect.DeepEqual(got, *el) {
			t.Fatalf("answer %+v came back as %+v", *el, got)
		}
		lines := []string{rule, "allow " + server}
		rec, err = r.encode(&Event{Type: EventRules, Step: 1, Rules: lines, Text: "rule added: " + rule})
		if err != nil {
			t.Fatalf("recording rules %q: %v", lines, err)
		}
		ev, err = d.event(notes.Record{Seq: 2, Type: rec.Type, Step: 1, Data: rec.Data})
		if err != nil || !reflect.DeepEqual(ev.Rules, lines) {
			t.Fatalf("rules %q journaled as %s came back as %q (%v)", lines, rec.Data, ev.Rules, err)
		}
	})
}

// sameJSONValue reports whether a and b hold the same JSON value (both empty counts).
func sameJSONValue(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	if da.Decode(&x) != nil || db.Decode(&y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
