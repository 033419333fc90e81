package notes

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// The model's reasoning is journaled, but the export's text keeps it out: the step
// notes only how much there was.
func TestExportKeepsThinkingOut(t *testing.T) {
	t.Parallel()
	b := openBook(t, tempPath(t))
	fakeClock(b)
	s, err := b.Create("thinker", "universe", "qwen3")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []Record{
		{Type: "step", Step: 1},
		{Type: "thinking", Step: 1, Data: json.RawMessage(`{"seq":2,"type":"thinking","step":1,"text":"SECRET-PLAN the market at B7 pays more"}`)},
		{Type: "text", Step: 1, Data: json.RawMessage(`{"text":"Selling the ore."}`)},
	} {
		mustAppend(t, s, r)
	}
	var buf bytes.Buffer
	if err := s.Export(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "SECRET-PLAN") {
		t.Errorf("the export carries the model's reasoning:\n%s", out)
	}
	if !strings.Contains(out, "> Selling the ore.") || !strings.Contains(out, "reasoning, 38 characters, not shown") {
		t.Errorf("the export lost the text or the note of the reasoning:\n%s", out)
	}
}
