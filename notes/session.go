package notes

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"

	bolt "go.etcd.io/bbolt"
)

// Keys and buckets inside one session's bucket.
var (
	keyInfo       = []byte("info")
	bucketJournal = []byte("journal") // seq (8 bytes big-endian) -> Record JSON
	bucketNotes   = []byte("notes")   // version -> Notes JSON
	bucketPlan    = []byte("plan")    // version -> planVersion JSON
	bucketRules   = []byte("rules")   // tool name -> "1"
	bucketState   = []byte("state")   // keyState -> opaque bytes
	bucketCalls   = []byte("calls")   // call id -> callEntry JSON, every call ever seen
	bucketOpen    = []byte("open")    // call id -> "" for calls not yet finished
	keyState      = []byte("state")
)

var sessionBuckets = [][]byte{bucketJournal, bucketNotes, bucketPlan, bucketRules, bucketState, bucketCalls, bucketOpen}

// maxName bounds session names so that they fit a table and a file name.
const maxName = 100

// SessionInfo summarises a session for listings and status bars.
type SessionInfo struct {
	Name       string    `json:"name"`
	Game       string    `json:"game"`
	Model      string    `json:"model"`
	Created    time.Time `json:"created"`
	LastActive time.Time `json:"last_active"`
	// Steps is the current step number (the highest seen).
	Steps int `json:"steps"`
	// Calls counts tool calls that finished (one per tool_result record).
	Calls            int   `json:"calls"`
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	// CachedTokens counts the prompt tokens the provider served from its cache.
	CachedTokens int64   `json:"cached_tokens,omitempty"`
	Cost         float64 `json:"cost"`
	// Records is the journal's length (the last Seq).
	Records uint64 `json:"records"`
	// Profile is the profile the session was started with, as NAME/EXPERIMENT@VERSION
	// ("" = none), so a result can be traced to the exact definition that played.
	Profile string `json:"profile,omitempty"`
	// LoadedTools names, in the order first sent, the tools whose definitions the model
	// has been sent when the catalogue is too long to send whole (load_tools), so that a
	// resumed session sends the same tools.
	LoadedTools []string `json:"loaded_tools,omitempty"`
	// Parent is the session and step this one was forked from (NAME@STEP; "" = none):
	// it began as that session stood at the start of that step (fork.go).
	Parent string `json:"parent,omitempty"`
	// League is the league the session is a seat of ("" = a lone session), and Seat
	// that seat's name (league.go). A league's seats share its name here.
	League string `json:"league,omitempty"`
	Seat   string `json:"seat,omitempty"`
}

// Session is one saved game session inside a [Book]. Its methods are safe
// for concurrent use; each one is its own transaction.
type Session struct {
	book *Book
	name string

	staged staging    // note and plan edits waiting for the next Commit (DeferEdits)
	snap   *snapCache // the last state saved to the history (snapshots.go)
}

// Name returns the session's name.
func (s *Session) Name() string { return s.name }

// Book returns the book the session lives in.
func (s *Session) Book() *Book { return s.book }

// validName reports what is wrong with a session name, if anything.
func validName(name string) error { return checkName("session name", name) }

// checkName reports what is wrong with a name (what says which: "session name",
// "league name"), if anything.
func checkName(what, name string) error {
	switch {
	case name == "":
		return fmt.Errorf("notes: %s is empty", what)
	case len(name) > maxName:
		return fmt.Errorf("notes: %s %.20q... is longer than %d bytes", what, name, maxName)
	case strings.TrimSpace(name) != name:
		return fmt.Errorf("notes: %s %q starts or ends with a space", what, name)
	}
	for _, r := range name {
		if unicode.IsControl(r) || r == '/' || r == '\\' {
			return fmt.Errorf("notes: %s %q contains %q; use letters, digits, '-', '_' or '.'", what, name, r)
		}
	}
	return nil
}

// Create starts a new session. An empty name gets a readable unique one
// made of the game and the time, like "spacetraders-2026-11-22-1503".
// A name already in use gives an error matching ErrExists.
func (b *Book) Create(name, game, model string) (*Session, error) {
	now := b.now()
	generated := name == ""
	if generated {
		prefix := slug(game)
		if prefix == "" {
			prefix = "session"
		}
		name = prefix + "-" + now.Format("2006-01-02-1504")
	}
	if err := validName(name); err != nil {
		return nil, err
	}
	err := b.update(func(tx *bolt.Tx) error {
		all := tx.Bucket(bucketSessions)
		final := name
		for i := 2; all.Bucket([]byte(final)) != nil; i++ {
			if !generated {
				return fmt.Errorf("notes: session %q %w in %s", name, ErrExists, b.path)
			}
			final = fmt.Sprintf("%s-%d", name, i)
		}
		name = final
		sb, err := all.CreateBucket([]byte(name))
		if err != nil {
			return err
		}
		for _, k := range sessionBuckets {
			if _, err := sb.CreateBucket(k); err != nil {
				return err
			}
		}
		info := SessionInfo{Name: name, Game: b.scrubString(game), Model: b.scrubString(model), Created: now, LastActive: now}
		return putInfo(sb, info)
	})
	if err != nil {
		return nil, err
	}
	return &Session{book: b, name: name}, nil
}

// slug makes a game name usable as a session name prefix.
func slug(s string) string {
	var sb strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			sb.WriteRune(r)
		case sb.Len() > 0 && !strings.HasSuffix(sb.String(), "-"):
			sb.WriteByte('-')
		}
	}
	out := strings.TrimSuffix(sb.String(), "-")
	if len(out) > 40 {
		out = out[:40]
	}
	return out
}

// Session returns the named session, or the most recently active one when
// name is "". A missing session gives an error matching ErrNotFound.
func (b *Book) Session(name string) (*Session, error) {
	if name == "" {
		list, err := b.List()
		if err != nil {
			return nil, err
		}
		if len(list) == 0 {
			return nil, fmt.Errorf("notes: no sessions in %s: %w", b.path, ErrNotFound)
		}
		return &Session{book: b, name: list[0].Name}, nil
	}
	err := b.view(func(tx *bolt.Tx) error {
		_, err := b.sessionBucket(tx, name)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &Session{book: b, name: name}, nil
}

// List returns every session, the most recently active first.
func (b *Book) List() ([]SessionInfo, error) {
	var out []SessionInfo
	err := b.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketSessions).ForEachBucket(func(k []byte) error {
			sb := tx.Bucket(bucketSessions).Bucket(k)
			info, err := readInfo(sb, string(k))
			if err != nil {
				return err
			}
			out = append(out, info)
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].LastActive.Equal(out[j].LastActive) {
			return out[i].LastActive.After(out[j].LastActive)
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// Delete removes a session and everything in it.
func (b *Book) Delete(name string) error {
	return b.update(func(tx *bolt.Tx) error {
		if _, err := b.sessionBucket(tx, name); err != nil {
			return err
		}
		return tx.Bucket(bucketSessions).DeleteBucket([]byte(name))
	})
}

// sessionBucket finds a session's bucket or explains that it is missing.
func (b *Book) sessionBucket(tx *bolt.Tx, name string) (*bolt.Bucket, error) {
	sb := tx.Bucket(bucketSessions).Bucket([]byte(name))
	if sb == nil {
		return nil, fmt.Errorf("notes: session %q in %s: %w", name, b.path, ErrNotFound)
	}
	return sb, nil
}

// readInfo decodes a session's info and fills in the journal length.
func readInfo(sb *bolt.Bucket, name string) (SessionInfo, error) {
	var info SessionInfo
	v := sb.Get(keyInfo)
	p, sealed, err := unseal(kindInfo, keyInfo, v)
	if err != nil {
		return info, fmt.Errorf("notes: session %q: bad info record: %w: %w", name, ErrCorrupt, err)
	}
	if !sealed {
		p = v
	}
	if err := json.Unmarshal(p, &info); err != nil {
		return info, fmt.Errorf("notes: session %q: bad info record: %w: %w", name, ErrCorrupt, err)
	}
	info.Name = name
	if j := sb.Bucket(bucketJournal); j != nil {
		info.Records = j.Sequence()
	}
	return info, nil
}

// writeInfo stores info, sealed, marking the session active now.
func (s *Session) writeInfo(sb *bolt.Bucket, info SessionInfo) error {
	if now := s.book.now(); now.After(info.LastActive) {
		info.LastActive = now
	}
	return putInfo(sb, info)
}

func putInfo(sb *bolt.Bucket, info SessionInfo) error {
	data, err := json.Marshal(info)
	if err != nil {
		return err
	}
	return sb.Put(keyInfo, seal(kindInfo, keyInfo, data))
}

// view and update run fn with this session's bucket. Damage found inside the session
// is reported naming the file and the session.
func (s *Session) view(fn func(sb *bolt.Bucket) error) error {
	return s.damaged(s.book.view(s.inBucket(fn)))
}

func (s *Session) update(fn func(sb *bolt.Bucket) error) error {
	return s.damaged(s.book.update(s.inBucket(fn)))
}

// inBucket makes fn a transaction's function: it runs with this session's bucket, once
// every bucket a session has is there (a damaged page can lose one; reading it would
// dereference nothing).
func (s *Session) inBucket(fn func(sb *bolt.Bucket) error) func(*bolt.Tx) error {
	return func(tx *bolt.Tx) error {
		sb, err := s.book.sessionBucket(tx, s.name)
		if err != nil {
			return err
		}
		for _, name := range sessionBuckets {
			if sb.Bucket(name) == nil {
				return fmt.Errorf("notes: its %s bucket is missing (lost to a damaged page): %w", name, ErrCorrupt)
			}
		}
		return fn(sb)
	}
}

// damaged names the file and the session in an ErrCorrupt error that does not yet (the
// Book's own recovery from a fault names only the file).
func (s *Session) damaged(err error) error {
	var fe *fileError
	switch {
	case err == nil || !errors.Is(err, ErrCorrupt):
		return err
	case errors.As(err, &fe) && fe.msg == "is damaged":
		return &fileError{path: fe.path, msg: fmt.Sprintf("is damaged in session %q", s.name), kind: ErrCorrupt, err: fe.err}
	case fe != nil:
		return err
	}
	return &fileError{path: s.book.path, msg: fmt.Sprintf("is damaged in session %q", s.name), kind: ErrCorrupt, err: err}
}

// editInfo applies fn to the stored info and marks the session active.
func (s *Session) editInfo(sb *bolt.Bucket, fn func(*SessionInfo)) error {
	info, err := readInfo(sb, s.name)
	if err != nil {
		return err
	}
	if fn != nil {
		fn(&info)
	}
	return s.writeInfo(sb, info)
}

// Info returns the session's summary and totals.
func (s *Session) Info() (SessionInfo, error) {
	var info SessionInfo
	err := s.view(func(sb *bolt.Bucket) error {
		var err error
		info, err = readInfo(sb, s.name)
		return err
	})
	return info, err
}

// SetProfile records the profile the session plays with (NAME/EXPERIMENT@VERSION).
func (s *Session) SetProfile(profile string) error {
	return s.update(func(sb *bolt.Bucket) error {
		return s.editInfo(sb, func(i *SessionInfo) { i.Profile = s.book.scrubString(profile) })
	})
}

// SetStep records the current step number and marks the session active.
func (s *Session) SetStep(step int) error {
	return s.update(func(sb *bolt.Bucket) error {
		return s.editInfo(sb, func(i *SessionInfo) { i.Steps = step })
	})
}

// AddUsage adds a model call's token counts and cost to the totals.
func (s *Session) AddUsage(promptTokens, completionTokens int64, cost float64) error {
	return s.update(func(sb *bolt.Bucket) error {
		return s.editInfo(sb, func(i *SessionInfo) {
			i.PromptTokens += promptTokens
			i.CompletionTokens += completionTokens
			i.Cost += cost
		})
	})
}

// Rules returns the tools always allowed without condition: tool name -> true, from
// the older always-allow entries and the rule lines "allow TOOL" (RuleLines has every
// rule).
func (s *Session) Rules() (map[string]bool, error) {
	rules := map[string]bool{}
	err := s.view(func(sb *bolt.Bucket) error {
		return sb.Bucket(bucketRules).ForEach(func(k, v []byte) error {
			if !bytes.Equal(v, ruleLineValue) {
				rules[string(k)] = true
			} else if tool, ok := strings.CutPrefix(string(k), "allow "); ok && !strings.ContainsAny(tool, " \t(:*?[") {
				rules[tool] = true
			}
			return nil
		})
	})
	return rules, err
}

// SetRule makes tool always allowed (allow) or asks again (!allow).
func (s *Session) SetRule(tool string, allow bool) error {
	if tool == "" {
		return errors.New("notes: SetRule: empty tool name")
	}
	return s.update(func(sb *bolt.Bucket) error {
		rb := sb.Bucket(bucketRules)
		if allow {
			return rb.Put(s.book.scrub([]byte(tool)), []byte("1"))
		}
		return rb.Delete([]byte(tool))
	})
}

// ruleLineValue marks an entry of the rules bucket whose key is a whole rule line
// ("allow navigate_ship if fuel <= 100"); the older entries, value "1", are a bare tool
// name that is always allowed.
var ruleLineValue = []byte("rule")

// RuleLines returns the session's approval rules as rule lines, in key order. An older
// always-allow entry for TOOL reads as "allow TOOL". The lines are stored as the
// runner gave them (canonical); this package does not parse them.
func (s *Session) RuleLines() ([]string, error) {
	var out []string
	seen := map[string]bool{}
	err := s.view(func(sb *bolt.Bucket) error {
		return sb.Bucket(bucketRules).ForEach(func(k, v []byte) error {
			line := string(k)
			if !bytes.Equal(v, ruleLineValue) {
				line = "allow " + line
			}
			if !seen[line] {
				seen[line] = true
				out = append(out, line)
			}
			return nil
		})
	})
	return out, err
}

// AddRuleLine stores a rule line in the session (a line already there is kept once).
func (s *Session) AddRuleLine(line string) error {
	if strings.TrimSpace(line) == "" {
		return errors.New("notes: AddRuleLine: empty rule")
	}
	return s.update(func(sb *bolt.Bucket) error {
		return sb.Bucket(bucketRules).Put(s.book.scrub([]byte(line)), ruleLineValue)
	})
}

// RemoveRuleLine removes a rule line from the session, and for "allow TOOL" also the
// older always-allow entry for TOOL. It reports whether anything was removed.
func (s *Session) RemoveRuleLine(line string) (bool, error) {
	removed := false
	err := s.update(func(sb *bolt.Bucket) error {
		rb := sb.Bucket(bucketRules)
		if v := rb.Get([]byte(line)); v != nil && bytes.Equal(v, ruleLineValue) {
			removed = true
			if err := rb.Delete([]byte(line)); err != nil {
				return err
			}
		}
		if tool, ok := strings.CutPrefix(line, "allow "); ok {
			if v := rb.Get([]byte(tool)); v != nil && !bytes.Equal(v, ruleLineValue) {
				removed = true
				return rb.Delete([]byte(tool))
			}
		}
		return nil
	})
	return removed, err
}

// SaveState stores the game's saved state, replacing the previous one. An unchanged
// state is not written again.
func (s *Session) SaveState(data []byte) error {
	data = s.book.scrub(append([]byte(nil), data...))
	return s.update(func(sb *bolt.Bucket) error {
		if err := s.putState(sb, sb.Bucket(bucketJournal).Sequence()+1, data, false); err != nil {
			return err
		}
		return s.editInfo(sb, nil)
	})
}

// maxState bounds what a stored state may inflate to.
const maxState = 1 << 30

// State returns the game's saved state, or nil when none was saved.
func (s *Session) State() ([]byte, error) {
	var out []byte
	err := s.view(func(sb *bolt.Bucket) error {
		// The state history's newest save and its tail are the state (snapshots.go).
		if raw, ok, err := latestState(sb); err != nil || ok {
			out = raw
			return err
		}
		// A notebook written before the state history keeps the state whole.
		v := sb.Bucket(bucketState).Get(keyState)
		if v == nil {
			return nil
		}
		p, sealed, err := unseal(kindState, keyState, v)
		if err != nil {
			return fmt.Errorf("notes: game state: %w: %w", ErrCorrupt, err)
		}
		if !sealed {
			out = append([]byte{}, v...)
			return nil
		}
		if len(p) < sha256.Size {
			return fmt.Errorf("notes: game state: %w: too short", ErrCorrupt)
		}
		if out, err = inflate(p[sha256.Size:], maxState); err != nil {
			return fmt.Errorf("notes: game state: %w: %w", ErrCorrupt, err)
		}
		if out == nil {
			out = []byte{}
		}
		return nil
	})
	return out, err
}

func putJSON(b *bolt.Bucket, key []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(key, data)
}
