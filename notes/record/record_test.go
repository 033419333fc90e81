package record_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/notes/record"
)

// Each type keeps what the format says it keeps, whatever else the data is given.
func TestEncodeKeepsWhatEachTypeHas(t *testing.T) {
	full := record.Data{
		Text:        "said",
		Call:        &record.Call{Tool: "orbit", Kind: "act", Args: json.RawMessage(`{"ship":"A"}`), NeedsOK: true},
		Result:      json.RawMessage(`{"output":"ok"}`),
		Observation: &record.Observation{Summary: "world"},
		Notes:       &record.Notes{Version: 3},
		Usage:       json.RawMessage(`{"prompt_tokens":1}`),
		State:       "running",
		Rules:       record.Rules{"allow orbit"},
		Decision:    &record.Decision{Decision: "approve", By: "person", Via: "screen"},
	}
	for _, c := range []struct {
		typ  record.Type
		want string
	}{
		{record.TypeDecision, `{"decision":"approve","by":"person","via":"screen"}`},
		{record.TypeToolStart, ``},
		{record.TypeOutcomeUnknown, ``},
		{record.TypeResult, `{"text":"said","result":{"output":"ok"}}`},
		{record.TypeObservation, `{"text":"said","observation":{"summary":"world"}}`},
		{record.TypeNotes, `{"text":"said","notes":{"version":3}}`},
		{record.TypeProposed, `{"text":"said","call":{"tool":"orbit","kind":"act","args":{"ship":"A"},"needs_ok":true},"result":{"output":"ok"},"usage":{"prompt_tokens":1},"state":"running","rules":["allow orbit"]}`},
		{"a_type_of_tomorrow", `{"text":"said","call":{"tool":"orbit","kind":"act","args":{"ship":"A"},"needs_ok":true},"result":{"output":"ok"},"usage":{"prompt_tokens":1},"state":"running","rules":["allow orbit"]}`},
	} {
		got, err := record.Encode(c.typ, full)
		if err != nil || string(got) != c.want {
			t.Errorf("Encode(%s) = %s, %v; want %s", c.typ, got, err, c.want)
		}
	}
	// Without their value, these types have no data; nor has data that would be {}.
	for _, typ := range []record.Type{record.TypeObservation, record.TypeNotes, record.TypeDecision, record.TypeStep} {
		if got, err := record.Encode(typ, record.Data{}); err != nil || got != nil {
			t.Errorf("Encode(%s) of nothing = %s, %v; want none", typ, got, err)
		}
	}
	if got, err := record.Encode(record.TypeObservation, record.Data{Text: "x"}); err != nil || got != nil {
		t.Errorf("an observation record without its observation = %s, %v; want none", got, err)
	}
}

// A model's arguments that are not JSON are kept as the string they were.
func TestEncodeKeepsBrokenArgumentsAsAString(t *testing.T) {
	c := &record.Call{Tool: "sell", Args: json.RawMessage(`{"units": 3`)}
	got, err := record.Encode(record.TypeProposed, record.Data{Call: c})
	if err != nil || string(got) != `{"call":{"tool":"sell","args":"{\"units\": 3"}}` {
		t.Fatalf("Encode = %s, %v", got, err)
	}
	if string(c.Args) != `{"units": 3` {
		t.Errorf("Encode changed its argument's call: %s", c.Args)
	}
}

// Format 1 journaled the whole event: its envelope again, the call with its id, the
// decision with its call id and rule, the notes and observation whole, and rules as a
// map of always-allowed tools. Decode reads it all.
func TestDecodeReadsFormat1(t *testing.T) {
	d, err := record.Decode(record.TypeResult, json.RawMessage(`{"seq":0,"time":"2026-11-22T23:13:12Z","type":"tool_result","step":1,"call":{"id":"c1","tool":"accept","args":{"id":"x"},"kind":"act","needs_ok":false},"result":{"output":"Accepted"}}`))
	if err != nil || d.Call == nil || d.Call.ID != "c1" || d.Call.Tool != "accept" || d.Call.Kind != "act" || string(d.Result) != `{"output":"Accepted"}` {
		t.Errorf("a format 1 result = %+v (call %+v), %v", d, d.Call, err)
	}
	d, err = record.Decode(record.TypeDecision, json.RawMessage(`{"call_id":"c1","decision":"approve","by":"rule","rule":"allow accept"}`))
	if err != nil || !reflect.DeepEqual(*d.Decision, record.Decision{Decision: "approve", By: "rule", CallID: "c1", Rule: "allow accept"}) || !d.Decision.Executes() {
		t.Errorf("a format 1 decision = %+v, %v", d.Decision, err)
	}
	d, err = record.Decode(record.TypeNotes, json.RawMessage(`{"notes":{"text":"## Next\n\nmine","version":2,"plan":[{"id":1,"text":"mine","status":"doing"}]}}`))
	if err != nil || d.Notes == nil || d.Notes.Text == nil || *d.Notes.Text != "## Next\n\nmine" || d.Notes.Version != 2 || len(d.Notes.Plan) != 1 {
		t.Errorf("format 1 notes = %+v, %v", d.Notes, err)
	}
	d, err = record.Decode(record.TypeRules, json.RawMessage(`{"rules":{"orbit":true,"dock":true,"sell":false}}`))
	if err != nil || !reflect.DeepEqual([]string(d.Rules), []string{"allow dock", "allow orbit"}) {
		t.Errorf("rules of a notebook before approval rules = %q, %v", d.Rules, err)
	}
	d, err = record.Decode(record.TypeObservation, json.RawMessage(`{"observation":{"summary":"a\nb","metrics":[{"name":"credits","value":1}],"time":"2026-11-22T23:13:12Z"}}`))
	if err != nil || d.Observation == nil || d.Observation.Relative() || !d.Observation.Time.Equal(time.Date(2026, 11, 22, 23, 13, 12, 0, time.UTC)) {
		t.Fatalf("a format 1 observation = %+v, %v", d.Observation, err)
	}
	if s, err := d.Observation.SummaryAfter("", false); err != nil || s != "a\nb" {
		t.Errorf("its summary = %q, %v", s, err)
	}
}

// Data not of the format's shape is an error naming the record, never a record read
// as empty.
func TestDecodeErrorsNameTheRecord(t *testing.T) {
	for _, r := range []record.Record{
		{Seq: 7, Type: record.TypeAdvice, Data: json.RawMessage(`{"text":5}`)},
		{Seq: 8, Type: record.TypeDecision, Data: json.RawMessage(`{"decision":["veto"]}`)},
		{Seq: 9, Type: record.TypeObservation, Data: json.RawMessage(`{"observation":{"summary_edits":[[1]]}}`)},
		{Seq: 10, Type: record.TypeRules, Data: json.RawMessage(`{"rules":"allow orbit"}`)},
		{Seq: 11, Type: record.TypeText, Data: json.RawMessage(`[1,2]`)},
	} {
		_, err := r.Decode()
		if want := fmt.Sprintf("journal record %d (%s): ", r.Seq, r.Type); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("record %s: err %v, want one that starts %q", r.Data, err, want)
		}
	}
	// A decision without data is an empty one (which lets its call run: only a veto
	// does not), and a record without data has none.
	if d, err := record.Decode(record.TypeDecision, nil); err != nil || d.Decision == nil || !d.Decision.Executes() {
		t.Errorf("a decision without data = %+v, %v", d.Decision, err)
	}
	if d, err := record.Decode(record.TypeStep, nil); err != nil || !reflect.DeepEqual(d, record.Data{}) {
		t.Errorf("a step without data = %+v, %v", d, err)
	}
}

// Unknown is what an older or newer writer put in a record that the format has not.
func TestUnknownFields(t *testing.T) {
	got, err := record.Unknown(json.RawMessage(`{"text":"t","output":{"a":1},"wait_until":"x","call":{}}`))
	if err != nil || len(got) != 2 || string(got["output"]) != `{"a":1}` || string(got["wait_until"]) != `"x"` {
		t.Errorf("Unknown = %v, %v", got, err)
	}
	if got, err := record.Unknown(json.RawMessage(`{"text":"t"}`)); err != nil || got != nil {
		t.Errorf("Unknown of known fields = %v, %v", got, err)
	}
	if _, err := record.Unknown(json.RawMessage(`[1]`)); err == nil {
		t.Error("Unknown of an array: no error")
	}
}

// An observation's summary: whole, unchanged, or edits of the one before; the one
// before must be known for the last two.
func TestSummaryAfter(t *testing.T) {
	prev := "credits 10\nship A docked\nship B in orbit"
	cur := "credits 12\nship A docked\nship B docked\nship C new"
	edits := record.DiffLines(prev, cur)
	for _, c := range []struct {
		o     record.Observation
		known bool
		want  string
		err   error
	}{
		{record.Observation{Summary: cur}, false, cur, nil},
		{record.Observation{SummaryEdits: edits}, true, cur, nil},
		{record.Observation{Same: []string{record.FieldSummary}}, true, prev, nil},
		{record.Observation{SummaryEdits: edits}, false, "", record.ErrNoBase},
		{record.Observation{Same: []string{record.FieldSummary}}, false, "", record.ErrNoBase},
	} {
		got, err := c.o.SummaryAfter(prev, c.known)
		if got != c.want || !errors.Is(err, c.err) {
			t.Errorf("%+v known %v: %q, %v; want %q, %v", c.o, c.known, got, err, c.want, c.err)
		}
	}
	o := record.Observation{SummaryEdits: []record.LineEdit{{At: 9, Del: 1}}}
	if _, err := o.SummaryAfter(prev, true); err == nil || !strings.Contains(err.Error(), "does not fit") {
		t.Errorf("edits past the end: %v", err)
	}
}

// Line edits are journaled in their shortest form, and read back.
func TestLineEditJSON(t *testing.T) {
	e := record.LineEdit{At: 2, Del: 1, Ins: []string{"a", `"b"`}}
	b, err := json.Marshal(e)
	if err != nil || string(b) != `[2,1,"a","\"b\""]` {
		t.Fatalf("Marshal = %s, %v", b, err)
	}
	var back record.LineEdit
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, e) {
		t.Errorf("Unmarshal = %+v, %v", back, err)
	}
	for _, bad := range []string{`[1]`, `{"at":1}`, `[1,"x"]`, `[1,1,2]`} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("%s read as a line edit", bad)
		}
	}
}
