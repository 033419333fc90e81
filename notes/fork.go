package notes

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/coplayhq/coplay/notes/record"
	bolt "go.etcd.io/bbolt"
)

// A fork is a new session that starts where another stood at the start of one of its
// steps: its journal up to that step's record (the same records, with the same seqs),
// its notes and plan versions written before it, the approval rules it had then, the
// spend so far and the history of the game's state up to it. The parent is only read.
// The fork's own state (the world to play from) is the caller's: the game decides how
// a world saved at that step is restored (StateAt, then SaveState on the fork).

// ForkPoint names a step of a session: NAME@STEP.
type ForkPoint struct {
	Session string
	Step    int
}

// String gives the point as NAME@STEP.
func (p ForkPoint) String() string { return p.Session + "@" + strconv.Itoa(p.Step) }

// ParseForkPoint reads NAME@STEP (the last @ separates them: a session's name may hold
// one).
func ParseForkPoint(s string) (ForkPoint, error) {
	i := strings.LastIndexByte(s, '@')
	if i <= 0 {
		return ForkPoint{}, fmt.Errorf("%q is not NAME@STEP (a session's name, @, a step number: universe-2026-11-26-0017@60)", s)
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil || n < 1 {
		return ForkPoint{}, fmt.Errorf("%q: the step after @ must be a number from 1, not %q", s, s[i+1:])
	}
	return ForkPoint{Session: s[:i], Step: n}, nil
}

// StepSeq returns the seq of the record that began step n (its step record), and the
// time of the observation that followed it, when the step observed the world (zero when
// it did not). A step the journal does not have is an error that says how many steps it
// does have; so is an observation that cannot be read.
func (s *Session) StepSeq(n int) (seq uint64, observed time.Time, err error) {
	seq, obs, err := s.stepStart(n)
	if err != nil || obs == nil {
		return seq, time.Time{}, err
	}
	d, err := obs.Decode()
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("session %s: %w", s.name, err)
	}
	if d.Observation != nil {
		observed = d.Observation.Time
	}
	return seq, observed, nil
}

// stepStart returns the seq of step n's step record and the observation record that
// followed it in the step (nil when there is none).
func (s *Session) stepStart(n int) (seq uint64, observed *Record, err error) {
	var last int
	stop := errors.New("stop")
	err = s.Records(1, func(r Record) error {
		if r.Step > last {
			last = r.Step
		}
		switch {
		case seq == 0 && r.Type == record.TypeStep && r.Step == n:
			seq = r.Seq
		case seq != 0 && r.Type == record.TypeObservation:
			observed = &r
			return stop
		case seq != 0 && r.Step != n:
			return stop
		}
		return nil
	})
	if errors.Is(err, stop) {
		err = nil
	}
	if err != nil {
		return 0, nil, err
	}
	if seq == 0 {
		return 0, nil, fmt.Errorf("session %s has no step %d (its journal has steps 1 to %d)", s.name, n, last)
	}
	return seq, observed, nil
}

// Fork makes a new session named name ("" = one made from the parent's name) from the
// parent's state at the start of step at.Step, for a game played by model. It returns
// the new session and the seq of the parent's step record it was cut at.
func (b *Book) Fork(at ForkPoint, name, model string) (*Session, uint64, error) {
	parent, err := b.Session(at.Session)
	if err != nil {
		return nil, 0, err
	}
	cut, _, err := parent.stepStart(at.Step)
	if err != nil {
		return nil, 0, err
	}
	pinfo, err := parent.Info()
	if err != nil {
		return nil, 0, err
	}
	suffix := ""
	if name == "" {
		name, suffix = at.Session, fmt.Sprintf("-fork%d", at.Step)
	}
	child, err := b.Create(uniqueName(b, name, suffix), pinfo.Game, model)
	if err != nil {
		return nil, 0, err
	}
	var recs []Record
	err = parent.Records(1, func(r Record) error {
		if r.Seq >= cut {
			return errStopCopy
		}
		recs = append(recs, r)
		return nil
	})
	if err != nil && !errors.Is(err, errStopCopy) {
		return nil, 0, err
	}
	err = b.update(func(tx *bolt.Tx) error {
		psb, err := b.sessionBucket(tx, at.Session)
		if err != nil {
			return err
		}
		csb, err := b.sessionBucket(tx, child.name)
		if err != nil {
			return err
		}
		info, err := readInfo(csb, child.name)
		if err != nil {
			return err
		}
		info.Parent = at.String()
		info.LoadedTools = pinfo.LoadedTools
		if err := copyJournal(recs, csb, &info); err != nil {
			return err
		}
		if err := copyVersions(psb.Bucket(bucketNotes), csb.Bucket(bucketNotes), at.Step, legacyNotes); err != nil {
			return err
		}
		if err := copyVersions(psb.Bucket(bucketPlan), csb.Bucket(bucketPlan), at.Step, legacyPlan); err != nil {
			return err
		}
		if err := copySnapshots(psb, csb, cut+1); err != nil {
			return err
		}
		return child.writeInfo(csb, info)
	})
	if err != nil {
		if derr := b.Delete(child.name); derr != nil {
			err = fmt.Errorf("%w (and removing the half-made fork %s: %v)", err, child.name, derr)
		}
		return nil, 0, fmt.Errorf("notes: forking %s: %w", at, err)
	}
	return child, cut, nil
}

// uniqueName returns name+suffix, or name+suffix-2, -3, ... when a session has it,
// each cut to a valid session name (fitName).
func uniqueName(b *Book, name, suffix string) string {
	out := fitName(name, suffix)
	for i := 2; ; i++ {
		if _, err := b.Session(out); err != nil {
			return out
		}
		out = fitName(name, fmt.Sprintf("%s-%d", suffix, i))
	}
}

// fitName is base+suffix within maxName bytes: base is cut, after the suffix is
// counted, on a character boundary (a name cut inside a character is not UTF-8) and
// without a space at the cut, so a long session forks again and again.
func fitName(base, suffix string) string {
	if len(base)+len(suffix) <= maxName {
		return base + suffix
	}
	for len(base)+len(suffix) > maxName && base != "" {
		_, size := utf8.DecodeLastRuneInString(base)
		base = base[:len(base)-size]
	}
	return strings.TrimRight(base, " ") + suffix
}

// copyJournal writes the parent's records recs into the child (empty), with their
// seqs, and indexes their calls; info gets the totals they add up to (steps, calls,
// tokens and cost from their usage records) and the child gets the rules they leave in
// force.
func copyJournal(recs []Record, csb *bolt.Bucket, info *SessionInfo) error {
	w, err := newBlockWriter(csb.Bucket(bucketJournal), nil)
	if err != nil {
		return err
	}
	var rules []string
	rulesSeen := false
	for i := range recs {
		r := recs[i]
		if err := csb.Bucket(bucketJournal).SetSequence(r.Seq - 1); err != nil {
			return err
		}
		if err := w.add(&r); err != nil {
			return err
		}
		if err := indexCall(csb, r); err != nil {
			return err
		}
		if r.Step > info.Steps {
			info.Steps = r.Step
		}
		switch r.Type {
		case record.TypeResult:
			info.Calls++
		case record.TypeUsage:
			d, err := r.Decode()
			if err != nil {
				return err
			}
			u, err := usageOf(d.Usage)
			if err != nil {
				return fmt.Errorf("journal record %d: %w", r.Seq, err)
			}
			info.PromptTokens += u.Prompt
			info.CompletionTokens += u.Completion
			info.CachedTokens += u.Cached
			info.Cost += u.Cost
		case record.TypeRules:
			d, err := r.Decode()
			if err != nil {
				return err
			}
			rules, rulesSeen = d.Rules, true
		}
	}
	if err := w.flush(); err != nil {
		return err
	}
	if rulesSeen {
		rb := csb.Bucket(bucketRules)
		for _, line := range rules {
			if err := rb.Put([]byte(line), ruleLineValue); err != nil {
				return err
			}
		}
	}
	return nil
}

var errStopCopy = errors.New("stop copying")

// copyVersions copies the versions of a notes or plan bucket written before step into
// an empty one, as they are stored (a version's value depends only on its key and the
// version before it, so the copied chain reads the same).
func copyVersions(from, to *bolt.Bucket, step int, legacy func(k, v []byte) (textVersion, error)) error {
	to.FillPercent = 1.0
	var prev []byte
	c := from.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		got, _, err := decodeVersion(k, v, prev)
		if errors.Is(err, errLegacy) {
			got, err = legacy(k, v)
		}
		if err != nil {
			return fmt.Errorf("version %d: %w", binary.BigEndian.Uint64(k), err)
		}
		if got.Step >= step {
			break
		}
		prev = got.Text
		if err := to.Put(bytes.Clone(k), bytes.Clone(v)); err != nil {
			return err
		}
		// The next version is numbered from the bucket's sequence.
		if err := to.SetSequence(binary.BigEndian.Uint64(k)); err != nil {
			return err
		}
	}
	return nil
}
