package notes

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Record is one journal entry: one agent event. Seq starts at 1 and is
// strictly increasing; a record is never rewritten once appended.
type Record struct {
	Seq    uint64          `json:"seq"`
	Time   time.Time       `json:"time"`
	Type   string          `json:"type"` // the agent's event type, e.g. "tool_proposed"
	Step   int             `json:"step,omitempty"`
	CallID string          `json:"call_id,omitempty"` // set on tool_proposed, decision, tool_result
	Data   json.RawMessage `json:"data,omitempty"`    // the event's JSON
}

// Record types the notebook itself understands; the agent uses the same
// strings for its events.
const (
	// TypeProposed is a call awaiting a decision.
	TypeProposed = "tool_proposed"
	// TypeDecision decides a call. Its Data is {"decision": "...", ...}:
	// "veto" means the call will not run; anything else (approve, edit,
	// auto) means it will.
	TypeDecision = "decision"
	// TypeResult means the call finished, successfully or with a game error.
	TypeResult = "tool_result"
	// TypeOutcomeUnknown closes a call that was decided but whose result
	// was never recorded (the process died while it ran). The agent
	// appends it after telling the model and the person to re-observe.
	TypeOutcomeUnknown = "outcome_unknown"
)

// DecisionVeto is the decision value that means a call will not run.
const DecisionVeto = "veto"

// TypeStarted means the call is about to run: the journal shows it began. A call
// decided to run but never started was not executed.
const TypeStarted = "tool_started"

// callEntry indexes one call's records by seq; zero means "none yet".
type callEntry struct {
	Proposed uint64 `json:"proposed,omitempty"`
	Decision uint64 `json:"decision,omitempty"`
	Result   uint64 `json:"result,omitempty"`
	Executes bool   `json:"executes,omitempty"` // the decision lets it run
	// Started is the tool_started record's seq. It is only meaningful when
	// TracksStart is set: entries written before the index knew about starts (format
	// 1) leave a call's start unknown, and such a call is taken to have maybe run.
	Started     uint64 `json:"-"`
	TracksStart bool   `json:"-"`
}

// Flags of an encoded callEntry.
const (
	callExecutes = 1 << iota
	callTracksStart
)

// encodeCall stores e under key id as sealed varints.
func encodeCall(id []byte, e callEntry) []byte {
	flags := uint64(0)
	if e.Executes {
		flags |= callExecutes
	}
	if e.TracksStart {
		flags |= callTracksStart
	}
	var p []byte
	for _, n := range []uint64{flags, e.Proposed, e.Decision, e.Started, e.Result} {
		p = binary.AppendUvarint(p, n)
	}
	return seal(kindCall, id, p)
}

// decodeCall reads a call index entry, sealed or legacy JSON.
func decodeCall(id, v []byte) (callEntry, error) {
	var e callEntry
	p, sealed, err := unseal(kindCall, id, v)
	if err != nil {
		return e, fmt.Errorf("call %q: bad index entry: %w: %w", id, ErrCorrupt, err)
	}
	if !sealed {
		if err := json.Unmarshal(v, &e); err != nil {
			return e, fmt.Errorf("call %q: bad index entry: %w: %w", id, ErrCorrupt, err)
		}
		return e, nil
	}
	var n [5]uint64
	for i := range n {
		v, k := binary.Uvarint(p)
		if k <= 0 {
			return e, fmt.Errorf("call %q: bad index entry: %w: truncated", id, ErrCorrupt)
		}
		n[i], p = v, p[k:]
	}
	e.Executes, e.TracksStart = n[0]&callExecutes != 0, n[0]&callTracksStart != 0
	e.Proposed, e.Decision, e.Started, e.Result = n[1], n[2], n[3], n[4]
	return e, nil
}

func seqKey(seq uint64) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], seq)
	return k[:]
}

// Append adds r to the journal, assigning its Seq (and Time, if zero). It
// returns only once the record is on disk (fsynced), so a decision
// appended before a call runs survives any crash during the call. It is a
// Commit of one record.
func (s *Session) Append(r Record) (Record, error) {
	if r.Type == "" {
		return Record{}, errors.New("notes: Append: record has no type")
	}
	recs, err := s.Commit(Batch{Records: []Record{r}})
	if err != nil {
		return Record{}, err
	}
	return recs[0], nil
}

// prepare checks and scrubs a record before it is stored.
func (s *Session) prepare(r Record, i int) (Record, error) {
	if r.Type == "" {
		return r, fmt.Errorf("notes: Commit: record %d has no type", i)
	}
	if r.Time.IsZero() {
		r.Time = s.book.now()
	}
	if len(r.Data) > 0 && !json.Valid(r.Data) {
		return r, fmt.Errorf("notes: Commit: %s record %d: data is not valid JSON", r.Type, i)
	}
	r.Type = s.book.scrubString(r.Type)
	r.CallID = s.book.scrubString(r.CallID)
	if len(r.Data) > 0 {
		r.Data = s.book.scrub(append(json.RawMessage(nil), r.Data...))
	}
	return r, nil
}

// appendTx stores r, already prepared, inside a write transaction, assigns its Seq and
// updates info (which the caller writes back once).
func (s *Session) appendTx(sb *bolt.Bucket, r *Record, info *SessionInfo) error {
	j := sb.Bucket(bucketJournal)
	j.FillPercent = 1.0 // keys only ever grow: pages can be packed full
	seq, err := j.NextSequence()
	if err != nil {
		return err
	}
	r.Seq = seq
	data, err := encodeRecord(*r)
	if err != nil {
		return err
	}
	if err := j.Put(seqKey(seq), data); err != nil {
		return err
	}
	if err := indexCall(sb, *r); err != nil {
		return err
	}
	if r.Step > info.Steps {
		info.Steps = r.Step
	}
	if r.Type == TypeResult {
		info.Calls++
	}
	return nil
}

// indexCall keeps the call index current so that Recover reads a handful
// of open calls instead of scanning the journal.
func indexCall(sb *bolt.Bucket, r Record) error {
	if r.CallID == "" {
		return nil
	}
	calls, open := sb.Bucket(bucketCalls), sb.Bucket(bucketOpen)
	id := []byte(r.CallID)
	e := callEntry{TracksStart: true}
	if v := calls.Get(id); v != nil {
		var err error
		if e, err = decodeCall(id, v); err != nil {
			return err
		}
	}
	stillOpen := true
	switch r.Type {
	case TypeProposed:
		e.Proposed = r.Seq
	case TypeDecision:
		e.Decision = r.Seq
		e.Executes = decisionExecutes(r.Data)
		stillOpen = e.Executes
	case TypeStarted:
		if e.Started != 0 || !e.TracksStart {
			return nil
		}
		e.Started = r.Seq
	case TypeResult, TypeOutcomeUnknown:
		e.Result = r.Seq
		stillOpen = false
	default:
		return nil
	}
	if err := calls.Put(id, encodeCall(id, e)); err != nil {
		return err
	}
	if stillOpen {
		return open.Put(id, nil)
	}
	return open.Delete(id)
}

// decisionExecutes reports whether a decision lets its call run. Only an
// explicit veto does not: for anything unreadable the safe assumption is
// that the call may have run, so that it is re-observed, never replayed.
func decisionExecutes(data json.RawMessage) bool {
	var d struct {
		Decision string `json:"decision"`
	}
	if json.Unmarshal(data, &d) != nil {
		return true
	}
	return d.Decision != DecisionVeto
}

// batch is how many records Records reads per transaction; fn runs
// outside any transaction so it may write to the book.
const batch = 512

// Records calls fn with every record from seq from (1 for all) in order.
// It stops at the first error from fn and returns it.
func (s *Session) Records(from uint64, fn func(Record) error) error {
	if from == 0 {
		from = 1
	}
	for {
		var recs []Record
		err := s.view(func(sb *bolt.Bucket) error {
			c := sb.Bucket(bucketJournal).Cursor()
			for k, v := c.Seek(seqKey(from)); k != nil && len(recs) < batch; k, v = c.Next() {
				r, err := decodeRecord(k, v)
				if err != nil {
					return fmt.Errorf("notes: %w", err)
				}
				recs = append(recs, r)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, r := range recs {
			if err := fn(r); err != nil {
				return err
			}
		}
		if len(recs) < batch {
			return nil
		}
		from = recs[len(recs)-1].Seq + 1
	}
}

// Tail returns the last n records in order. It reads only those records.
func (s *Session) Tail(n int) ([]Record, error) {
	if n <= 0 {
		return nil, nil
	}
	var out []Record
	err := s.view(func(sb *bolt.Bucket) error {
		c := sb.Bucket(bucketJournal).Cursor()
		for k, v := c.Last(); k != nil && len(out) < n; k, v = c.Prev() {
			r, err := decodeRecord(k, v)
			if err != nil {
				return fmt.Errorf("notes: %w", err)
			}
			out = append(out, r)
		}
		return nil
	})
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, err
}

// Record returns the record with the given seq, or an error matching
// ErrNotFound.
func (s *Session) Record(seq uint64) (Record, error) {
	var r Record
	err := s.view(func(sb *bolt.Bucket) error {
		var err error
		r, err = getRecord(sb, seq)
		return err
	})
	return r, err
}

// CallRecords returns the records of one call in order: its proposal,
// decision and result (or outcome_unknown), those that exist.
func (s *Session) CallRecords(callID string) ([]Record, error) {
	var out []Record
	err := s.view(func(sb *bolt.Bucket) error {
		e, ok, err := getCall(sb, callID)
		if err != nil || !ok {
			return err
		}
		for _, seq := range []uint64{e.Proposed, e.Decision, e.Result} {
			if seq == 0 {
				continue
			}
			r, err := getRecord(sb, seq)
			if err != nil {
				return err
			}
			out = append(out, r)
		}
		return nil
	})
	return out, err
}

// Recovery is what a resumed session must deal with before going on.
type Recovery struct {
	// Pending are tool_proposed records with no decision yet: ask again.
	Pending []Record
	// Unknown are decisions that let a call run (approve, edit, auto) whose
	// tool_started is journaled but not its result: the call may or may not have
	// happened. Report "outcome unknown, re-observe" and never run it again.
	// (Calls journaled before the index tracked starts count as started.)
	Unknown []Record
	// NotStarted are decisions that let a call run whose start was never journaled:
	// the process stopped between deciding and running, so the call did not run.
	// Report it as not executed; it is not run again either.
	NotStarted []Record
}

// Recover lists calls left open by the previous run. It reads the small
// index of open calls, not the journal.
func (s *Session) Recover() (Recovery, error) {
	var rec Recovery
	err := s.view(func(sb *bolt.Bucket) error {
		return sb.Bucket(bucketOpen).ForEach(func(id, _ []byte) error {
			e, ok, err := getCall(sb, string(id))
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("notes: open call %q has no index entry: %w", id, ErrCorrupt)
			}
			var list *[]Record
			seq := e.Decision
			switch {
			case e.Decision != 0 && e.Executes && e.TracksStart && e.Started == 0:
				list = &rec.NotStarted
			case e.Decision != 0 && e.Executes:
				list = &rec.Unknown
			case e.Decision == 0 && e.Proposed != 0:
				list, seq = &rec.Pending, e.Proposed
			default:
				return nil
			}
			r, err := getRecord(sb, seq)
			if err != nil {
				return err
			}
			*list = append(*list, r)
			return nil
		})
	})
	sortBySeq(rec.Pending)
	sortBySeq(rec.Unknown)
	sortBySeq(rec.NotStarted)
	return rec, err
}

func sortBySeq(rs []Record) {
	slices.SortFunc(rs, func(a, b Record) int { return cmp.Compare(a.Seq, b.Seq) })
}

func getCall(sb *bolt.Bucket, id string) (callEntry, bool, error) {
	v := sb.Bucket(bucketCalls).Get([]byte(id))
	if v == nil {
		return callEntry{}, false, nil
	}
	e, err := decodeCall([]byte(id), v)
	if err != nil {
		return e, false, fmt.Errorf("notes: %w", err)
	}
	return e, true, nil
}

func getRecord(sb *bolt.Bucket, seq uint64) (Record, error) {
	k := seqKey(seq)
	v := sb.Bucket(bucketJournal).Get(k)
	if v == nil {
		return Record{}, fmt.Errorf("notes: journal record %d: %w", seq, ErrNotFound)
	}
	r, err := decodeRecord(k, v)
	if err != nil {
		return r, fmt.Errorf("notes: %w", err)
	}
	return r, nil
}

// Batch is what one phase of a step writes at once: its journal records and the
// session's bookkeeping. Commit writes it in one transaction, so a phase costs one
// fsync however many records it has.
type Batch struct {
	Records []Record
	// Step, when > 0, is the session's current step number.
	Step int
	// PromptTokens, CompletionTokens and Cost are added to the usage totals.
	PromptTokens, CompletionTokens int64
	Cost                           float64
	// State, when non-nil, replaces the game's saved state. It is written only when it
	// differs from the saved one (compared by hash), compressed.
	State []byte
}

// Commit appends b's records in order (assigning their Seq, and Time where zero) and
// applies its bookkeeping, in one durable transaction: either all of it is on disk when
// Commit returns nil, or none of it. It returns the records as stored.
//
// A tool_started record must be committed before its call runs: Recover reports a call
// whose start is not journaled as not executed.
func (s *Session) Commit(b Batch) ([]Record, error) {
	recs := make([]Record, len(b.Records))
	for i, r := range b.Records {
		var err error
		if recs[i], err = s.prepare(r, i); err != nil {
			return nil, err
		}
	}
	var state []byte
	if b.State != nil {
		state = s.book.scrub(append([]byte(nil), b.State...))
	}
	err := s.update(func(sb *bolt.Bucket) error {
		info, err := readInfo(sb, s.name)
		if err != nil {
			return err
		}
		for i := range recs {
			if err := s.appendTx(sb, &recs[i], &info); err != nil {
				return err
			}
		}
		if state != nil {
			if err := putState(sb, state); err != nil {
				return err
			}
		}
		if b.Step > 0 {
			info.Steps = b.Step
		}
		info.PromptTokens += b.PromptTokens
		info.CompletionTokens += b.CompletionTokens
		info.Cost += b.Cost
		return s.writeInfo(sb, info)
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}
