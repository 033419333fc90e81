package notes

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// Export writes a readable markdown transcript of the session: a header
// with the totals, the current notes, the plan, then every step: what the
// model said, what the observation changed, every call with its arguments,
// decision and result, errors and advice, and the bookkeeping in a line (see
// transcript.go). It stops at the first damaged record with an error naming
// it: a transcript is never silently incomplete.
func (s *Session) Export(w io.Writer) error {
	info, err := s.Info()
	if err != nil {
		return err
	}
	notes, err := s.Notes()
	if err != nil {
		return err
	}
	plan, err := s.Plan()
	if err != nil {
		return err
	}
	rules, err := s.RuleLines()
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	writeHeader(bw, info)
	if len(rules) > 0 {
		fmt.Fprintf(bw, "| Approval rules | %s |\n", cell(strings.Join(rules, "; ")))
	}

	fmt.Fprintf(bw, "\n## Notes\n\n")
	if notes.Version == 0 {
		fmt.Fprintf(bw, "_No notes were written; this is the starting skeleton._\n\n")
	} else {
		fmt.Fprintf(bw, "_Version %d, written at step %d._\n\n", notes.Version, notes.Step)
	}
	// The notes' own headings go two levels down so they nest under "Notes".
	bw.WriteString(demote(strings.TrimSpace(notes.Text), 2))
	bw.WriteString("\n")

	fmt.Fprintf(bw, "\n## Plan\n\n")
	if len(plan) == 0 {
		fmt.Fprintf(bw, "_No plan._\n")
	}
	for _, st := range plan {
		box := " "
		switch st.Status {
		case StatusDone:
			box = "x"
		case StatusDropped:
			box = "-"
		}
		fmt.Fprintf(bw, "%d. [%s] %s _(%s)_\n", st.ID, box, oneLine(st.Text), st.Status)
	}

	fmt.Fprintf(bw, "\n## Journal\n")
	tr := newTranscript(bw)
	err = s.Records(1, func(r Record) error {
		tr.add(r)
		return nil
	})
	tr.flush()
	if err != nil {
		return err
	}
	if info.Records == 0 {
		fmt.Fprintf(bw, "\n_The journal is empty._\n")
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("notes: export %q: %w", s.name, err)
	}
	return nil
}

func writeHeader(w *bufio.Writer, info SessionInfo) {
	fmt.Fprintf(w, "# Session %s\n\n", info.Name)
	fmt.Fprintf(w, "| | |\n|---|---|\n")
	fmt.Fprintf(w, "| Game | %s |\n", cell(info.Game))
	fmt.Fprintf(w, "| Model | %s |\n", cell(info.Model))
	if info.League != "" {
		fmt.Fprintf(w, "| League | %s, seat %s |\n", cell(info.League), cell(info.Seat))
	}
	fmt.Fprintf(w, "| Created | %s |\n", info.Created.Format(time.RFC3339))
	fmt.Fprintf(w, "| Last active | %s |\n", info.LastActive.Format(time.RFC3339))
	fmt.Fprintf(w, "| Steps | %d |\n", info.Steps)
	fmt.Fprintf(w, "| Calls | %d |\n", info.Calls)
	fmt.Fprintf(w, "| Tokens | %s |\n", tokensCell(info))
	fmt.Fprintf(w, "| Cost | $%.4f |\n", info.Cost)
	fmt.Fprintf(w, "| Journal records | %d |\n", info.Records)
}

// tokensCell is the header's token counts: "1234 prompt (1024 cached, 83%), 56
// completion", the cached part left out when the provider cached nothing.
func tokensCell(info SessionInfo) string {
	prompt := fmt.Sprintf("%d prompt", info.PromptTokens)
	if info.CachedTokens > 0 && info.PromptTokens > 0 {
		prompt += fmt.Sprintf(" (%d cached, %.0f%%)", info.CachedTokens, 100*float64(info.CachedTokens)/float64(info.PromptTokens))
	}
	return fmt.Sprintf("%s, %d completion", prompt, info.CompletionTokens)
}

func cell(s string) string {
	if s == "" {
		return "—"
	}
	return strings.ReplaceAll(oneLine(s), "|", `\|`)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// demote pushes every ATX heading outside code fences down by n levels.
func demote(doc string, n int) string {
	lines := strings.Split(doc, "\n")
	inFence := false
	for i, line := range lines {
		if fence(line) {
			inFence = !inFence
			continue
		}
		if level, _ := heading(line); !inFence && level > 0 {
			t := strings.TrimLeft(line, " ")
			lines[i] = strings.Repeat("#", min(level+n, 6)) + t[level:]
		}
	}
	return strings.Join(lines, "\n")
}

// writeRecord renders one journal record as a list item with its known
// fields spelled out and anything else as compact JSON.
func writeRecord(w *bufio.Writer, r Record) {
	fmt.Fprintf(w, "- **%s** #%d, %s", r.Type, r.Seq, r.Time.Format("2006-01-02 15:04:05"))
	if r.CallID != "" {
		fmt.Fprintf(w, ", call `%s`", r.CallID)
	}
	w.WriteString("\n")
	if len(r.Data) == 0 {
		return
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(r.Data, &fields); err != nil {
		// Not an object: show it as it is.
		writeBlock(w, compact(r.Data))
		return
	}
	// The agent's event JSON repeats the record's header; say it once.
	for _, k := range []string{"seq", "time", "type", "step", "call_id"} {
		delete(fields, k)
	}
	renderFields(w, fields)
}

// renderer writes one known field of a record's data.
type renderer struct {
	key    string
	render func(*bufio.Writer, json.RawMessage)
}

// renderers lists the fields the export spells out, in the order shown.
// It is filled in init because renderResult refers back to renderFields.
var renderers []renderer

func init() {
	renderers = []renderer{
		{"text", renderText("")},
		{"advice", renderText("Advice: ")},
		{"decision", renderLabel("Decision")},
		{"by", renderLine("By")},
		{"reason", renderLine("Reason")},
		{"call", renderCall},
		{"tool", renderLabel("Tool")},
		{"args", renderJSON("Arguments")},
		{"result", renderResult},
		{"output", renderJSON("Output")},
		{"error", renderError},
		{"unknown", renderUnknown},
		{"wait", renderWait},
		{"notes", renderNotes},
		{"observation", renderObservation},
		{"usage", renderLine("Usage")},
		{"state", renderLabel("State")},
		{"rules", renderLine("Approval rules")},
	}
}

// renderFields writes the known fields readably and the rest as compact JSON.
func renderFields(w *bufio.Writer, fields map[string]json.RawMessage) {
	for _, k := range renderers {
		if v, ok := fields[k.key]; ok {
			k.render(w, v)
			delete(fields, k.key)
		}
	}
	if len(fields) > 0 {
		rest, _ := json.Marshal(fields) // map keys come out sorted
		if bytes.ContainsRune(rest, '`') {
			w.WriteString("  - Other:\n")
			writeBlock(w, rest)
		} else {
			fmt.Fprintf(w, "  - Other: `%s`\n", rest)
		}
	}
}

func renderResult(w *bufio.Writer, v json.RawMessage) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(v, &fields) != nil {
		renderJSON("Result")(w, v)
		return
	}
	renderFields(w, fields)
}

func renderUnknown(w *bufio.Writer, v json.RawMessage) {
	var b bool
	if json.Unmarshal(v, &b) == nil && b {
		w.WriteString("  - Outcome unknown: the call may or may not have happened; re-observe\n")
	}
}

func renderWait(w *bufio.Writer, v json.RawMessage) {
	var wait struct {
		Until  time.Time `json:"until"`
		Reason string    `json:"reason"`
	}
	if json.Unmarshal(v, &wait) != nil {
		renderLine("Wait")(w, v)
		return
	}
	if wait.Until.IsZero() { // the end of a wait
		w.WriteString(strings.TrimSuffix("  - The wait ended: "+oneLine(wait.Reason), ": ") + "\n")
		return
	}
	fmt.Fprintf(w, "  - Wait until %s", wait.Until.Format("2006-01-02 15:04:05"))
	if r := oneLine(wait.Reason); r != "" {
		fmt.Fprintf(w, ": %s", r)
	}
	w.WriteString("\n")
}

func renderNotes(w *bufio.Writer, v json.RawMessage) {
	var n struct {
		Text    string     `json:"text"`
		Version int        `json:"version"`
		Plan    []PlanStep `json:"plan"`
	}
	if json.Unmarshal(v, &n) != nil {
		renderJSON("Notes")(w, v)
		return
	}
	fmt.Fprintf(w, "  - Notes, version %d:\n", n.Version)
	if t := strings.TrimSpace(n.Text); t != "" {
		writeBlock(w, []byte(t))
	}
	for _, st := range n.Plan {
		fmt.Fprintf(w, "    %d. %s _(%s)_\n", st.ID, oneLine(st.Text), st.Status)
	}
}

func renderObservation(w *bufio.Writer, v json.RawMessage) {
	var fields map[string]json.RawMessage
	var summary string
	if json.Unmarshal(v, &fields) != nil || json.Unmarshal(fields["summary"], &summary) != nil {
		renderJSON("Observation")(w, v)
		return
	}
	w.WriteString("  - Observation:\n")
	writeBlock(w, []byte(summary))
	delete(fields, "summary")
	if len(fields) > 0 {
		rest, _ := json.Marshal(fields)
		fmt.Fprintf(w, "  - Observation data: `%s`\n", rest)
	}
}

// textOf is a JSON string's text, or any other value on one line.
func textOf(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) != nil {
		s = string(compact(v))
	}
	return s
}

func renderText(prefix string) func(*bufio.Writer, json.RawMessage) {
	return func(w *bufio.Writer, v json.RawMessage) {
		s := textOf(v)
		if strings.TrimSpace(s) == "" {
			return
		}
		// Indented so that it stays inside the list item.
		lines := strings.Split(strings.TrimRight(prefix+s, "\n"), "\n")
		for _, l := range lines {
			fmt.Fprintf(w, "  > %s\n", l)
		}
	}
}

func renderLabel(label string) func(*bufio.Writer, json.RawMessage) {
	return func(w *bufio.Writer, v json.RawMessage) {
		fmt.Fprintf(w, "  - %s: **%s**\n", label, oneLine(textOf(v)))
	}
}

func renderLine(label string) func(*bufio.Writer, json.RawMessage) {
	return func(w *bufio.Writer, v json.RawMessage) {
		if s := oneLine(textOf(v)); s != "" {
			fmt.Fprintf(w, "  - %s: %s\n", label, s)
		}
	}
}

func renderJSON(label string) func(*bufio.Writer, json.RawMessage) {
	return func(w *bufio.Writer, v json.RawMessage) {
		var s string
		if json.Unmarshal(v, &s) == nil {
			// A string output is text, often multi-line: keep it verbatim.
			fmt.Fprintf(w, "  - %s:\n", label)
			writeBlock(w, []byte(s))
			return
		}
		fmt.Fprintf(w, "  - %s:\n", label)
		writeBlock(w, indent(v))
	}
}

func renderCall(w *bufio.Writer, v json.RawMessage) {
	var c struct {
		ID   string          `json:"id"`
		Tool string          `json:"tool"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
		// Set by the agent on calls that failed validation or were dry-run.
		Problems []struct {
			Path, Expected, Got, Hint string
		} `json:"problems"`
		Simulation *struct {
			Summary string `json:"summary"`
			Fails   bool   `json:"fails"`
		} `json:"simulation"`
	}
	if json.Unmarshal(v, &c) != nil {
		renderJSON("Call")(w, v)
		return
	}
	tool := c.Tool
	if tool == "" {
		tool = c.Name
	}
	fmt.Fprintf(w, "  - Call: **%s**", tool)
	if c.ID != "" {
		fmt.Fprintf(w, " (id `%s`)", c.ID)
	}
	w.WriteString("\n")
	if len(c.Args) > 0 {
		renderJSON("Arguments")(w, c.Args)
	}
	for _, p := range c.Problems {
		fmt.Fprintf(w, "  - Invalid `%s`: expected %s, got %s", p.Path, oneLine(p.Expected), oneLine(p.Got))
		if p.Hint != "" {
			fmt.Fprintf(w, " (%s)", oneLine(p.Hint))
		}
		w.WriteString("\n")
	}
	if c.Simulation != nil && c.Simulation.Summary != "" {
		verdict := ""
		if c.Simulation.Fails {
			verdict = " (would fail)"
		}
		fmt.Fprintf(w, "  - Dry run: %s%s\n", oneLine(c.Simulation.Summary), verdict)
	}
}

// errorJSON is a game error as journaled: its code (a number or a string) and message.
type errorJSON struct {
	Code    json.RawMessage `json:"code"`
	Message string          `json:"message"`
}

func renderError(w *bufio.Writer, v json.RawMessage) {
	var e errorJSON
	var s string
	switch {
	case json.Unmarshal(v, &s) == nil:
		fmt.Fprintf(w, "  - Error: %s\n", oneLine(s))
	case json.Unmarshal(v, &e) == nil && (e.Message != "" || len(e.Code) > 0):
		code := strings.Trim(string(e.Code), `"`)
		if code != "" {
			fmt.Fprintf(w, "  - Error %s: %s\n", code, oneLine(e.Message))
		} else {
			fmt.Fprintf(w, "  - Error: %s\n", oneLine(e.Message))
		}
	default:
		fmt.Fprintf(w, "  - Error: `%s`\n", compact(v))
	}
}

// writeBlock writes p as a fenced block inside a list item, with a fence
// longer than any backtick run in p so that p cannot close it.
func writeBlock(w *bufio.Writer, p []byte) {
	ticks := 3
	for run, i := 0, 0; i < len(p); i++ {
		if p[i] == '`' {
			run++
			ticks = max(ticks, run+1)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", ticks)
	fmt.Fprintf(w, "\n    %s\n", f)
	for _, l := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		if l == "" {
			w.WriteString("\n") // no trailing spaces on blank lines
			continue
		}
		fmt.Fprintf(w, "    %s\n", l)
	}
	fmt.Fprintf(w, "    %s\n\n", f)
}

func compact(v json.RawMessage) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, v) != nil {
		return v
	}
	return buf.Bytes()
}

func indent(v json.RawMessage) []byte {
	var buf bytes.Buffer
	if json.Indent(&buf, v, "", "  ") != nil {
		return v
	}
	return buf.Bytes()
}

// sortedKeys is used where map order would make output unstable.
func sortedKeys[M ~map[string]V, V any](m M) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
