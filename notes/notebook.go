package notes

import (
	"encoding/binary"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Notes is one version of the session's markdown notes.
type Notes struct {
	Text    string    `json:"text"`
	Version int       `json:"version"` // 0 is the default skeleton, never stored
	Step    int       `json:"step"`    // the agent step that wrote this version
	Time    time.Time `json:"time"`
}

// Sections are the default sections of the notes, in order.
var Sections = []string{"Situation", "Strategy", "Plan", "Next", "Waiting on", "Lessons"}

// Skeleton is the notes a session starts with. Each section says what
// belongs in it, so that the model knows what to keep current.
const Skeleton = `# Notes

## Situation

_What the world looks like now: resources, assets, where they are._

## Strategy

_The long-term approach and why it was chosen._

## Plan

_The current plan in a few lines (the step list is kept separately)._

## Next

_The very next thing to do._

## Waiting on

_Timers, transits and cooldowns, with when they end._

## Lessons

_What worked, what failed, and the advice the person gave._
`

// Notes returns the latest version of the notes, or the default skeleton
// (version 0) when none was written.
func (s *Session) Notes() (Notes, error) {
	s.staged.mu.Lock()
	defer s.staged.mu.Unlock()
	if n, ok := s.stagedNotes(); ok {
		return n, nil
	}
	var n Notes
	err := s.view(func(sb *bolt.Bucket) error {
		var err error
		n, err = latestNotes(sb)
		return err
	})
	return n, err
}

func latestNotes(sb *bolt.Bucket) (Notes, error) {
	v, seq, ok, err := latestVersion(sb.Bucket(bucketNotes), legacyNotes)
	if err != nil {
		return Notes{}, fmt.Errorf("notes: notes %w", err)
	}
	if !ok {
		return Notes{Text: Skeleton}, nil
	}
	return Notes{Text: string(v.Text), Version: int(seq), Step: v.Step, Time: v.Time}, nil
}

// legacyNotes reads a notes version stored whole as JSON (format 1).
var legacyNotes = jsonVersion(func(n Notes) ([]byte, int, time.Time) { return []byte(n.Text), n.Step, n.Time })

// SetNotes replaces the whole notes with text, written at agent step step,
// and returns the new version. Every earlier version is kept.
func (s *Session) SetNotes(text string, step int) (Notes, error) {
	return s.editNotes(step, func(string) (string, error) { return text, nil })
}

// UpdateSection replaces the body of the "## section" heading (matched
// case-insensitively) with text, or appends the section when the notes
// have no such heading. A copy of the heading at the start of text is
// dropped, so the model may send the section with or without it.
func (s *Session) UpdateSection(section, text string, step int) (Notes, error) {
	if err := checkSection(section, text); err != nil {
		return Notes{}, err
	}
	return s.editNotes(step, func(old string) (string, error) {
		return ReplaceSection(old, section, text)
	})
}

func (s *Session) editNotes(step int, edit func(old string) (string, error)) (Notes, error) {
	s.staged.mu.Lock()
	defer s.staged.mu.Unlock()
	if s.deferring() {
		cur, ok := s.stagedNotes()
		if !ok {
			if err := s.view(func(sb *bolt.Bucket) error {
				var err error
				cur, err = latestNotes(sb)
				return err
			}); err != nil {
				return Notes{}, err
			}
		}
		n, err := s.nextNotes(cur, step, edit)
		if err != nil {
			return Notes{}, err
		}
		s.staged.notes = append(s.staged.notes, n)
		return n, nil
	}
	var n Notes
	err := s.update(func(sb *bolt.Bucket) error {
		cur, err := latestNotes(sb)
		if err != nil {
			return err
		}
		if n, err = s.nextNotes(cur, step, edit); err != nil {
			return err
		}
		if err := s.putNotes(sb, n); err != nil {
			return err
		}
		return s.editInfo(sb, nil)
	})
	return n, err
}

// nextNotes applies edit to cur and checks the result: the version to store next.
func (s *Session) nextNotes(cur Notes, step int, edit func(old string) (string, error)) (Notes, error) {
	text, err := edit(cur.Text)
	if err != nil {
		return Notes{}, err
	}
	if err := checkNotes(cur.Text, text); err != nil {
		return Notes{}, err
	}
	return Notes{Text: s.book.scrubString(text), Version: cur.Version + 1, Step: step, Time: s.book.now()}, nil
}

// putNotes stores n as its version, as a change from the version before it.
func (s *Session) putNotes(sb *bolt.Bucket, n Notes) error {
	cur, err := latestNotes(sb)
	if err != nil {
		return err
	}
	var prev []byte
	if cur.Version > 0 {
		prev = []byte(cur.Text)
	}
	v := textVersion{Text: []byte(n.Text), Step: n.Step, Time: n.Time}
	return putVersion(sb.Bucket(bucketNotes), uint64(n.Version), v, prev)
}

// NoteHistory returns every stored version of the notes, oldest first.
func (s *Session) NoteHistory() ([]Notes, error) {
	var out []Notes
	err := s.view(func(sb *bolt.Bucket) error {
		return versions(sb.Bucket(bucketNotes), 1, legacyNotes, func(k []byte, v textVersion) error {
			out = append(out, Notes{Text: string(v.Text), Version: int(binary.BigEndian.Uint64(k)), Step: v.Step, Time: v.Time})
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("notes: notes %w", err)
	}
	return out, nil
}
