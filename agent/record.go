package agent

import (
	"encoding/json"

	"github.com/coplayhq/coplay/notes"
)

// This file is how events become journal records (and, in recover.go and resume.go,
// how they are read back). Buffering and committing them is emit.go's.

// journal appends ev to the session and sets r.lastSeq.
func (r *Runner) journal(ev *Event) error {
	rec, err := r.record(ev)
	if err != nil {
		return err
	}
	got, err := r.cfg.Session.Append(rec)
	if err != nil {
		return err
	}
	r.lastSeq = got.Seq
	return nil
}

// record encodes ev as a journal record, without writing it.
func (r *Runner) record(ev *Event) (notes.Record, error) {
	var data []byte
	var err error
	if ev.Type == EventDecision && ev.Decision != nil {
		data, err = json.Marshal(ev.Decision)
	} else {
		data, err = json.Marshal(ev)
	}
	if err != nil {
		return notes.Record{}, err
	}
	rec := notes.Record{Time: ev.Time, Type: string(ev.Type), Step: ev.Step, Data: data}
	switch {
	case ev.Call != nil:
		rec.CallID = ev.Call.ID
	case ev.Decision != nil:
		rec.CallID = ev.Decision.CallID
	}
	return rec, nil
}

// RecentEvents returns up to n of the last journaled events of s, oldest first, decoded
// for display (a resumed screen's log). Records it cannot read are skipped.
func RecentEvents(s *notes.Session, n int) ([]Event, error) {
	recs, err := s.Tail(n)
	if err != nil {
		return nil, err
	}
	out := make([]Event, 0, len(recs))
	for _, rec := range recs {
		ev := Event{Seq: rec.Seq, Time: rec.Time, Type: EventType(rec.Type), Step: rec.Step}
		if ev.Type == EventDecision {
			var d Decision
			if json.Unmarshal(rec.Data, &d) != nil {
				continue
			}
			ev.Decision = &d
		} else {
			var full Event
			if json.Unmarshal(rec.Data, &full) != nil {
				continue
			}
			full.Seq, full.Time, full.Type, full.Step = rec.Seq, rec.Time, ev.Type, rec.Step
			if full.Call != nil {
				full.Call.ID = rec.CallID
			}
			ev = full
		}
		out = append(out, ev)
	}
	return out, nil
}
