// Package record is the journal's record format, in one place: what a record is (its
// envelope), the types it can have, what each type's data holds and how it is written
// and read back, the observation's changes (line edits of its summary, changed map
// points) included.
//
// Everything that writes or reads the journal goes through it: the agent encodes its
// events with Encode and decodes them back with Record.Decode (replay, resume, the
// screen's log); the notebook reads records through it for its call index, the export
// and the fork; the command line reads a fork's waiting advice through it. No other
// code compares a record's type with a string or takes its data apart by hand.
//
// It imports nothing of ours: the notebook imports it, and the notebook imports nothing
// of ours. The values a record carries that belong to other packages (a game's result,
// trigger or map, a model call's usage) are kept as their own JSON (json.RawMessage),
// which their owners read: the journal's format is the envelope and the layout of the
// data, not the game's types.
package record

import (
	"encoding/json"
	"fmt"
	"time"
)

// Record is one journal entry: one agent event. Seq starts at 1 and is strictly
// increasing; a record is never rewritten once appended. The notebook stores it
// (notes.Record is this type).
type Record struct {
	Seq    uint64          `json:"seq"`
	Time   time.Time       `json:"time"`
	Type   Type            `json:"type"`
	Step   int             `json:"step,omitempty"`
	CallID string          `json:"call_id,omitempty"` // set on a call's records: proposed, decision, started, result
	Data   json.RawMessage `json:"data,omitempty"`    // what the event adds to the envelope (Encode, Decode)
}

// Decode reads r's data by its type (see Decode); the error names the record.
func (r Record) Decode() (Data, error) {
	d, err := Decode(r.Type, r.Data)
	if err != nil {
		return d, fmt.Errorf("journal record %d (%s): %w", r.Seq, r.Type, err)
	}
	return d, nil
}
