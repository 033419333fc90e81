// Package secret keeps secrets (model keys, game tokens, header values) out of everything
// coplay emits: what reaches the model, the game, the notebook, the screen and stdout.
// It is the one place the rule lives: a Scrubber knows the values, in every form they
// travel in, and replaces each by Redacted.
package secret

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"sort"
	"strings"
	"sync"
)

// Redacted replaces a secret wherever it would be shown, written or sent.
const Redacted = "[REDACTED]"

// MinLen is the shortest value a Scrubber takes: shorter strings would mangle ordinary
// words, and are not credentials.
const MinLen = 8

// Scrubber replaces known secrets in text. The zero value knows none; a nil *Scrubber is
// valid and replaces nothing. It is safe for concurrent use: secrets may be added while
// others scrub (a game's token is known only once the game is open).
type Scrubber struct {
	mu      sync.RWMutex
	secrets []known
	forms   []form // every form of every secret, longest first
}

// known is one secret and the name it is reported by.
type known struct{ name, value string }

// form is one way a secret appears in text: as is, escaped inside a JSON string, escaped
// in a URL, or encoded in base64 (a Basic authorization header).
type form struct {
	text string
	of   int // index into secrets
}

// New returns a Scrubber for values; values shorter than MinLen are ignored.
func New(values ...string) *Scrubber {
	s := &Scrubber{}
	s.Add(values...)
	return s
}

// Add adds values, each reported as "a secret" by Find.
func (s *Scrubber) Add(values ...string) {
	for _, v := range values {
		s.AddNamed("", v)
	}
}

// AddNamed adds value under name (an environment variable, "the game's token"), which
// Find reports. A value already known keeps its first name, unless that was empty.
func (s *Scrubber) AddNamed(name, value string) {
	if s == nil || len(value) < MinLen {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, k := range s.secrets {
		if k.value == value {
			if k.name == "" {
				s.secrets[i].name = name
			}
			return
		}
	}
	s.secrets = append(s.secrets, known{name: name, value: value})
	idx := len(s.secrets) - 1
	for _, f := range forms(value) {
		s.forms = append(s.forms, form{text: f, of: idx})
	}
	// Longest first, so that a form that contains another is replaced whole.
	sort.SliceStable(s.forms, func(i, j int) bool { return len(s.forms[i].text) > len(s.forms[j].text) })
}

// forms returns the distinct ways value can appear in text.
func forms(value string) []string {
	q, _ := json.Marshal(value)
	b64 := base64.StdEncoding.EncodeToString([]byte(value))
	var out []string
	for _, f := range []string{value, string(q[1 : len(q)-1]), url.QueryEscape(value), url.PathEscape(value),
		b64, strings.TrimRight(b64, "="), base64.URLEncoding.EncodeToString([]byte(value))} {
		if len(f) >= MinLen && !contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Empty reports whether s knows no secret.
func (s *Scrubber) Empty() bool {
	if s == nil {
		return true
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.secrets) == 0
}

// String returns t with every form of every secret replaced by Redacted.
func (s *Scrubber) String(t string) string {
	if s == nil {
		return t
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, f := range s.forms {
		if strings.Contains(t, f.text) {
			t = strings.ReplaceAll(t, f.text, Redacted)
		}
	}
	return t
}

// Bytes returns p with every secret replaced; p itself when there is none in it.
func (s *Scrubber) Bytes(p []byte) []byte {
	if s == nil {
		return p
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, f := range s.forms {
		if bytes.Contains(p, []byte(f.text)) {
			p = bytes.ReplaceAll(p, []byte(f.text), []byte(Redacted))
		}
	}
	return p
}

// JSON returns raw JSON with every secret replaced inside its strings. The result is
// still valid JSON (Redacted needs no escaping); should a replacement break it anyway,
// the scrubbed text comes back as one JSON string.
func (s *Scrubber) JSON(raw json.RawMessage) json.RawMessage {
	if s.Empty() || len(raw) == 0 {
		return raw
	}
	out := s.Bytes(append(json.RawMessage(nil), raw...))
	if !json.Valid(out) {
		q, _ := json.Marshal(string(out))
		return q
	}
	return out
}

// Find reports whether t holds a secret, in any of its forms, and the name it was added
// under ("a secret" when it has none).
func (s *Scrubber) Find(t string) (name string, found bool) {
	if s == nil {
		return "", false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, f := range s.forms {
		if strings.Contains(t, f.text) {
			if n := s.secrets[f.of].name; n != "" {
				return n, true
			}
			return "a secret", true
		}
	}
	return "", false
}
