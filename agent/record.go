package agent

import (
	"encoding/json"

	"github.com/coplayhq/coplay/notes"
)

// This file is how events become journal records (and, in recover.go and resume.go,
// how they are read back). Buffering and committing them is emit.go's.

// journal appends ev to the session and sets r.lastSeq.
func (r *Runner) journal(ev *Event) error {
	var data []byte
	var err error
	if ev.Type == EventDecision && ev.Decision != nil {
		data, err = json.Marshal(ev.Decision)
	} else {
		data, err = json.Marshal(ev)
	}
	if err != nil {
		return err
	}
	rec := notes.Record{Time: ev.Time, Type: string(ev.Type), Step: ev.Step, Data: data}
	switch {
	case ev.Call != nil:
		rec.CallID = ev.Call.ID
	case ev.Decision != nil:
		rec.CallID = ev.Decision.CallID
	}
	got, err := r.cfg.Session.Append(rec)
	if err != nil {
		return err
	}
	r.lastSeq = got.Seq
	return nil
}
