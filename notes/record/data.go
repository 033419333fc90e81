package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"
)

// A record's envelope (seq, time, type, step, call id) lives in the record, never again
// in its Data. Data holds only what the record adds (format 2, written since the
// compact notebook format):
//
//   - tool_proposed, tool_updated, loop: {"call": {tool, kind, args, problems,
//     simulation, needs_ok, from_text, why}} (the call's id is the record's);
//   - decision: the Decision itself, without its call id ({"decision": ..., "by": ...});
//   - tool_started, outcome_unknown: nothing (the call id names the proposal, and an
//     edit's arguments are in the decision), except for the start of the person's own
//     move, which nobody proposed: {"call": {tool, kind, args, by: "person"}, "via"};
//   - tool_result: {"result": ...} and the text, if any;
//   - observation: what changed since the last observation journaled (Observation);
//   - notes_changed: the version, the sections that changed and the plan steps that
//     changed (Notes; the notes themselves live in the notebook's notes and plan);
//   - anything else: the event's own fields (text, via, wait, usage, state, rules,
//     trigger, elicitation, sampling, progress, server_log, call, plays).
//
// Format 1 (notebooks written before the compact format) stored the whole event as the
// data: its call with id and kind, its observation and notes whole, its rules as a map
// of always-allowed tools, and the envelope again. Decode reads both.

// Data is what a record holds beyond its envelope. The fields are in the order they are
// written; those of other packages' types are their own JSON.
type Data struct {
	Text        string          `json:"text,omitempty"`
	Via         string          `json:"via,omitempty"` // advice: where it was given ("screen", "stdin", "attach", "ssh:KEY")
	Call        *Call           `json:"call,omitempty"`
	Result      json.RawMessage `json:"result,omitempty"` // a game.Result
	Observation *Observation    `json:"observation,omitempty"`
	Notes       *Notes          `json:"notes,omitempty"`
	Wait        json.RawMessage `json:"wait,omitempty"`  // a game.Wait
	Usage       json.RawMessage `json:"usage,omitempty"` // the model call's usage (brain.Usage)
	State       string          `json:"state,omitempty"`
	Rules       Rules           `json:"rules,omitempty"`
	Trigger     json.RawMessage `json:"trigger,omitempty"`     // a game.Trigger
	Elicitation json.RawMessage `json:"elicitation,omitempty"` // the agent's Elicitation
	Sampling    json.RawMessage `json:"sampling,omitempty"`    // the agent's Sampling
	Progress    json.RawMessage `json:"progress,omitempty"`    // the agent's Progress
	ServerLog   json.RawMessage `json:"server_log,omitempty"`  // a game.LogLine
	Plays       string          `json:"plays,omitempty"`       // wheel: who plays ("person" or "agent")
	// Decision is a decision record's data, which is the decision alone (TypeDecision);
	// nil for every other type.
	Decision *Decision `json:"-"`
}

// Call is a call as journaled, without its id (the record's).
type Call struct {
	Tool       string          `json:"tool"`
	Kind       string          `json:"kind,omitempty"` // written for readers of the journal; the agent takes the catalogue's
	Args       json.RawMessage `json:"args,omitempty"`
	Problems   json.RawMessage `json:"problems,omitempty"`   // []game.Problem: why the call is invalid
	Simulation json.RawMessage `json:"simulation,omitempty"` // a game.Simulation: the dry run
	NeedsOK    bool            `json:"needs_ok,omitempty"`
	FromText   bool            `json:"from_text,omitempty"` // read from the model's text
	Why        string          `json:"why,omitempty"`       // the brain's reason for this call alone
	By         string          `json:"by,omitempty"`        // "person": the person's own move (on its tool_started)
	// ID is the call's id in format 1, which repeated it here; never written.
	ID string `json:"id,omitempty"`
}

// Decision is what was decided about a call, without its call id (the record's).
type Decision struct {
	Decision string          `json:"decision"` // approve, veto, edit, auto
	Reason   string          `json:"reason,omitempty"`
	Args     json.RawMessage `json:"args,omitempty"` // an edit's arguments
	By       string          `json:"by,omitempty"`   // person, rule, policy
	Via      string          `json:"via,omitempty"`  // where a person decided (older journals: none)
	// CallID and Rule are format 1's, which journaled the whole decision; never written.
	CallID string `json:"call_id,omitempty"`
	Rule   string `json:"rule,omitempty"`
}

// Executes reports whether the decision lets its call run: anything but a veto does.
func (d *Decision) Executes() bool { return d.Decision != Veto }

// Notes is a notes change: the version, and what changed.
type Notes struct {
	Version int               `json:"version"`
	Changed []string          `json:"changed,omitempty"` // the "## " sections whose text changed
	Plan    []json.RawMessage `json:"plan,omitempty"`    // the plan steps that changed or were added ({id, text, status})
	Removed int               `json:"plan_removed,omitempty"`
	// Text is the whole notes, which format 1 journaled; nil in format 2, which leaves
	// the text to the notebook's notes history.
	Text *string `json:"text,omitempty"`
}

// Rules are a rules_changed record's approval rules, canonical lines. A notebook
// written before approval rules holds a map of always-allowed tools there: it is read
// as "allow TOOL" for each.
type Rules []string

// UnmarshalJSON reads rule lines, or the older map of always-allowed tools.
func (r *Rules) UnmarshalJSON(b []byte) error {
	var lines []string
	if err := json.Unmarshal(b, &lines); err == nil {
		*r = lines
		return nil
	}
	var old map[string]bool
	if err := json.Unmarshal(b, &old); err != nil {
		return fmt.Errorf("rules: want a list of rule lines or a map of tools: %s", abbrev(b))
	}
	lines = nil
	for tool, on := range old {
		if on {
			lines = append(lines, "allow "+tool)
		}
	}
	sort.Strings(lines)
	*r = lines
	return nil
}

// Encode writes d as the data of a record of type t, keeping what the format keeps for
// that type (see above) and nothing else: a decision record holds d.Decision; a
// tool_started record, nothing but the person's own move's call and where it was
// played; an outcome_unknown record, nothing; an observation or notes_changed
// record, its observation or notes change and text (nothing without them); a
// tool_result, its result and text; any other, every field of d but those three. A
// call's arguments that are not JSON (a model's broken output) are kept as the string
// they were. Data that would be {} is none (nil).
func Encode(t Type, d Data) (json.RawMessage, error) {
	var v any
	switch t {
	case TypeDecision:
		if d.Decision != nil {
			v = d.Decision
		}
	case TypeToolStart:
		if d.Call != nil && d.Call.By == ByPerson {
			v = Data{Via: d.Via, Call: d.Call} // the person's own move: nobody proposed it
		}
	case TypeOutcomeUnknown:
	case TypeObservation:
		if d.Observation != nil {
			v = Data{Text: d.Text, Observation: d.Observation}
		}
	case TypeNotes:
		if d.Notes != nil {
			v = Data{Text: d.Text, Notes: d.Notes}
		}
	case TypeResult:
		v = Data{Text: d.Text, Result: d.Result}
	default:
		d.Observation, d.Notes, d.Decision = nil, nil, nil
		if d.Call != nil && len(d.Call.Args) > 0 && !json.Valid(d.Call.Args) {
			c := *d.Call
			s, err := json.Marshal(string(c.Args))
			if err != nil {
				return nil, err
			}
			c.Args = s
			d.Call = &c
		}
		v = d
	}
	if v == nil {
		return nil, nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%s data: %w", t, err)
	}
	if bytes.Equal(data, []byte("{}")) {
		return nil, nil
	}
	return data, nil
}

// Decode reads the data of a record of type t, of either format: a decision record's
// into Data.Decision (an empty decision when it has no data), any other's into the rest
// of Data. Data that does not have the format's shape is an error; fields the format
// does not know (format 1's envelope, fields of a newer coplay) are not read (Unknown
// has them).
func Decode(t Type, raw json.RawMessage) (Data, error) {
	var d Data
	if t == TypeDecision {
		d.Decision = &Decision{}
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, d.Decision); err != nil {
				return Data{}, fmt.Errorf("decision: %w", err)
			}
		}
		return d, nil
	}
	if len(raw) == 0 {
		return d, nil
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return Data{}, err
	}
	return d, nil
}

// known are the keys of Data's fields, which Unknown leaves out.
var known = func() map[string]bool {
	m := map[string]bool{}
	t := reflect.TypeFor[Data]()
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			m[name] = true
		}
	}
	return m
}()

// Unknown returns the fields of a record's data (an object) that Data does not have:
// what a writer before format 1 or after this one put there, for a reader that shows
// everything (the export). It is nil when there are none.
func Unknown(raw json.RawMessage) (map[string]json.RawMessage, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(raw, &all); err != nil {
		return nil, err
	}
	for k := range all {
		if known[k] {
			delete(all, k)
		}
	}
	if len(all) == 0 {
		return nil, nil
	}
	return all, nil
}

// Observation is an observation as journaled: Summary whole, or SummaryEdits against
// the summary of the observation journaled before it; Metrics, Timers and Map only when
// they changed (left out when they became empty), or MapEdits when only some of the
// map's points did; Same names the fields unchanged. The agent writes it whole every
// so often and first in a run, so that a reader of the journal's tail finds a base soon.
// Format 1 journaled every observation whole (game.Observation's JSON, which this
// reads as it is).
type Observation struct {
	Summary      string          `json:"summary,omitempty"`
	SummaryEdits []LineEdit      `json:"summary_edits,omitempty"`
	Metrics      json.RawMessage `json:"metrics,omitempty"` // []game.Metric
	Timers       json.RawMessage `json:"timers,omitempty"`  // []game.Timer
	Map          json.RawMessage `json:"map,omitempty"`     // a game.Map
	MapEdits     []PointEdit     `json:"map_edits,omitempty"`
	Time         time.Time       `json:"time,omitzero"` // when the step looked
	IdleUntil    time.Time       `json:"idle_until,omitzero"`
	IdleReason   string          `json:"idle_reason,omitempty"`
	Same         []string        `json:"same,omitempty"` // of FieldSummary, FieldMetrics, FieldTimers, FieldMap
}

// The fields of an observation that Same can name.
const (
	FieldSummary = "summary"
	FieldMetrics = "metrics"
	FieldTimers  = "timers"
	FieldMap     = "map"
)

// PointEdit is one changed point of a map: its index and its new value (a game.Point).
type PointEdit struct {
	I int             `json:"i"`
	P json.RawMessage `json:"p"`
}

// Unchanged reports whether o says field is as it was in the observation before.
func (o *Observation) Unchanged(field string) bool {
	for _, f := range o.Same {
		if f == field {
			return true
		}
	}
	return false
}

// Relative reports whether o is written against the observation before it (edits, or
// fields unchanged), so that it cannot be read without that one.
func (o *Observation) Relative() bool {
	return len(o.SummaryEdits) > 0 || len(o.MapEdits) > 0 || len(o.Same) > 0
}

// ErrNoBase is the error of an observation written against one the reader does not
// have (it read the journal from its middle): not damage, and read on from the next
// whole observation.
var ErrNoBase = errors.New("the observation is written as changes to one before it, which was not read")

// SummaryAfter returns the summary o describes, given the summary of the observation
// before it (known is false when the reader does not have it): o's own when it is
// whole, prev when unchanged, prev with o's edits applied. The error is ErrNoBase when
// o needs prev and it is not known, and names the edit when the edits do not fit prev.
func (o *Observation) SummaryAfter(prev string, known bool) (string, error) {
	switch {
	case len(o.SummaryEdits) > 0:
		if !known {
			return "", ErrNoBase
		}
		return ApplyLines(prev, o.SummaryEdits)
	case o.Unchanged(FieldSummary):
		if !known {
			return "", ErrNoBase
		}
		return prev, nil
	}
	return o.Summary, nil
}

// abbrev is b cut for a message.
func abbrev(b []byte) string {
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}
