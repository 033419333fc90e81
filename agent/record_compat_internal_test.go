package agent

import (
	"bytes"
	"testing"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/notes"
)

// Every record of testdata/notebooks/v2.db (written by the runner before it was split
// into parts), decoded and encoded again the way a run encodes it, comes out byte for
// byte as it was written: the journal format has not moved. Notes changes are left out
// (decoded, they carry only what changed, not the notes the encoder compares with).
func TestJournalEncodesAsTheFixtureWasWritten(t *testing.T) {
	t.Parallel()
	_, sess := openFixture(t, "v2.db")
	var recs []notes.Record
	if err := sess.Records(1, func(r notes.Record) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	var dec decoder
	var enc recorder
	checked := 0
	for _, rec := range recs {
		ev, data, err := dec.decode(rec)
		if err != nil {
			t.Fatalf("record %d (%s) does not decode: %v", rec.Seq, rec.Type, err)
		}
		if ev.Call != nil && data.Call != nil {
			// Read back, a call's kind comes from the catalogue; the record has it.
			for _, k := range []game.Kind{game.Unknown, game.Read, game.Note, game.Act} {
				if k.String() == data.Call.Kind {
					ev.Call.Kind = k
				}
			}
		}
		if ev.Type == EventStarted {
			enc = recorder{} // each run's encoder starts afresh
		}
		again, err := enc.encode(&ev)
		if err != nil {
			t.Fatalf("record %d: %v", rec.Seq, err)
		}
		if ev.Type == EventNotes {
			continue
		}
		if again.Type != rec.Type || again.Step != rec.Step || again.CallID != rec.CallID || !bytes.Equal(again.Data, rec.Data) {
			t.Fatalf("record %d (%s) encodes differently:\nwas  %s\nnow  %s", rec.Seq, rec.Type, rec.Data, again.Data)
		}
		checked++
	}
	if checked < 140 {
		t.Fatalf("only %d records checked", checked)
	}
}
