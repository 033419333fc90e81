package notes

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Bytes counts stored values: how many, and their keys' and values' bytes.
type Bytes struct {
	Count int
	Bytes int64
}

func (b *Bytes) add(k, v []byte) {
	b.Count++
	b.Bytes += int64(len(k) + len(v))
}

// Sizes is what a session's data takes in the file, by kind (keys and values, without
// bbolt's page overhead), for benchmarks and `coplay sessions --sizes`-like reports.
type Sizes struct {
	// Journal is by record type.
	Journal map[string]Bytes
	// Notes, Plan, Calls and State are the other buckets; Snaps is the history of the
	// game's state (snapshots.go).
	Notes, Plan, Calls, State, Snaps Bytes
	// Pages is what each bucket's pages take in the file, by bucket name: data plus
	// bbolt's per-value overhead and the room left in pages.
	Pages map[string]int64
}

// Sizes walks the session and totals what each kind of data takes.
func (s *Session) Sizes() (Sizes, error) {
	out := Sizes{Journal: map[string]Bytes{}, Pages: map[string]int64{}}
	err := s.view(func(sb *bolt.Bucket) error {
		for _, name := range sessionBuckets {
			st := sb.Bucket(name).Stats()
			out.Pages[string(name)] = int64(st.BranchAlloc + st.LeafAlloc)
		}
		err := sb.Bucket(bucketJournal).ForEach(func(k, v []byte) error {
			block, err := decodeBlock(k, v)
			if err != nil {
				return fmt.Errorf("notes: %w", err)
			}
			// A block is compressed as a whole: each record is charged its share of
			// the stored bytes, in proportion to its size before compression.
			raw := make([]int, len(block))
			total := 0
			for i := range block {
				var prev *Record
				if i > 0 {
					prev = &block[i-1]
				}
				raw[i] = entrySize(&block[i], prev)
				total += raw[i]
			}
			stored := len(k) + len(v)
			for i, r := range block {
				b := out.Journal[string(r.Type)]
				b.Count++
				b.Bytes += int64(stored) * int64(raw[i]) / int64(max(total, 1))
				out.Journal[string(r.Type)] = b
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, x := range []struct {
			name []byte
			into *Bytes
		}{{bucketNotes, &out.Notes}, {bucketPlan, &out.Plan}, {bucketCalls, &out.Calls}, {bucketState, &out.State}} {
			if err := sb.Bucket(x.name).ForEach(func(k, v []byte) error { x.into.add(k, v); return nil }); err != nil {
				return err
			}
		}
		if b := sb.Bucket(bucketSnaps); b != nil {
			st := b.Stats()
			out.Pages[string(bucketSnaps)] = int64(st.BranchAlloc + st.LeafAlloc)
			if err := b.ForEach(func(k, v []byte) error { out.Snaps.add(k, v); return nil }); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// FreeBytes returns how much of the file is free pages, ready for reuse.
func (b *Book) FreeBytes() int64 {
	st := b.db.Stats()
	return int64(st.FreePageN+st.PendingPageN) * int64(b.db.Info().PageSize)
}

// FileBytes returns how much of the file the notebook uses: its high-water mark, which
// is what the file grows with (bbolt reuses freed pages below it).
func (b *Book) FileBytes() (int64, error) {
	var n int64
	err := b.view(func(tx *bolt.Tx) error { n = tx.Size(); return nil })
	return n, err
}
