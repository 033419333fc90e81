package secret

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"sync"
	"testing"
)

const key = "sk-test+0123/456789=abc"

func TestEveryFormOfASecretIsScrubbed(t *testing.T) {
	s := New(key)
	b64 := base64.StdEncoding.EncodeToString([]byte(key))
	q, _ := json.Marshal(key)
	for _, in := range []string{
		"plain " + key + " end",
		`{"a":` + string(q) + `}`,
		"https://x.test/?token=" + url.QueryEscape(key),
		"https://x.test/" + url.PathEscape(key) + "/y",
		"Authorization: Basic " + b64,
		"unpadded " + strings.TrimRight(b64, "="),
	} {
		got := s.String(in)
		if !strings.Contains(got, Redacted) {
			t.Errorf("%q: not scrubbed: %q", in, got)
		}
		if name, ok := s.Find(in); !ok || name != "a secret" {
			t.Errorf("Find(%q) = %q, %v", in, name, ok)
		}
		if string(s.Bytes([]byte(in))) != got {
			t.Errorf("Bytes and String differ on %q", in)
		}
	}
	if got := s.String("nothing here"); got != "nothing here" {
		t.Errorf("clean text changed: %q", got)
	}
}

func TestShortValuesAreIgnoredAndNamesReported(t *testing.T) {
	s := New("short", "")
	if !s.Empty() {
		t.Fatal("values under MinLen were taken")
	}
	s.AddNamed("OPENAI_API_KEY", key)
	s.Add(key) // known already: keeps its name
	if name, ok := s.Find("x " + key); !ok || name != "OPENAI_API_KEY" {
		t.Fatalf("Find = %q, %v", name, ok)
	}
	if got := s.String("a short word"); got != "a short word" {
		t.Fatalf("short value scrubbed: %q", got)
	}
}

func TestJSONStaysValid(t *testing.T) {
	s := New(`quote"d-secret-value`)
	raw := json.RawMessage(`{"to":"quote\"d-secret-value","n":1}`)
	out := s.JSON(raw)
	if !json.Valid(out) || strings.Contains(string(out), "d-secret-value") {
		t.Fatalf("JSON = %s", out)
	}
	if string(New().JSON(raw)) != string(raw) {
		t.Fatal("an empty scrubber changed JSON")
	}
}

func TestNilScrubberReplacesNothing(t *testing.T) {
	var s *Scrubber
	s.Add(key)
	if s.String(key) != key || string(s.Bytes([]byte(key))) != key || !s.Empty() {
		t.Fatal("nil scrubber changed text")
	}
	if _, ok := s.Find(key); ok {
		t.Fatal("nil scrubber found a secret")
	}
}

func TestAddWhileScrubbing(t *testing.T) {
	s := New()
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(2)
		go func() { defer wg.Done(); s.Add(strings.Repeat("k", 8+i)) }()
		go func() { defer wg.Done(); _ = s.String("kkkkkkkkkkkk") }()
	}
	wg.Wait()
	if got := s.String("kkkkkkkkkkk"); got != Redacted {
		t.Fatalf("longest form first: got %q", got)
	}
}
