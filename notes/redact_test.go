package notes

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/notes/record"
)

// TestSecretsNeverReachTheFile runs a session that sees an API key and a
// game token everywhere it could write them, then greps the raw file.
func TestSecretsNeverReachTheFile(t *testing.T) {
	t.Parallel()
	const apiKey = "sk-test-0123456789abcdefSECRET"
	const token = "eyJhbGciOiJSUzI1NiJ9.eyJpZGVudGlmaWVyIjoiQk9CIn0.c2lnbmF0dXJl"
	path := tempPath(t)
	b, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.Redact(apiKey, token, "short") // "short" is too short to be a secret: ignored
	s, err := b.Create("leaky", "spacetraders", "model-"+apiKey)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(map[string]any{
		"text": "my key is " + apiKey,
		"call": map[string]any{"tool": "register", "args": map[string]string{"token": token}},
	})
	r := mustAppend(t, s, Record{Type: record.TypeProposed, CallID: "c-" + token, Data: data})
	if !json.Valid(r.Data) || strings.Contains(string(r.Data), token) {
		t.Errorf("appended data %s still holds the token or is no longer JSON", r.Data)
	}
	s.SetNotes("token: "+token, 1)
	s.UpdateSection("Lessons", "never paste "+apiKey, 1)
	s.SetPlan([]PlanStep{{Text: "use " + token}}, 1)
	s.UpdateStep(1, StatusDone, "used "+apiKey, 1)
	s.SetRule("tool-"+apiKey, true)
	s.SaveState([]byte(`{"agent_token":"` + token + `"}`))
	if got := string(b.scrub([]byte("too short"))); got != "too short" {
		t.Errorf("a string shorter than %d bytes was redacted: %q", minSecret, got)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}

	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{apiKey, token} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("the notebook file contains secret %.12q...", secret)
		}
	}
	if !bytes.Contains(raw, []byte(redacted)) {
		t.Error("no redaction marker in the file; did the writes happen?")
	}
}
