package notes

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/coplayhq/coplay/notes/record"
	bolt "go.etcd.io/bbolt"
)

// Record is one journal entry: one agent event. Its format (the types, what each
// type's data holds, how it is written and read back) is package record's; the notebook
// stores records and reads them through it.
type Record = record.Record

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
	r.Type = record.Type(s.book.scrubString(string(r.Type)))
	r.CallID = s.book.scrubString(r.CallID)
	if len(r.Data) > 0 {
		r.Data = s.book.scrub(append(json.RawMessage(nil), r.Data...))
	}
	return r, nil
}

// blockWriter appends records to the journal inside one write transaction: it keeps
// the journal's last block open, adds to it while it has room, and writes the block it
// touched once, at flush.
type blockWriter struct {
	j      *bolt.Bucket
	cache  *openBlock
	target int      // compressed size at which the block is closed
	recs   []Record // the open block's records
	raw    int      // their size before compression
	ratio  float64  // compressed / raw, as last measured
	dirty  bool
}

// openBlock remembers the journal's last block as a session last wrote it, so that the
// next commit need not inflate it again. It is used only when the stored block still
// has the same length and checksum (a commit that rolled back, or another process,
// leaves it unused).
type openBlock struct {
	mu   sync.Mutex
	key  uint64
	n    int
	sum  uint32
	recs []Record
}

func (o *openBlock) get(k, v []byte) []Record {
	if o == nil || len(k) != 8 || len(v) < 4 {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.recs == nil || o.key != binary.BigEndian.Uint64(k) || o.n != len(v) || o.sum != binary.BigEndian.Uint32(v[len(v)-4:]) {
		return nil
	}
	return slices.Clone(o.recs)
}

func (o *openBlock) set(recs []Record, v []byte) {
	if o == nil || len(recs) == 0 || len(v) < 4 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.key, o.n, o.sum, o.recs = recs[0].Seq, len(v), binary.BigEndian.Uint32(v[len(v)-4:]), slices.Clone(recs)
}

// newBlockWriter opens the journal's last block for appending, when it is a block of
// this format (a legacy record is never rewritten). cache may be nil.
func newBlockWriter(j *bolt.Bucket, cache *openBlock) (*blockWriter, error) {
	j.FillPercent = 1.0 // keys only ever grow: pages can be packed full
	w := &blockWriter{j: j, cache: cache, ratio: 0.3, target: int(blockPageShare * float64(j.Tx().DB().Info().PageSize))}
	k, v := j.Cursor().Last()
	if k == nil || len(v) == 0 || v[0] != sealMagic {
		return w, nil
	}
	recs := cache.get(k, v)
	if recs == nil {
		var err error
		if recs, err = decodeBlock(k, v); err != nil {
			return nil, fmt.Errorf("notes: %w", err)
		}
	}
	w.recs = recs
	for i := range recs {
		w.raw += entrySize(&recs[i], w.prev(i))
	}
	if w.raw > 0 {
		w.ratio = float64(len(v)) / float64(w.raw)
	}
	return w, nil
}

func (w *blockWriter) prev(i int) *Record {
	if i == 0 {
		return nil
	}
	return &w.recs[i-1]
}

// add assigns r the next seq and appends it.
func (w *blockWriter) add(r *Record) error {
	seq, err := w.j.NextSequence()
	if err != nil {
		return err
	}
	r.Seq = seq
	// The block is closed before r when r would take it past the target: a block that
	// outgrew its page would take two.
	var last *Record
	if n := len(w.recs); n > 0 {
		last = &w.recs[n-1]
	}
	size := entrySize(r, last)
	if n := len(w.recs); n > 0 && (float64(w.raw+size)*w.ratio >= float64(w.target) || w.raw >= blockMaxRaw ||
		n >= blockMaxRecords || w.recs[n-1].Seq+1 != seq) {
		if err := w.flush(); err != nil {
			return err
		}
		w.recs, w.raw = nil, 0
	}
	if !r.Time.IsZero() && (r.Time.Year() < 1680 || r.Time.Year() > 2260) {
		return fmt.Errorf("notes: record %d: time %v is out of range", r.Seq, r.Time)
	}
	w.recs = append(w.recs, *r)
	w.raw += entrySize(r, w.prev(len(w.recs)-1))
	w.dirty = true
	return nil
}

// flush writes the open block if it changed.
func (w *blockWriter) flush() error {
	if !w.dirty || len(w.recs) == 0 {
		return nil
	}
	v, err := encodeBlock(w.recs)
	if err != nil {
		return err
	}
	w.dirty = false
	if w.raw > 0 {
		w.ratio = float64(len(v)) / float64(w.raw)
	}
	if err := w.j.Put(seqKey(w.recs[0].Seq), v); err != nil {
		return err
	}
	w.cache.set(w.recs, v)
	return nil
}

// appendTx stores r, already prepared, through w, assigns its Seq and updates info
// (which the caller writes back once).
func (s *Session) appendTx(sb *bolt.Bucket, w *blockWriter, r *Record, info *SessionInfo) error {
	if err := w.add(r); err != nil {
		return err
	}
	if err := indexCall(sb, *r); err != nil {
		return err
	}
	if r.Step > info.Steps {
		info.Steps = r.Step
	}
	if r.Type == record.TypeResult {
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
	calls.FillPercent = 1.0 // keys mostly grow: see callKey
	id := callKey(r.CallID)
	e := callEntry{TracksStart: true}
	if v := calls.Get(id); v != nil {
		var err error
		if e, err = decodeCall(id, v); err != nil {
			return err
		}
	} else if v := calls.Get([]byte(r.CallID)); v != nil {
		// Indexed by a notebook of format 1: keep its key.
		id = []byte(r.CallID)
		var err error
		if e, err = decodeCall(id, v); err != nil {
			return err
		}
	}
	stillOpen := true
	switch r.Type {
	case record.TypeProposed:
		e.Proposed = r.Seq
	case record.TypeDecision:
		e.Decision = r.Seq
		e.Executes = decisionExecutes(r.Data)
		stillOpen = e.Executes
	case record.TypeToolStart:
		if e.Started != 0 || !e.TracksStart {
			return nil
		}
		e.Started = r.Seq
		if e.Proposed == 0 && e.Decision == 0 {
			// Started with no proposal and no decision: the person's own move, decided
			// by being played. Until its result it may have run.
			e.Decision, e.Executes = r.Seq, true
		}
	case record.TypeResult, record.TypeOutcomeUnknown:
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

// callKey is the index key of a call id: its length (up to 31) then the id. Call ids
// are a run's prefix and a counter ("ap1f2e-9", "ap1f2e-10"): keyed by length first,
// they sort in the order they are made, so the index is appended to and its pages fill
// up. The length byte is a control character, which a format 1 key (the bare id) does
// not start with.
func callKey(id string) []byte {
	k := make([]byte, 0, len(id)+1)
	k = append(k, byte(min(len(id), 31)))
	return append(k, id...)
}

// callIDOf reads a call id back from an index key of either format.
func callIDOf(k []byte) string {
	if len(k) > 0 && k[0] < 0x20 && int(k[0]) == min(len(k)-1, 31) {
		return string(k[1:])
	}
	return string(k)
}

// decisionExecutes reports whether a decision lets its call run. Only an
// explicit veto does not: for anything unreadable the safe assumption is
// that the call may have run, so that it is re-observed, never replayed.
func decisionExecutes(data json.RawMessage) bool {
	d, err := record.Decode(record.TypeDecision, data)
	return err != nil || d.Decision.Executes()
}

// batch is how many records Records reads per transaction; fn runs
// outside any transaction so it may write to the book.
const batch = 512

// Records calls fn with every record from seq from (1 for all) in order.
// It stops at the first error from fn and returns it. A gap in the journal (a
// block lost to damage) is reported as ErrCorrupt naming the missing records,
// never skipped.
func (s *Session) Records(from uint64, fn func(Record) error) error {
	if from == 0 {
		from = 1
	}
	for {
		var recs []Record
		var last uint64
		err := s.view(func(sb *bolt.Bucket) (err error) {
			defer faultAt(&err, func() string { return fmt.Sprintf("the journal from record %d on", max(from, lastSeq(recs)+1)) })
			j := sb.Bucket(bucketJournal)
			last = j.Sequence()
			c := j.Cursor()
			next := uint64(0) // the seq the next block must start at; 0 before the first
			for k, v := seekBlock(c, from); k != nil && len(recs) < batch; k, v = c.Next() {
				block, err := decodeBlock(k, v)
				if err != nil {
					return fmt.Errorf("notes: %w", err)
				}
				if first := block[0].Seq; (next != 0 && first != next) || (next == 0 && first > from) {
					want := max(next, from)
					return fmt.Errorf("notes: journal records %d to %d are missing: %w", want, first-1, ErrCorrupt)
				}
				for _, r := range block {
					if r.Seq >= from {
						recs = append(recs, r)
					}
				}
				next = block[len(block)-1].Seq + 1
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
			end := from - 1
			if len(recs) > 0 {
				end = recs[len(recs)-1].Seq
			}
			if end < last {
				return s.damaged(fmt.Errorf("notes: journal records %d to %d are missing: %w", end+1, last, ErrCorrupt))
			}
			return nil
		}
		from = recs[len(recs)-1].Seq + 1
	}
}

// lastSeq is the seq of the last of recs, 0 for none.
func lastSeq(recs []Record) uint64 {
	if len(recs) == 0 {
		return 0
	}
	return recs[len(recs)-1].Seq
}

// seekBlock positions c on the block holding seq (or the first after it).
func seekBlock(c *bolt.Cursor, seq uint64) (k, v []byte) {
	want := seqKey(seq)
	k, v = c.Seek(want)
	if k != nil && bytes.Equal(k, want) {
		return k, v
	}
	// seq is inside the block before, if any.
	if k == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	if k == nil {
		return c.First()
	}
	return k, v
}

// Tail returns the last n records in order. It reads only the blocks holding them.
func (s *Session) Tail(n int) ([]Record, error) {
	if n <= 0 {
		return nil, nil
	}
	var blocks [][]Record
	count := 0
	err := s.view(func(sb *bolt.Bucket) (err error) {
		defer faultAt(&err, func() string { return fmt.Sprintf("the last %d records of the journal", n) })
		c := sb.Bucket(bucketJournal).Cursor()
		for k, v := c.Last(); k != nil && count < n; k, v = c.Prev() {
			block, err := decodeBlock(k, v)
			if err != nil {
				return fmt.Errorf("notes: %w", err)
			}
			blocks = append(blocks, block)
			count += len(block)
		}
		return nil
	})
	out := make([]Record, 0, min(count, n))
	for i := len(blocks) - 1; i >= 0; i-- {
		out = append(out, blocks[i]...)
	}
	if len(out) > n {
		out = out[len(out)-n:]
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
	err := s.view(func(sb *bolt.Bucket) (err error) {
		defer faultAt(&err, func() string { return "the index of open calls" })
		return sb.Bucket(bucketOpen).ForEach(func(k, _ []byte) error {
			id := callIDOf(k)
			e, ok, err := getCall(sb, id)
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
	k := callKey(id)
	v := sb.Bucket(bucketCalls).Get(k)
	if v == nil {
		k = []byte(id) // format 1
		if v = sb.Bucket(bucketCalls).Get(k); v == nil {
			return callEntry{}, false, nil
		}
	}
	e, err := decodeCall(k, v)
	if err != nil {
		return e, false, fmt.Errorf("notes: %w", err)
	}
	return e, true, nil
}

func getRecord(sb *bolt.Bucket, seq uint64) (Record, error) {
	c := sb.Bucket(bucketJournal).Cursor()
	if k, v := seekBlock(c, seq); k != nil {
		block, err := decodeBlock(k, v)
		if err != nil {
			return Record{}, fmt.Errorf("notes: %w", err)
		}
		for _, r := range block {
			if r.Seq == seq {
				return r, nil
			}
		}
	}
	return Record{}, fmt.Errorf("notes: journal record %d: %w", seq, ErrNotFound)
}

// Batch is what one phase of a step writes at once: its journal records and the
// session's bookkeeping. Commit writes it in one transaction, so a phase costs one
// fsync however many records it has.
type Batch struct {
	Records []Record
	// Step, when > 0, is the session's current step number.
	Step int
	// PromptTokens, CompletionTokens, CachedTokens (of the prompt tokens, those the
	// provider served from its cache) and Cost are added to the usage totals.
	PromptTokens, CompletionTokens, CachedTokens int64
	Cost                                         float64
	// LoadedTools, when non-nil, replaces the names of the tools whose definitions the
	// model has been sent (see SessionInfo.LoadedTools).
	LoadedTools []string
	// State, when non-nil, replaces the game's saved state. It is written only when it
	// differs from the saved one (compared by hash), compressed.
	State []byte
	// History puts State into the state history, as a commit that begins a step does,
	// keyed by this commit's first record (so it needs one; without records it is
	// ignored). A writer that keeps its state without steps (a served world) sets it
	// every so often: a save outside the history is kept as its changes from the
	// history's newest, which cost more to find the further the state has moved on.
	History bool
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
	s.staged.mu.Lock()
	defer s.staged.mu.Unlock()
	err := s.update(func(sb *bolt.Bucket) error {
		if err := s.writeStaged(sb); err != nil {
			return err
		}
		info, err := readInfo(sb, s.name)
		if err != nil {
			return err
		}
		w, err := newBlockWriter(sb.Bucket(bucketJournal), s.book.tailCache(s.name))
		if err != nil {
			return err
		}
		for i := range recs {
			if err := s.appendTx(sb, w, &recs[i], &info); err != nil {
				return err
			}
		}
		if err := w.flush(); err != nil {
			return err
		}
		if state != nil {
			// The history's key: the first record of this commit, or the next seq
			// when it has none (see snapshots.go).
			key := sb.Bucket(bucketJournal).Sequence() + 1
			if len(recs) > 0 {
				key = recs[0].Seq
			}
			step := b.History && len(recs) > 0 // a commit that begins a step: its save goes into the history
			for _, r := range recs {
				step = step || r.Type == record.TypeStep
			}
			if err := s.putState(sb, key, state, step); err != nil {
				return err
			}
		}
		if b.Step > 0 {
			info.Steps = b.Step
		}
		info.PromptTokens += b.PromptTokens
		info.CompletionTokens += b.CompletionTokens
		info.CachedTokens += b.CachedTokens
		if b.LoadedTools != nil {
			info.LoadedTools = append([]string{}, b.LoadedTools...)
		}
		info.Cost += b.Cost
		return s.writeInfo(sb, info)
	})
	if err != nil {
		return nil, err
	}
	s.clearStaged()
	return recs, nil
}
