package ui

import (
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

func TestWrapWordsKeepsSymbolsWhole(t *testing.T) {
	text := "COPLAY-1 flies from X1-YS98-A1 to X1-YS98-B12 and docks at X1-YS98-C3 before noon"
	for w := 12; w <= 40; w++ {
		lines := wrapWords(text, w)
		for _, l := range lines {
			if ansi.StringWidth(l) > w {
				t.Fatalf("width %d: line %q is too long", w, l)
			}
			for _, word := range strings.Fields(l) {
				if !strings.Contains(text, " "+word+" ") && !strings.HasPrefix(text, word+" ") && !strings.HasSuffix(text, " "+word) {
					t.Errorf("width %d: %q is not a whole word of the text (lines %q)", w, word, lines)
				}
			}
		}
		if got := strings.Join(lines, " "); got != text {
			t.Errorf("width %d: words lost or changed: %q", w, got)
		}
	}
}

func TestWrapWordsHardBreaksOnlyTooLongWords(t *testing.T) {
	lines := wrapWords("id ckdsoklyaknh2sos8x1cscigi ok", 10)
	for _, l := range lines {
		if ansi.StringWidth(l) > 10 {
			t.Errorf("line %q longer than 10", l)
		}
	}
	if joined := strings.ReplaceAll(strings.Join(lines, ""), " ", ""); joined != "idckdsoklyaknh2sos8x1cscigiok" {
		t.Errorf("characters lost: %q", lines)
	}
	if got := wrapWords("", 10); len(got) != 1 || got[0] != "" {
		t.Errorf("empty text gives %q", got)
	}
}

// Continuation lines hang under the text of the first and keep its style.
func TestWrapStyledHangsAndKeepsStyle(t *testing.T) {
	st := newStyles(true)
	lines := wrapStyled("navigate_ship to X1-YS98-A1 with every word of a long reason here", 24, st.bad, "✗ ")
	if len(lines) < 3 {
		t.Fatalf("%d lines", len(lines))
	}
	for i, l := range lines {
		plain := ansi.Strip(l)
		if i == 0 && !strings.HasPrefix(plain, "✗ ") {
			t.Errorf("first line %q lacks the glyph", plain)
		}
		if i > 0 && (!strings.HasPrefix(plain, "  ") || strings.HasPrefix(plain, "   ")) {
			t.Errorf("line %d %q does not hang under the text", i, plain)
		}
		if l == plain && st.bad.Render("x") != "x" {
			t.Errorf("line %d lost its style", i)
		}
	}
}

func TestSpacedJSONWrapsBetweenValues(t *testing.T) {
	got := spacedJSON(json.RawMessage(`{"a":"x, y:z","b":[1,2],"c":{"d":"\"q\""}}`))
	want := `{"a": "x, y:z", "b": [1, 2], "c": {"d": "\"q\""}}`
	if got != want {
		t.Errorf("spacedJSON = %s, want %s", got, want)
	}
	if got := spacedJSON(json.RawMessage(`not json`)); got != "not json" {
		t.Errorf("invalid JSON changed to %q", got)
	}
}

func TestFitJSONKeepsShortValuesOnOneLine(t *testing.T) {
	got := fitJSON(json.RawMessage(surveyArgs), 60, true)
	want := `{
  "shipSymbol": "COPLAY-1",
  "survey": {
    "signature": "X1-DF55-B7-3F1A2C",
    "symbol": "X1-DF55-B7",
    "deposits": [
      {"symbol": "IRON_ORE"},
      {"symbol": "IRON_ORE"},
      {"symbol": "COPPER_ORE"},
      {"symbol": "QUARTZ_SAND"},
      {"symbol": "SILICON_CRYSTALS"},
      {"symbol": "IRON_ORE"}
    ],
    "expiration": "2026-11-22T16:03:00Z",
    "size": "MODERATE"
  }
}`
	if got != want {
		t.Errorf("fitJSON =\n%s\nwant\n%s", got, want)
	}
	if got := fitJSON(json.RawMessage(`{"shipSymbol":"COPLAY-1"}`), 60, true); got != `{"shipSymbol": "COPLAY-1"}` {
		t.Errorf("short object = %s", got)
	}
	two := json.RawMessage(`{"shipSymbol":"COPLAY-1","waypointSymbol":"X1-YS98-B1"}`)
	if got := fitJSON(two, 80, false); got != `{"shipSymbol": "COPLAY-1", "waypointSymbol": "X1-YS98-B1"}` {
		t.Errorf("unspread = %s", got)
	}
	if got := fitJSON(two, 80, true); strings.Count(got, "\n") != 3 {
		t.Errorf("spread = %s", got)
	}
	for _, bad := range []string{`{"a":`, `{} {}`, `nope`} {
		if got := fitJSON(json.RawMessage(bad), 60, true); got != bad {
			t.Errorf("fitJSON(%q) = %q, want it unchanged", bad, got)
		}
	}
}

// A wrapped list item in the markdown hangs under its text, not under its bullet, and
// no line gets wider than the pane.
func TestMarkdownListsHang(t *testing.T) {
	md := "## Ships\n- COPLAY-1 (COMMAND) DOCKED at X1-YS98-A1 (PLANET) · CRUISE · fuel 400/400 · cargo 0/40\n- short\n\nA paragraph that is long enough to wrap over the line for sure, yes."
	lines := renderMarkdown(md, 40, true)
	var plain []string
	for _, l := range lines {
		plain = append(plain, strings.TrimRight(ansi.Strip(l), " "))
		if w := ansi.StringWidth(l); w > 40 {
			t.Errorf("line %q is %d wide", ansi.Strip(l), w)
		}
	}
	got := strings.Join(plain, "\n")
	if !strings.Contains(got, "• COPLAY-1") || !strings.Contains(got, "\n    X1-YS98-A1") {
		t.Errorf("list item does not hang under its text:\n%s", got)
	}
	for _, l := range plain {
		if strings.Contains(l, "wrap over") && strings.HasPrefix(l, "   ") {
			t.Errorf("a paragraph after the list was indented:\n%s", got)
		}
	}
}

// The log shows a note's line breaks as lines, not as "\n" (issue 41); an escaped
// backslash before an n stays as it is.
func TestReadableJSONBreaksLines(t *testing.T) {
	raw := json.RawMessage(`{"section":"Situation","text":"one\ntwo","path":"C:\\new"}`)
	want := "{\"section\": \"Situation\", \"text\": \"one\ntwo\", \"path\": \"C:\\\\new\"}"
	if got := readableJSON(raw); got != want {
		t.Errorf("readableJSON = %q, want %q", got, want)
	}
	if got := spacedJSON(raw); strings.Contains(got, "\n") {
		t.Errorf("spacedJSON broke a line: %q", got)
	}
	m := newTestModel(newFake())
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	m.Update(eventMsg(agent.Event{Type: agent.EventProposed, Call: &agent.Call{ID: "n1", Tool: "update_notes", Kind: game.Note,
		Args: json.RawMessage(`{"section":"Situation","text":"- COPLAY-1 at A1\n- COPLAY-2 at A3"}`)}}))
	got := plain(m.cur().log.render(100, 10))
	if strings.Contains(got, `\n`) || !strings.Contains(got, "\n  - COPLAY-2 at A3") {
		t.Errorf("the log shows the note as:\n%s", got)
	}
}
