package notes

import "fmt"

// faultAt turns a panic while reading stored data into an ErrCorrupt error naming what
// was being read ("journal record 1204", "the journal after record 88"). A damaged page
// can make bbolt hand out a slice past the file's end, or walk a page that is not one;
// Book.view makes the fault a panic (SetPanicOnFault), and this names the place, which
// the Book's own recovery cannot. It must be deferred directly (recover works only
// there), with a named error result; what is asked only if there was a panic:
//
//	defer faultAt(&err, func() string { return fmt.Sprintf("journal record %d", seq) })
func faultAt(err *error, what func() string) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("notes: %s: %w: %v", what(), ErrCorrupt, r)
	}
}

// recordAt names a journal record for faultAt.
func recordAt(seq uint64) func() string {
	return func() string { return fmt.Sprintf("journal record %d", seq) }
}

// Gap is a run of journal records that cannot be read: lost to damage.
type Gap struct {
	From, To uint64 // the records, both included
	Why      string // what is wrong ("checksum mismatch", "missing")
}

// String says which records and why: "records 120 to 135 (checksum mismatch)".
func (g Gap) String() string {
	if g.From == g.To {
		return fmt.Sprintf("record %d (%s)", g.From, g.Why)
	}
	return fmt.Sprintf("records %d to %d (%s)", g.From, g.To, g.Why)
}
