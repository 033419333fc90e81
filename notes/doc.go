// Package notes is coplay's notebook: everything a session needs to be
// resumed, kept in one bbolt file per user.
//
// A [Book] is the open file. It holds any number of sessions; each
// [Session] has an append-only journal of agent events ([Record], whose
// format is package record's: notes/record), the
// model's markdown notes with every version kept, the plan, the approval
// rules, the game's saved state and usage totals.
//
// Durability follows the agent's contract: [Session.Append] returns only
// after the record is fsynced, so a decision recorded before a call runs
// and a result recorded after it bracket the call. A call that was decided
// but never finished is reported by [Session.Recover] as of unknown
// outcome, to be re-observed, never replayed.
//
// The package imports nothing else from coplay, and it never stores a
// secret it has been told about (see [Book.Redact]).
package notes
