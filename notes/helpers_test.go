package notes

import (
	"fmt"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/coplayhq/coplay/notes/record"
)

// createAt opens the notebook at path and creates a session in it; closing the book is
// the test's.
func createAt(t testing.TB, path, name, game, model string) (*Book, *Session) {
	t.Helper()
	b, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := b.Create(name, game, model)
	if err != nil {
		t.Fatal(err)
	}
	return b, s
}

// fill appends n records in one transaction: the same storage path as
// Append without an fsync per record, so that big journals are quick to
// build in tests and benchmarks.
func fill(t testing.TB, s *Session, n int) {
	t.Helper()
	const chunk = 10000
	for done := 0; done < n; done += chunk {
		err := s.update(func(sb *bolt.Bucket) error {
			w, err := newBlockWriter(sb.Bucket(bucketJournal), nil)
			if err != nil {
				return err
			}
			defer w.flush()
			for i := done; i < min(done+chunk, n); i++ {
				r := Record{Time: s.book.now(), Step: i/10 + 1}
				switch i % 5 {
				case 0:
					r.Type, r.Data = "text", []byte(fmt.Sprintf(`{"text":"thinking about move %d, the market at X1-DF55-A2 pays more"}`, i))
				case 1:
					r.Type, r.CallID, r.Data = record.TypeProposed, fmt.Sprintf("c%d", i), []byte(`{"call":{"tool":"navigate","args":{"ship":"X-1","waypoint":"X1-DF55-A2"}}}`)
				case 2:
					r.Type, r.CallID, r.Data = record.TypeDecision, fmt.Sprintf("c%d", i-1), []byte(`{"decision":"approve"}`)
				case 3:
					r.Type, r.CallID, r.Data = record.TypeResult, fmt.Sprintf("c%d", i-2), []byte(`{"output":{"fuel":{"current":300,"capacity":400}}}`)
				case 4:
					r.Type, r.Data = "usage", []byte(`{"prompt_tokens":1200,"completion_tokens":80}`)
				}
				if err := s.appendTx(sb, w, &r, &SessionInfo{}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
