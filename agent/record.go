package agent

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/notes"
)

// This file is how events become journal records (and, in recover.go and resume.go,
// how they are read back). Buffering and committing them is emit.go's.
//
// A record's envelope (seq, time, type, step, call id) lives in the record, never again
// in its Data. Data holds only what the record adds:
//
//   - tool_proposed, tool_updated: {"call": {tool, kind, args, problems, simulation,
//     needs_ok}} (read back, the kind comes from the catalogue);
//   - decision: the Decision without its call id ({"decision": ..., "by": ...});
//   - tool_started: nothing (the call id names the proposal, and an edit's arguments are
//     in the decision), except for the person's own move, which nobody proposed:
//     {"call": {tool, kind, args, by: "person"}};
//   - tool_result: {"result": ...}; outcome_unknown: nothing;
//   - observation: what changed since the last one journaled (see recObs): its time,
//     and the summary as line edits, metrics and timers when they moved, the map's
//     changed points; whole every obsCheckpoint-th observation and first in a run;
//   - notes_changed: the version, the sections that changed and the plan steps that
//     changed (the notes themselves live in the notebook's notes and plan buckets, and
//     the new text is in the update_notes call's arguments);
//   - anything else: the event's own fields.

// recorder is what the encoder remembers between events so as to journal only what
// changed. Owned by the Run goroutine (the journal's).
type recorder struct {
	obs      *game.Observation // the last observation journaled, whole
	mapJSON  []byte            // its map, encoded
	obsCount int               // observations journaled since the last checkpoint
	notes    *NotesView        // the last notes journaled, whole
}

// obsCheckpoint is how often an observation's summary is journaled whole rather than as
// edits, so that a reader of the journal's tail (a resumed screen) finds a base soon.
const obsCheckpoint = 20

// recData is a record's Data: an event without its envelope.
type recData struct {
	Text        string        `json:"text,omitempty"`
	Via         string        `json:"via,omitempty"` // advice: where it was given
	Call        *recCall      `json:"call,omitempty"`
	Result      *game.Result  `json:"result,omitempty"`
	Observation *recObs       `json:"observation,omitempty"`
	Notes       *recNotes     `json:"notes,omitempty"`
	Wait        *game.Wait    `json:"wait,omitempty"`
	Usage       *Usage        `json:"usage,omitempty"`
	State       State         `json:"state,omitempty"`
	Rules       []string      `json:"rules,omitempty"`
	Trigger     *game.Trigger `json:"trigger,omitempty"`
	Elicitation *Elicitation  `json:"elicitation,omitempty"`
	Sampling    *Sampling     `json:"sampling,omitempty"`
	Progress    *Progress     `json:"progress,omitempty"`
	ServerLog   *game.LogLine `json:"server_log,omitempty"`
	Plays       string        `json:"plays,omitempty"` // wheel: who plays
}

// recCall is a call without its id (the record's). Its kind is written for readers of
// the journal (checks, exports); read back, the catalogue's is used.
type recCall struct {
	Tool       string           `json:"tool"`
	Kind       string           `json:"kind,omitempty"`
	Args       json.RawMessage  `json:"args,omitempty"`
	Problems   []game.Problem   `json:"problems,omitempty"`
	Simulation *game.Simulation `json:"simulation,omitempty"`
	NeedsOK    bool             `json:"needs_ok,omitempty"`
	FromText   bool             `json:"from_text,omitempty"` // read from the model's text
	Why        string           `json:"why,omitempty"`       // the brain's reason for this call alone
	By         string           `json:"by,omitempty"`        // "person": the person's own move
}

// recObs is an observation as journaled: Summary whole, or SummaryEdits against the
// last one journaled; Map, Metrics and Timers only when they changed (an empty list
// when they became empty).
type recObs struct {
	Summary      string        `json:"summary,omitempty"`
	SummaryEdits []lineEdit    `json:"summary_edits,omitempty"`
	Metrics      []game.Metric `json:"metrics,omitempty"`
	Timers       []game.Timer  `json:"timers,omitempty"`
	Map          *game.Map     `json:"map,omitempty"`
	MapEdits     []pointEdit   `json:"map_edits,omitempty"` // the map's points that changed
	Time         time.Time     `json:"time,omitzero"`
	IdleUntil    time.Time     `json:"idle_until,omitzero"`
	IdleReason   string        `json:"idle_reason,omitempty"`
	Same         []string      `json:"same,omitempty"` // fields unchanged: summary, metrics, timers, map
}

// pointEdit is one changed point of a map: its index and its new value.
type pointEdit struct {
	I int        `json:"i"`
	P game.Point `json:"p"`
}

// recDecision is a decision without its call id (the record's).
type recDecision struct {
	Decision Verdict         `json:"decision"`
	Reason   string          `json:"reason,omitempty"`
	Args     json.RawMessage `json:"args,omitempty"`
	By       string          `json:"by,omitempty"`
	Via      string          `json:"via,omitempty"` // where a person decided (older journals: none)
}

// recNotes is a notes change: the version and what changed.
type recNotes struct {
	Version int        `json:"version"`
	Changed []string   `json:"changed,omitempty"` // the sections whose text changed
	Plan    []PlanStep `json:"plan,omitempty"`    // the plan steps that changed or were added
	Removed int        `json:"plan_removed,omitempty"`
}

// record encodes ev as a journal record, without writing it. It remembers the last
// observation and notes it encoded, so records must be encoded in journal order.
func (c *recorder) record(ev *Event) (notes.Record, error) {
	rec := notes.Record{Time: ev.Time, Type: string(ev.Type), Step: ev.Step}
	switch {
	case ev.Call != nil:
		rec.CallID = ev.Call.ID
	case ev.Decision != nil:
		rec.CallID = ev.Decision.CallID
	}
	var v any
	switch ev.Type {
	case EventDecision:
		if d := ev.Decision; d != nil {
			v = recDecision{Decision: d.Decision, Reason: d.Reason, Args: d.Args, By: d.By, Via: d.Via}
		}
	case EventToolStart:
		// The call id names its proposal; the person's own move has none, so its start
		// carries the call.
		if c := ev.Call; c != nil && c.By != "" {
			v = recData{Call: &recCall{Tool: c.Tool, Kind: c.Kind.String(), Args: c.Args, By: c.By}, Via: ev.Via}
		}
	case EventOutcomeUnknown:
		// The type says it all.
	case EventResult:
		v = recData{Result: ev.Result, Text: ev.Text}
	case EventObservation:
		if ev.Observation != nil {
			if o := c.observation(*ev.Observation); o != nil {
				v = recData{Observation: o, Text: ev.Text}
			}
		}
	case EventNotes:
		if ev.Notes != nil {
			v = recData{Notes: c.notesChange(*ev.Notes), Text: ev.Text}
		}
	default:
		d := recData{Text: ev.Text, Via: ev.Via, Result: ev.Result, Wait: ev.Wait, Usage: ev.Usage, State: ev.State, Rules: ev.Rules, Trigger: ev.Trigger,
			Elicitation: ev.Elicitation, Sampling: ev.Sampling, Progress: ev.Progress, ServerLog: ev.ServerLog, Plays: ev.Plays}
		if ev.Call != nil {
			d.Call = &recCall{Tool: ev.Call.Tool, Kind: ev.Call.Kind.String(), Args: ev.Call.Args, Problems: ev.Call.Problems,
				Simulation: ev.Call.Simulation, NeedsOK: ev.Call.NeedsOK, FromText: ev.Call.FromText, Why: ev.Call.Why}
			if len(d.Call.Args) > 0 && !json.Valid(d.Call.Args) {
				// A model's broken arguments are kept, as the string they were.
				s, _ := json.Marshal(string(d.Call.Args))
				d.Call.Args = s
			}
		}
		v = d
	}
	if v != nil {
		data, err := json.Marshal(v)
		if err != nil {
			return notes.Record{}, err
		}
		if !bytes.Equal(data, []byte("{}")) {
			rec.Data = data
		}
	}
	return rec, nil
}

// observation returns what o changes against the last observation journaled, and
// remembers o. The time is always kept: it is when the step looked.
func (c *recorder) observation(o game.Observation) *recObs {
	out := &recObs{Time: o.Time, IdleUntil: o.IdleUntil, IdleReason: o.IdleReason}
	mapJSON, _ := json.Marshal(o.Map)
	prev := c.obs
	switch {
	case prev == nil || c.obsCount >= obsCheckpoint:
		out.Summary = o.Summary
		c.obsCount = 0
	case prev.Summary == o.Summary:
		out.Same = append(out.Same, "summary")
	default:
		out.SummaryEdits = diffLines(prev.Summary, o.Summary)
	}
	c.obsCount++
	if prev != nil && sameJSON(prev.Metrics, o.Metrics) {
		out.Same = append(out.Same, "metrics")
	} else {
		out.Metrics = nonNil(o.Metrics)
	}
	if prev != nil && sameJSON(prev.Timers, o.Timers) {
		out.Same = append(out.Same, "timers")
	} else {
		out.Timers = nonNil(o.Timers)
	}
	switch {
	case prev != nil && bytes.Equal(c.mapJSON, mapJSON):
		out.Same = append(out.Same, "map")
	case prev != nil && prev.Map != nil && o.Map != nil && prev.Map.Title == o.Map.Title && len(prev.Map.Points) == len(o.Map.Points):
		for i, p := range o.Map.Points {
			if !sameJSON(p, prev.Map.Points[i]) {
				out.MapEdits = append(out.MapEdits, pointEdit{I: i, P: p})
			}
		}
	default:
		out.Map = o.Map
	}
	cp := o
	c.obs, c.mapJSON = &cp, mapJSON
	return out
}

// apply rebuilds the observation o describes, given the one before it (nil when not
// known); ok is false when o is relative to an observation that is not known.
func (o *recObs) apply(prev *game.Observation) (game.Observation, bool) {
	var out game.Observation
	if prev != nil {
		out = *prev
	}
	same := map[string]bool{}
	for _, f := range o.Same {
		same[f] = true
	}
	if (len(o.SummaryEdits) > 0 || len(o.MapEdits) > 0 || len(same) > 0) && prev == nil {
		return out, false
	}
	switch {
	case len(o.SummaryEdits) > 0:
		s, ok := applyLines(prev.Summary, o.SummaryEdits)
		if !ok {
			return out, false
		}
		out.Summary = s
	case !same["summary"]:
		out.Summary = o.Summary
	}
	if !same["metrics"] {
		out.Metrics = o.Metrics
	}
	if !same["timers"] {
		out.Timers = o.Timers
	}
	switch {
	case len(o.MapEdits) > 0:
		if prev == nil || prev.Map == nil {
			return out, false
		}
		m := *prev.Map
		m.Points = append([]game.Point(nil), m.Points...)
		for _, e := range o.MapEdits {
			if e.I < 0 || e.I >= len(m.Points) {
				return out, false
			}
			m.Points[e.I] = e.P
		}
		out.Map = &m
	case !same["map"]:
		out.Map = o.Map
	}
	out.Time, out.IdleUntil, out.IdleReason = o.Time, o.IdleUntil, o.IdleReason
	return out, true
}

// notesChange returns what v changes against the notes last journaled, and remembers v.
func (c *recorder) notesChange(v NotesView) *recNotes {
	out := &recNotes{Version: v.Version}
	prev := c.notes
	cp := v
	c.notes = &cp
	if prev == nil {
		// The first of a run: the notebook has the text; say which version it is.
		return out
	}
	if prev.Text != v.Text {
		out.Changed = changedSections(prev.Text, v.Text)
	}
	for i, s := range v.Plan {
		if i >= len(prev.Plan) || prev.Plan[i] != s {
			out.Plan = append(out.Plan, s)
		}
	}
	if n := len(prev.Plan) - len(v.Plan); n > 0 {
		out.Removed = n
	}
	return out
}

// changedSections names the "## " sections whose text differs between two versions of
// the notes ("(the notes)" for text outside any section).
func changedSections(old, cur string) []string {
	a, b := splitSections(old), splitSections(cur)
	var out []string
	seen := map[string]bool{}
	for _, s := range b.order {
		seen[s] = true
		if a.body[s] != b.body[s] || !a.has(s) {
			out = append(out, s)
		}
	}
	for _, s := range a.order {
		if !seen[s] {
			out = append(out, s)
		}
	}
	return out
}

type sections struct {
	order []string
	body  map[string]string
}

func (s sections) has(name string) bool { _, ok := s.body[name]; return ok }

func splitSections(doc string) sections {
	s := sections{body: map[string]string{}}
	name := "(the notes)"
	var cur strings.Builder
	flush := func() {
		if _, ok := s.body[name]; !ok {
			s.order = append(s.order, name)
		}
		s.body[name] += cur.String()
		cur.Reset()
	}
	for _, line := range strings.Split(doc, "\n") {
		if t, ok := strings.CutPrefix(line, "## "); ok {
			flush()
			name = strings.TrimSpace(t)
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
	}
	flush()
	return s
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// nonNil makes an empty list encode as [] (it became empty) rather than be left out.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// RecentEvents returns up to n of the last journaled events of s, oldest first, decoded
// for display (a resumed screen's log). Records it cannot read are skipped, and so are
// observations journaled as changes to one before the window, and notes changes (the
// screen gets the notebook itself when the runner starts).
func RecentEvents(s *notes.Session, n int) ([]Event, error) {
	recs, err := s.Tail(n)
	if err != nil {
		return nil, err
	}
	var d decoder
	out := make([]Event, 0, len(recs))
	for _, rec := range recs {
		ev, ok := d.event(rec)
		if !ok || ev.Type == EventNotes {
			continue
		}
		out = append(out, ev)
	}
	return out, nil
}

// decoder turns records back into events, in journal order: it remembers the calls
// proposed and the last observation, which later records refer to.
type decoder struct {
	calls map[string]*Call
	obs   *game.Observation
}

// event decodes one record; ok is false when it cannot be read.
func (d *decoder) event(rec notes.Record) (Event, bool) {
	if d.calls == nil {
		d.calls = map[string]*Call{}
	}
	ev := Event{Seq: rec.Seq, Time: rec.Time, Type: EventType(rec.Type), Step: rec.Step}
	if ev.Type == EventDecision {
		var dec Decision
		if len(rec.Data) > 0 && json.Unmarshal(rec.Data, &dec) != nil {
			return ev, false
		}
		dec.CallID = rec.CallID
		ev.Decision = &dec
		return ev, true
	}
	var full legacyEvent
	if len(rec.Data) > 0 && json.Unmarshal(rec.Data, &full) != nil {
		return ev, false
	}
	ev.Text, ev.Result, ev.Wait, ev.Usage, ev.State, ev.Rules = full.Text, full.Result, full.Wait, full.Usage, full.State, ruleLines(full.Rules)
	ev.Via = full.Via
	ev.Trigger, ev.Plays = full.Trigger, full.Plays
	ev.Elicitation, ev.Sampling, ev.Progress, ev.ServerLog = full.Elicitation, full.Sampling, full.Progress, full.ServerLog
	if full.Notes != nil {
		ev.Notes = &NotesView{Text: full.Notes.Text, Version: full.Notes.Version, Plan: full.Notes.Plan}
	}
	if rec.CallID != "" {
		c := d.calls[rec.CallID]
		if full.Call != nil {
			// A proposal (or, in format 1, any call record): it carries the call.
			nc := Call{ID: rec.CallID, Tool: full.Call.Tool, Args: full.Call.Args, Problems: full.Call.Problems,
				Simulation: full.Call.Simulation, NeedsOK: full.Call.NeedsOK, FromText: full.Call.FromText, Why: full.Call.Why,
				By: full.Call.By}
			if c == nil || ev.Type == EventProposed || ev.Type == EventToolUpdated {
				c = &nc
				d.calls[rec.CallID] = c
			} else {
				c = &nc
			}
		}
		if c == nil {
			c = &Call{ID: rec.CallID, Args: json.RawMessage("{}")}
		}
		cp := *c
		ev.Call = &cp
		if ev.Type == EventOutcomeUnknown && ev.Result == nil {
			ev.Result = &game.Result{Unknown: true}
		}
	}
	if full.Observation != nil {
		obs, ok := full.Observation.apply(d.obs)
		if !ok {
			return ev, false
		}
		d.obs = &obs
		cp := obs
		ev.Observation = &cp
	}
	return ev, true
}

// legacyEvent reads both formats' Data: format 1 stored the whole event (its call with
// id and kind, its observation whole); format 2 stores recData. Fields either may have:
// recData's, with notes and rules read in their older forms too.
type legacyEvent struct {
	recData
	Notes *legacyNotes `json:"notes"`
	// Rules is a list of rule lines; a notebook written before approval rules holds a
	// map of always-allowed tools there (see ruleLines).
	Rules json.RawMessage `json:"rules"`
}

// ruleLines reads a rules_changed record's rules: rule lines, or the older map of
// always-allowed tools, each read as "allow TOOL".
func ruleLines(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var lines []string
	if json.Unmarshal(raw, &lines) == nil {
		return lines
	}
	var old map[string]bool
	if json.Unmarshal(raw, &old) != nil {
		return nil
	}
	for tool, on := range old {
		if on {
			lines = append(lines, "allow "+tool)
		}
	}
	sort.Strings(lines)
	return lines
}

// legacyNotes reads a notes change of either format.
type legacyNotes struct {
	Text    string     `json:"text"`
	Version int        `json:"version"`
	Plan    []PlanStep `json:"plan"`
}
