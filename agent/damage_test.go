package agent_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/notes"
	bolt "go.etcd.io/bbolt"
)

// Resuming a session whose journal is damaged says, in an error event, which records
// cannot be read and are skipped, and plays on.
func TestResumeOfADamagedSessionSaysWhatIsSkipped(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "coplay.db")
	book, sess := createSession(t, path, "hurt", "grid", "script")
	g := &gridGame{now: time.Now}
	// The dig changes the world each step: the same look again and again is not a loop.
	b := &scriptBrain{replies: []scripted{say("On.", "look", `{}`, "dig", `{}`)}, loop: true}
	r, err := agent.New(agent.Config{Game: g, Brain: b, Session: sess, MaxSteps: 80, ApproveAll: true, KeepPlaying: true})
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(t, t.Context(), r, func(agent.Event) {})
	book.Close()

	// Damage the first block of the journal (not the last, which appending rewrites),
	// as a flipped bit on disk would.
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		j := tx.Bucket([]byte("sessions")).Bucket([]byte("hurt")).Bucket([]byte("journal"))
		c := j.Cursor()
		k, v := c.First()
		if next, _ := c.Next(); next == nil {
			t.Fatal("the journal has one block")
		}
		bad := bytes.Clone(v)
		bad[len(bad)/2] ^= 0x04
		return j.Put(bytes.Clone(k), bad)
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}

	book, err = notes.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer book.Close()
	sess, err = book.Session("hurt")
	if err != nil {
		t.Fatal(err)
	}
	r, err = agent.New(agent.Config{Game: g, Brain: b, Session: sess, MaxSteps: 2, ApproveAll: true, KeepPlaying: true})
	if err != nil {
		t.Fatal(err)
	}
	var said string
	steps := 0
	runToEnd(t, t.Context(), r, func(ev agent.Event) {
		if ev.Type == agent.EventError && strings.Contains(ev.Text, "damaged") {
			said = ev.Text
		}
		if ev.Type == agent.EventStep {
			steps++
		}
	})
	if !strings.Contains(said, "the journal of session hurt is damaged, and what cannot be read is skipped: records ") || !strings.Contains(said, "(checksum mismatch)") {
		t.Errorf("the resume said %q", said)
	}
	if steps != 2 {
		t.Errorf("%d steps after the resume, want 2", steps)
	}
}
