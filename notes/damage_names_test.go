package notes

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// Damage is reported naming the file, the session and what was being read (a record,
// a version, a bucket): never a bare "nil pointer dereference". Single-bit flips at
// 150 places of a notebook's pages, as in TestFlippedBytesNeverAlterAnExportSilently.
func TestDamageNamesTheSessionAndTheRecord(t *testing.T) {
	t.Parallel()
	orig := tempPath(t)
	b, _ := miningNotebook(t, orig)
	size, _ := b.FileBytes()
	b.Close()
	good, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	caught := 0
	tried := flipBits(t, good, size, 150, 0x1234567, func(path string, off int64) {
		_, err := exportFile(path)
		if err == nil {
			return
		}
		caught++
		msg := err.Error()
		named := strings.Contains(msg, `in session "x"`) || strings.Contains(msg, "its format mark") || strings.Contains(msg, "is not a coplay notebook")
		placed := !strings.Contains(msg, "runtime error") || strings.ContainsAny(msg, "0123456789") && (strings.Contains(msg, "record") || strings.Contains(msg, "version")) ||
			strings.Contains(msg, "format mark")
		if !strings.Contains(msg, path) || !named || !placed {
			t.Errorf("flip at %d: %q does not name the file, the session and the place", off, strings.ReplaceAll(msg, path, "FILE"))
		}
	})
	t.Logf("%d flips, %d reported as damage", tried, caught)
}

// JournalGaps finds every run of records lost to damage: a block whose checksum fails
// (to the next block's first record) and a block that is gone.
func TestJournalGapsNameWhatIsLost(t *testing.T) {
	t.Parallel()
	b, s := createAt(t, tempPath(t), "x", "g", "m")
	defer b.Close()
	fill(t, s, 3000)
	if gaps, err := s.JournalGaps(); err != nil || len(gaps) != 0 {
		t.Fatalf("an intact journal: %v, %v", gaps, err)
	}
	var keys [][]byte
	_ = b.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketSessions).Bucket([]byte("x")).Bucket(bucketJournal).ForEach(func(k, _ []byte) error {
			keys = append(keys, bytes.Clone(k))
			return nil
		})
	})
	if len(keys) < 6 {
		t.Fatalf("only %d blocks", len(keys))
	}
	seq := func(k []byte) uint64 { return binary.BigEndian.Uint64(k) }
	err := b.update(func(tx *bolt.Tx) error {
		j := tx.Bucket(bucketSessions).Bucket([]byte("x")).Bucket(bucketJournal)
		v := bytes.Clone(j.Get(keys[2]))
		v[len(v)/2] ^= 0x10
		if err := j.Put(keys[2], v); err != nil {
			return err
		}
		return j.Delete(keys[4])
	})
	if err != nil {
		t.Fatal(err)
	}
	gaps, err := s.JournalGaps()
	want := []Gap{
		{From: seq(keys[2]), To: seq(keys[3]) - 1, Why: "checksum mismatch"},
		{From: seq(keys[4]), To: seq(keys[5]) - 1, Why: "missing"},
	}
	if err != nil || fmt.Sprint(gaps) != fmt.Sprint(want) {
		t.Errorf("gaps = %v, %v; want %v", gaps, err, want)
	}
}
