package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/notes"
	"github.com/coplayhq/coplay/notes/record"
)

// This file is how events become journal records and are read back. The format (what
// each record type keeps, the observation's and the notes' changes, line edits) is
// package record's (notes/record): here an event's values are put in a record.Data and
// taken out of one. Buffering and committing the records is journal.go's and emit.go's.

// recorder is what the encoder remembers between events so as to journal only what
// changed. Owned by the Run goroutine (the journal's).
type recorder struct {
	obs         *game.Observation // the last observation journaled, whole
	mapJSON     []byte            // its map, encoded
	metricsJSON []byte            // its metrics, encoded
	timersJSON  []byte            // its timers, encoded
	obsCount    int               // observations journaled since the last checkpoint
	notes       *NotesView        // the last notes journaled, whole
}

// obsCheckpoint is how often an observation's summary is journaled whole rather than as
// edits, so that a reader of the journal's tail (a resumed screen) finds a base soon.
const obsCheckpoint = 20

// encode encodes ev as a journal record, without writing it. It remembers the last
// observation and notes it encoded, so records must be encoded in journal order.
func (c *recorder) encode(ev *Event) (notes.Record, error) {
	rec := notes.Record{Time: ev.Time, Type: record.Type(ev.Type), Step: ev.Step}
	switch {
	case ev.Call != nil:
		rec.CallID = ev.Call.ID
	case ev.Decision != nil:
		rec.CallID = ev.Decision.CallID
	}
	var d record.Data
	var err error
	switch ev.Type {
	case EventDecision:
		if x := ev.Decision; x != nil {
			d.Decision = &record.Decision{Decision: string(x.Decision), Reason: x.Reason, Args: x.Args, By: x.By, Via: x.Via}
		}
	case EventToolStart:
		// The call id names its proposal (record.Encode keeps nothing), except for the
		// person's own move, which nobody proposed: its start carries the call and where
		// it was played.
		if c := ev.Call; c != nil && c.By != "" {
			d.Call, d.Via = &record.Call{Tool: c.Tool, Kind: c.Kind.String(), Args: c.Args, By: c.By}, ev.Via
		}
	case EventOutcomeUnknown:
		// The call id says it all (record.Encode keeps nothing).
	case EventObservation:
		if ev.Observation != nil {
			d.Observation, err = c.observation(*ev.Observation)
		}
	case EventNotes:
		if ev.Notes != nil {
			d.Notes, err = c.notesChange(*ev.Notes)
		}
	default:
		err = eventData(ev, &d)
	}
	d.Text = ev.Text
	if err == nil {
		rec.Data, err = record.Encode(rec.Type, d)
	}
	if err != nil {
		return notes.Record{}, fmt.Errorf("journaling %s: %w", ev.Type, err)
	}
	return rec, nil
}

// eventData puts the event's own values in d, each as its JSON (record.Encode keeps
// those of them the record's type has).
func eventData(ev *Event, d *record.Data) error {
	d.Via, d.State, d.Rules, d.Plays = ev.Via, string(ev.State), ev.Rules, ev.Plays
	if c := ev.Call; c != nil {
		d.Call = &record.Call{Tool: c.Tool, Kind: c.Kind.String(), Args: c.Args, NeedsOK: c.NeedsOK, FromText: c.FromText, Why: c.Why}
		if len(c.Problems) > 0 {
			if err := marshalTo(&d.Call.Problems, &c.Problems); err != nil {
				return err
			}
		}
		if err := marshalTo(&d.Call.Simulation, c.Simulation); err != nil {
			return err
		}
	}
	return errors.Join(marshalTo(&d.Result, ev.Result), marshalTo(&d.Wait, ev.Wait), marshalTo(&d.Usage, ev.Usage),
		marshalTo(&d.Trigger, ev.Trigger), marshalTo(&d.Elicitation, ev.Elicitation), marshalTo(&d.Sampling, ev.Sampling),
		marshalTo(&d.Progress, ev.Progress), marshalTo(&d.ServerLog, ev.ServerLog))
}

// marshalTo sets *dst to v's JSON, or leaves it nil when v is nil.
func marshalTo[T any](dst *json.RawMessage, v *T) error {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	*dst = b
	return nil
}

// observation returns what o changes against the last observation journaled, and
// remembers o. The time is always kept: it is when the step looked. The summary is whole
// every obsCheckpoint-th observation and first in a run.
func (c *recorder) observation(o game.Observation) (*record.Observation, error) {
	out := &record.Observation{Time: o.Time, IdleUntil: o.IdleUntil, IdleReason: o.IdleReason}
	mapJSON, err := json.Marshal(o.Map)
	if err != nil {
		return nil, err
	}
	metricsJSON, err := json.Marshal(o.Metrics)
	if err != nil {
		return nil, err
	}
	timersJSON, err := json.Marshal(o.Timers)
	if err != nil {
		return nil, err
	}
	prev := c.obs
	switch {
	case prev == nil || c.obsCount >= obsCheckpoint:
		out.Summary = o.Summary
		c.obsCount = 0
	case prev.Summary == o.Summary:
		out.Same = append(out.Same, record.FieldSummary)
	default:
		out.SummaryEdits = record.DiffLines(prev.Summary, o.Summary)
	}
	c.obsCount++
	// Metrics and timers that became empty are left out (not "same": read back, empty).
	switch {
	case prev != nil && bytes.Equal(c.metricsJSON, metricsJSON):
		out.Same = append(out.Same, record.FieldMetrics)
	case len(o.Metrics) > 0:
		out.Metrics = metricsJSON
	}
	switch {
	case prev != nil && bytes.Equal(c.timersJSON, timersJSON):
		out.Same = append(out.Same, record.FieldTimers)
	case len(o.Timers) > 0:
		out.Timers = timersJSON
	}
	switch {
	case prev != nil && bytes.Equal(c.mapJSON, mapJSON):
		out.Same = append(out.Same, record.FieldMap)
	case prev != nil && prev.Map != nil && o.Map != nil && prev.Map.Title == o.Map.Title && len(prev.Map.Points) == len(o.Map.Points):
		for i, p := range o.Map.Points {
			pj, err := json.Marshal(p)
			if err != nil {
				return nil, err
			}
			if was, _ := json.Marshal(prev.Map.Points[i]); !bytes.Equal(pj, was) {
				out.MapEdits = append(out.MapEdits, record.PointEdit{I: i, P: pj})
			}
		}
	case o.Map != nil:
		out.Map = mapJSON
	}
	cp := o
	c.obs, c.mapJSON, c.metricsJSON, c.timersJSON = &cp, mapJSON, metricsJSON, timersJSON
	return out, nil
}

// applyObservation rebuilds the observation o describes, given the one before it (nil
// when not known). The error wraps record.ErrNoBase when o is written against an
// observation not known.
func applyObservation(o *record.Observation, prev *game.Observation) (game.Observation, error) {
	var out game.Observation
	if prev != nil {
		out = *prev
	}
	if prev == nil && o.Relative() {
		return out, record.ErrNoBase
	}
	s, err := o.SummaryAfter(out.Summary, prev != nil)
	if err != nil {
		return out, fmt.Errorf("summary: %w", err)
	}
	out.Summary = s
	if !o.Unchanged(record.FieldMetrics) {
		out.Metrics = nil
		if err := unmarshalRaw(o.Metrics, &out.Metrics); err != nil {
			return out, fmt.Errorf("metrics: %w", err)
		}
	}
	if !o.Unchanged(record.FieldTimers) {
		out.Timers = nil
		if err := unmarshalRaw(o.Timers, &out.Timers); err != nil {
			return out, fmt.Errorf("timers: %w", err)
		}
	}
	switch {
	case len(o.MapEdits) > 0:
		if prev.Map == nil {
			return out, errors.New("map edits to an observation without a map")
		}
		m := *prev.Map
		m.Points = append([]game.Point(nil), m.Points...)
		for _, e := range o.MapEdits {
			if e.I < 0 || e.I >= len(m.Points) {
				return out, fmt.Errorf("map edit of point %d, of %d", e.I, len(m.Points))
			}
			var p game.Point
			if err := json.Unmarshal(e.P, &p); err != nil {
				return out, fmt.Errorf("map point %d: %w", e.I, err)
			}
			m.Points[e.I] = p
		}
		out.Map = &m
	case !o.Unchanged(record.FieldMap):
		out.Map = nil
		if err := unmarshalRaw(o.Map, &out.Map); err != nil {
			return out, fmt.Errorf("map: %w", err)
		}
	}
	out.Time, out.IdleUntil, out.IdleReason = o.Time, o.IdleUntil, o.IdleReason
	return out, nil
}

// notesChange returns what v changes against the notes last journaled, and remembers v.
func (c *recorder) notesChange(v NotesView) (*record.Notes, error) {
	out := &record.Notes{Version: v.Version}
	prev := c.notes
	cp := v
	c.notes = &cp
	if prev == nil {
		// The first of a run: the notebook has the text; say which version it is.
		return out, nil
	}
	if prev.Text != v.Text {
		out.Changed = changedSections(prev.Text, v.Text)
	}
	for i, s := range v.Plan {
		if i >= len(prev.Plan) || prev.Plan[i] != s {
			b, err := json.Marshal(s)
			if err != nil {
				return nil, err
			}
			out.Plan = append(out.Plan, b)
		}
	}
	if n := len(prev.Plan) - len(v.Plan); n > 0 {
		out.Removed = n
	}
	return out, nil
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

// unmarshalRaw reads raw into v; absent or null leaves v as it is.
func unmarshalRaw(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return json.Unmarshal(raw, v)
}

// valueOf reads raw, another package's value as journaled, into a new T; nil when it is
// absent or null. what names it in the error.
func valueOf[T any](raw json.RawMessage, what string) (*T, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	v := new(T)
	if err := json.Unmarshal(raw, v); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return v, nil
}

// RecentEvents returns up to n of the last journaled events of s, oldest first, decoded
// for display (a resumed screen's log). Observations journaled as changes to one before
// the window are left out, and so are notes changes (the screen gets the notebook itself
// when the runner starts). Records that cannot be read are not: the log ends with an
// error event that names them.
func RecentEvents(s *notes.Session, n int) ([]Event, error) {
	recs, err := s.Tail(n)
	if err != nil {
		return nil, err
	}
	var d decoder
	var bad unreadable
	out := make([]Event, 0, len(recs))
	for _, rec := range recs {
		ev, err := d.event(rec)
		switch {
		case errors.Is(err, record.ErrNoBase):
			continue
		case err != nil:
			bad.add(err)
			continue
		case ev.Type == EventNotes:
			continue
		}
		out = append(out, ev)
	}
	if bad.n > 0 {
		out = append(out, bad.event("the log"))
	}
	return out, nil
}

// unreadable counts the records a reader of the journal's tail could not read, keeping
// the first error to tell the person.
type unreadable struct {
	n     int
	first error
}

func (u *unreadable) add(err error) {
	if u.n == 0 {
		u.first = err
	}
	u.n++
}

// event tells the person what was left out of where: "resuming: 3 journal records cannot
// be read (journal record 12 (tool_result): ...); left out of the log".
func (u *unreadable) event(where string) Event {
	n := "1 journal record cannot be read"
	if u.n > 1 {
		n = fmt.Sprintf("%d journal records cannot be read", u.n)
	}
	return errorEvent("resuming: %s (%v); left out of %s", n, u.first, where)
}

// decoder turns records back into events, in journal order: it remembers the calls
// proposed and the last observation, which later records refer to.
type decoder struct {
	calls map[string]*Call
	obs   *game.Observation
}

// event decodes one record. The error names the record; it wraps record.ErrNoBase for
// an observation written against one before those decoded (a reader of the journal's
// tail meets these first).
func (d *decoder) event(rec notes.Record) (Event, error) {
	ev, _, err := d.decode(rec)
	return ev, err
}

// decode decodes one record, and returns its data as journaled too.
func (d *decoder) decode(rec notes.Record) (Event, record.Data, error) {
	ev, data, err := d.read(rec)
	if err != nil {
		err = fmt.Errorf("journal record %d (%s): %w", rec.Seq, rec.Type, err)
	}
	return ev, data, err
}

// read is decode without the record's name on its errors.
func (d *decoder) read(rec notes.Record) (Event, record.Data, error) {
	if d.calls == nil {
		d.calls = map[string]*Call{}
	}
	ev := Event{Seq: rec.Seq, Time: rec.Time, Type: EventType(rec.Type), Step: rec.Step}
	data, err := record.Decode(rec.Type, rec.Data)
	if err != nil {
		return ev, data, err
	}
	if x := data.Decision; x != nil {
		ev.Decision = &Decision{CallID: rec.CallID, Decision: Verdict(x.Decision), Reason: x.Reason, Args: x.Args, By: x.By, Rule: x.Rule, Via: x.Via}
		return ev, data, nil
	}
	ev.Text, ev.Via, ev.State, ev.Rules, ev.Plays = data.Text, data.Via, State(data.State), data.Rules, data.Plays
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	ev.Result, err = valueOf[game.Result](data.Result, "result")
	add(err)
	ev.Wait, err = valueOf[game.Wait](data.Wait, "wait")
	add(err)
	ev.Usage, err = valueOf[Usage](data.Usage, "usage")
	add(err)
	ev.Trigger, err = valueOf[game.Trigger](data.Trigger, "trigger")
	add(err)
	ev.Elicitation, err = valueOf[Elicitation](data.Elicitation, "elicitation")
	add(err)
	ev.Sampling, err = valueOf[Sampling](data.Sampling, "sampling")
	add(err)
	ev.Progress, err = valueOf[Progress](data.Progress, "progress")
	add(err)
	ev.ServerLog, err = valueOf[game.LogLine](data.ServerLog, "server_log")
	add(err)
	if n := data.Notes; n != nil {
		nv := &NotesView{Version: n.Version}
		if n.Text != nil {
			nv.Text = *n.Text
		}
		for _, raw := range n.Plan {
			var st PlanStep
			if err := json.Unmarshal(raw, &st); err != nil {
				add(fmt.Errorf("plan step: %w", err))
				break
			}
			nv.Plan = append(nv.Plan, st)
		}
		ev.Notes = nv
	}
	if err := errors.Join(errs...); err != nil {
		return ev, data, err
	}
	if rec.CallID != "" {
		c := d.calls[rec.CallID]
		if data.Call != nil {
			// A proposal (or, in format 1, any call record): it carries the call.
			nc, err := callFrom(rec.CallID, data.Call)
			if err != nil {
				return ev, data, err
			}
			if c == nil || ev.Type == EventProposed || ev.Type == EventToolUpdated {
				d.calls[rec.CallID] = &nc
			}
			c = &nc
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
	if data.Observation != nil {
		obs, err := applyObservation(data.Observation, d.obs)
		if err != nil {
			return ev, data, fmt.Errorf("observation: %w", err)
		}
		d.obs = &obs
		cp := obs
		ev.Observation = &cp
	}
	return ev, data, nil
}

// callFrom is the call a record carries, with the record's call id. Its kind is left to
// the catalogue.
func callFrom(id string, c *record.Call) (Call, error) {
	out := Call{ID: id, Tool: c.Tool, Args: c.Args, NeedsOK: c.NeedsOK, FromText: c.FromText, Why: c.Why, By: c.By}
	if err := unmarshalRaw(c.Problems, &out.Problems); err != nil {
		return out, fmt.Errorf("call problems: %w", err)
	}
	var err error
	if out.Simulation, err = valueOf[game.Simulation](c.Simulation, "call simulation"); err != nil {
		return out, err
	}
	return out, nil
}
