package notes

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/coplayhq/coplay/notes/record"
)

// The journal part of an export is a transcript proportionate to what happened: per
// step, what the model said, what changed in the world, each call on one line with its
// decision and result, then anything unusual (errors, advice, waits), and the
// bookkeeping (steps, usage, state, starts, notes versions) summarised in one line. Every
// record is accounted for: the step heading gives the range of records it holds, and a
// call names its id.

// stepView collects one step's records for rendering.
type stepView struct {
	step       int
	first, end uint64 // seq range
	texts      []string
	obs        []string // observation lines, already rendered
	// The world at the step's first observation: the step shows what changed from it
	// to the last one, once, however many observations the step has (one after each
	// call).
	obsSeen       bool
	obsStart      string
	obsStartKnown bool
	metricsStart  map[string]float64
	calls         []*callView
	byID          map[string]*callView
	other         []Record // rendered one by one, in journal order
	triggers      []string // what woke the agent, a line each
	waits         []string // the runner's waits and their ends, a line each
	asked         []string // the person's questions and the agent's answers, a line each
	book          bookkeeping
}

// callView is one call: its proposal, decision, start and end, as far as the step has
// them.
type callView struct {
	id       string
	proposal *record.Call
	decision *record.Decision
	started  bool
	result   map[string]json.RawMessage // the result's fields
	unknown  bool
	earlier  bool   // not proposed in this step
	person   bool   // the person's own move: nobody proposed it, nobody decided it
	via      string // where the person played it
}

// bookkeeping counts the records the transcript summarises.
type bookkeeping struct {
	usage          []string
	states         []string
	notes          []string
	unchangedObs   int
	steps, started int
	policy         int // calls decided by policy (read and note tools, --approve all)
	noteCalls      int // note tool calls that did what they were asked
	thinking       int // characters of the model's reasoning, kept out of the text
}

// transcript renders the journal, step by step.
type transcript struct {
	w       *bufio.Writer
	cur     *stepView
	summary string // the last observation summary seen, to show only what changed
	known   bool
	// sections holds the last text written to each section of the notes, so that a
	// rewrite shows the lines it changed.
	sections map[string]string
	// said holds the previous step's result outputs: an observation line that only
	// repeats one of them is not shown again.
	said    []string
	metrics map[string]float64 // the last value shown of each metric
}

func newTranscript(w *bufio.Writer) *transcript {
	return &transcript{w: w, sections: map[string]string{}, metrics: map[string]float64{}}
}

// add takes the next record. One whose data does not have the format's shape is
// written as it is (writeRecord), in the step's journal order: nothing is left out.
func (t *transcript) add(r Record) {
	if t.cur == nil || r.Step != t.cur.step {
		t.flush()
		t.cur = &stepView{step: r.Step, first: r.Seq, byID: map[string]*callView{}}
	}
	st := t.cur
	st.end = r.Seq
	d, err := r.Decode()
	if err != nil {
		st.other = append(st.other, r)
		return
	}
	switch r.Type {
	case record.TypeStep:
		st.book.steps++
	case record.TypeUsage:
		if u := usageLine(d.Usage); u != "" {
			st.book.usage = append(st.book.usage, u)
		}
	case record.TypeState:
		if d.State != "" {
			st.book.states = append(st.book.states, d.State)
		}
	case record.TypeText:
		if strings.TrimSpace(d.Text) != "" {
			st.texts = append(st.texts, d.Text)
		}
	case record.TypeThinking:
		// The model's reasoning is not what it said: only its size is noted.
		st.book.thinking += len([]rune(d.Text))
	case record.TypeObservation:
		if !st.obsSeen {
			st.obsSeen, st.obsStart, st.obsStartKnown = true, t.summary, t.known
			st.metricsStart = maps.Clone(t.metrics)
		}
		// Rendered once for the whole step (stepObservation); this keeps the state.
		t.observation(d.Observation)
	case record.TypeNotes:
		st.book.notes = append(st.book.notes, notesLine(d.Notes))
	case record.TypeTrigger:
		if line := triggerLine(d.Trigger); line != "" {
			st.triggers = append(st.triggers, line)
		} else {
			st.other = append(st.other, r)
		}
	case record.TypeWaiting:
		st.waits = append(st.waits, waitLine(d.Text, d.Wait))
	case record.TypeQuestion:
		st.asked = append(st.asked, "? **The person asked**: "+oneLine(d.Text))
	case record.TypeReply:
		st.asked = append(st.asked, "**The agent answered**: "+oneLine(d.Text))
	case record.TypeToolUpdated:
		if c := st.byID[r.CallID]; c != nil && r.CallID != "" {
			c.updated(d.Call)
			return
		}
		st.other = append(st.other, r)
	case record.TypeProposed, record.TypeDecision, record.TypeToolStart, record.TypeResult, record.TypeOutcomeUnknown:
		if r.CallID == "" {
			st.other = append(st.other, r)
			return
		}
		c := st.byID[r.CallID]
		if c == nil {
			c = &callView{id: r.CallID, earlier: r.Type != record.TypeProposed}
			st.byID[r.CallID] = c
			st.calls = append(st.calls, c)
		}
		switch r.Type {
		case record.TypeProposed:
			c.proposal = d.Call
		case record.TypeDecision:
			c.decision = d.Decision
		case record.TypeToolStart:
			c.started = true
			st.book.started++
			if c.proposal == nil && d.Call != nil {
				// The person's own move carries its call on its start.
				c.proposal = d.Call
				c.person, c.earlier, c.via = d.Call.By == record.ByPerson, false, d.Via
			}
		case record.TypeResult:
			if c.proposal == nil {
				// Format 1 repeated the call in its result.
				c.proposal = d.Call
			}
			c.result = resultFields(r, d)
		case record.TypeOutcomeUnknown:
			c.unknown = true
		}
	default:
		st.other = append(st.other, r)
	}
}

// resultFields are a result record's result, field by field: its result object, or
// (written before format 1) the fields of its data the format does not know.
func resultFields(r Record, d record.Data) map[string]json.RawMessage {
	var fields map[string]json.RawMessage
	if d.Result == nil {
		fields, _ = record.Unknown(r.Data) // the data decoded: it is an object
		return fields
	}
	if json.Unmarshal(d.Result, &fields) != nil {
		return nil
	}
	delete(fields, "call")
	return fields
}

// flush writes the step collected so far.
func (t *transcript) flush() {
	st := t.cur
	if st == nil {
		return
	}
	t.cur = nil
	w := t.w
	records := fmt.Sprintf("#%d", st.first)
	if st.end != st.first {
		records = fmt.Sprintf("#%d–#%d", st.first, st.end)
	}
	if st.step == 0 {
		fmt.Fprintf(w, "\n### Before the first step · %s\n\n", records)
	} else {
		fmt.Fprintf(w, "\n### Step %d · %s\n\n", st.step, records)
	}
	for _, text := range st.texts {
		for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
			fmt.Fprintf(w, "> %s\n", l)
		}
		w.WriteString("\n")
	}
	// A line of the world that only repeats what a result of this step or the last one
	// says is not shown again.
	var said []string
	for _, c := range st.calls {
		if out, ok := c.result["output"]; ok {
			said = append(said, jsonString(out))
		}
	}
	t.said = append(t.said, said...)
	st.obs = t.stepObservation(st)
	t.said = said
	if len(st.obs) > 0 {
		w.WriteString("- Observation:")
		for _, l := range st.obs {
			w.WriteString(l)
		}
		w.WriteString("\n")
	}
	for _, c := range st.calls {
		writeCall(w, c, &st.book, t.sections)
	}
	for _, tr := range st.triggers {
		fmt.Fprintf(w, "- ↯ %s\n", tr)
	}
	for _, l := range st.asked {
		fmt.Fprintf(w, "- %s\n", l)
	}
	for _, l := range st.waits {
		fmt.Fprintf(w, "- ~ %s\n", l)
	}
	for _, r := range st.other {
		writeRecord(w, r)
	}
	writeBookkeeping(w, st.book)
}

// updated takes a waiting call's new dry run (tool_updated: the world changed under it,
// or the person's edit was checked) until it starts: the export shows the prediction the
// call ran on, not the first one, which the calls before it may have made stale ("must
// be in orbit first" beside a call that ran after the orbit).
func (c *callView) updated(call *record.Call) {
	if c.started || c.proposal == nil || call == nil {
		return
	}
	p := *c.proposal
	p.Simulation, p.Problems = call.Simulation, call.Problems
	c.proposal = &p
}

// waitLine is a wait of the runner's on one line: its own words, else when and why; the
// end of a wait has no time ("the wait ended: the time came").
func waitLine(text string, v json.RawMessage) string {
	if s := oneLine(text); s != "" {
		return s
	}
	var wait struct {
		Until  time.Time `json:"until"`
		Reason string    `json:"reason"`
	}
	_ = json.Unmarshal(v, &wait) // a wait it cannot read is a wait that ended, for no reason given
	if wait.Until.IsZero() {
		return strings.TrimSuffix("the wait ended: "+oneLine(wait.Reason), ": ")
	}
	return strings.TrimSuffix(fmt.Sprintf("waiting until %s: %s", wait.Until.Format("2006-01-02 15:04:05"), oneLine(wait.Reason)), ": ")
}

// triggerLine is a trigger on one line: "ship.arrived COPLAY-2 — COPLAY-2 arrived at
// X1-A1" ("" when it has no type).
func triggerLine(v json.RawMessage) string {
	var tr struct {
		Type    string `json:"type"`
		Subject string `json:"subject"`
		Text    string `json:"text"`
	}
	if json.Unmarshal(v, &tr) != nil || tr.Type == "" {
		return ""
	}
	line := tr.Type
	if tr.Subject != "" {
		line += " " + tr.Subject
	}
	if tr.Text != "" {
		line += " — " + oneLine(tr.Text)
	}
	return line
}

// stepObservation returns the lines that show what the step's observations changed,
// taken together: the numbers that moved and the summary lines that are new at its end.
func (t *transcript) stepObservation(st *stepView) []string {
	if !st.obsSeen {
		return nil
	}
	var head []string
	for _, name := range slices.Sorted(maps.Keys(t.metrics)) {
		if v, ok := st.metricsStart[name]; !ok || v != t.metrics[name] {
			head = append(head, fmt.Sprintf("%s %s", name, trimFloat(t.metrics[name])))
		}
	}
	var lines []string
	if len(head) > 0 {
		lines = append(lines, " "+strings.Join(head, " · "))
	}
	var added []string
	if st.obsStartKnown && t.known {
		added = notCounters(st.obsStart, newLines(st.obsStart, t.summary))
	} else if t.known {
		added = strings.Split(strings.TrimRight(t.summary, "\n"), "\n")
	}
	if l := t.quoteAdded(added); l != "" {
		lines = append(lines, l)
	}
	return lines
}

// observation takes an observation's changes: the metrics' last values and the summary
// (unknown from an observation written against one the transcript could not rebuild,
// until the next whole one). stepObservation renders what a step's observations changed.
func (t *transcript) observation(o *record.Observation) {
	if o == nil {
		return
	}
	var metrics []struct {
		Name  string  `json:"name"`
		Value float64 `json:"value"`
	}
	if len(o.Metrics) > 0 && json.Unmarshal(o.Metrics, &metrics) == nil {
		for _, m := range metrics {
			t.metrics[m.Name] = m.Value
		}
	}
	s, err := o.SummaryAfter(t.summary, t.known)
	if err != nil {
		t.known = false
		return
	}
	t.summary, t.known = s, true
}

// quoteAdded renders new summary lines as a quote inside the list item, leaving out the
// long lines that only repeat what a result of the previous step already said.
func (t *transcript) quoteAdded(added []string) string {
	added = slices.DeleteFunc(added, func(l string) bool {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "- "))
		if len(l) < 20 {
			return false
		}
		for _, s := range t.said {
			if strings.Contains(s, l) {
				return true
			}
		}
		return false
	})
	if len(added) == 0 {
		return ""
	}
	// Quoted lines inside the list item: the summary's own markdown stays as it is.
	var b strings.Builder
	for _, l := range added {
		fmt.Fprintf(&b, "\n  > %s", l)
	}
	return b.String()
}

// notCounters drops from added the lines that differ from a line of old only in their
// numbers (a clock, credits): the metrics and the results carry those.
func notCounters(old string, added []string) []string {
	shapes := map[string]bool{}
	for _, l := range strings.Split(old, "\n") {
		shapes[withoutDigits(l)] = true
	}
	var out []string
	for _, l := range added {
		if !shapes[withoutDigits(l)] {
			out = append(out, l)
		}
	}
	return out
}

func withoutDigits(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' || r == ',' || r == '.' {
			return -1
		}
		return r
	}, s)
}

// newLines returns the lines of b that a does not have.
func newLines(a, b string) []string {
	have := map[string]int{}
	for _, l := range strings.Split(a, "\n") {
		have[l]++
	}
	var out []string
	for _, l := range strings.Split(b, "\n") {
		if have[l] > 0 {
			have[l]--
			continue
		}
		out = append(out, l)
	}
	return out
}

// writeCall writes a call on one line (its arguments and result in blocks when long or
// multi-line): tool, arguments, problems, dry run, decision, result.
func writeCall(w *bufio.Writer, c *callView, book *bookkeeping, sections map[string]string) {
	prop := c.proposal
	if prop == nil {
		prop = &record.Call{} // its proposal is before the journal's start, or unreadable
	}
	tool := prop.Tool
	if tool == "" {
		tool = "call"
	}
	// What the policy decided (read and note tools, --approve all) and note tools that
	// did what they were asked are bookkeeping: counted, not spelled out per call.
	var decision, by string
	if d := c.decision; d != nil {
		decision, by = d.Decision, d.By
	}
	routine := c.decision != nil && by == "policy" && (decision == "auto" || decision == "approve") &&
		c.decision.Reason == "" && len(c.decision.Args) == 0
	if routine {
		book.policy++
	}
	var problems []struct{ Path, Expected, Got, Hint string }
	_ = json.Unmarshal(prop.Problems, &problems) // the game's own JSON; none when unreadable
	_, failed := c.result["error"]
	if routine && !failed && !c.unknown && len(problems) == 0 && c.result != nil && prop.Kind == "note" {
		book.noteCalls++
		writeNoteCall(w, tool, prop.Args, sections)
		return
	}
	fmt.Fprintf(w, "- **%s**", tool)
	if c.earlier || c.unknown {
		fmt.Fprintf(w, " (call `%s`)", c.id)
	}
	if len(prop.Args) > 0 {
		writeArgs(w, prop.Args)
	}
	for _, p := range problems {
		fmt.Fprintf(w, "; invalid `%s`: expected %s, got %s", p.Path, oneLine(p.Expected), oneLine(p.Got))
		if p.Hint != "" {
			fmt.Fprintf(w, " (%s)", oneLine(p.Hint))
		}
	}
	var sim struct {
		Summary string `json:"summary"`
		Fails   bool   `json:"fails"`
		Warn    string `json:"warn"`
	}
	if json.Unmarshal(prop.Simulation, &sim) == nil && sim.Summary != "" {
		when := ""
		if strings.Contains(sim.Warn, "earlier call") {
			// Made before the calls ahead of it ran, which may have changed it (an orbit
			// before a flight): not what the call ran on.
			when = " before the calls ahead of it ran"
		}
		fmt.Fprintf(w, "; dry run%s: %s", when, oneLine(sim.Summary))
		if sim.Fails && !strings.HasPrefix(sim.Summary, "would fail") {
			w.WriteString(" (would fail)")
		}
	}
	if c.person {
		w.WriteString(" — **played by the person**")
		if c.via != "" {
			fmt.Fprintf(w, " (via %s)", c.via)
		}
	}
	if d := c.decision; d != nil && !routine {
		fmt.Fprintf(w, " — **%s**", decision)
		if by != "" {
			fmt.Fprintf(w, " by %s", by)
		}
		if d.Via != "" {
			fmt.Fprintf(w, " (via %s)", d.Via) // where the person decided: screen, attach, ssh:KEY
		}
		if d.Reason != "" {
			fmt.Fprintf(w, ": %s", oneLine(d.Reason))
		}
		if len(d.Args) > 0 {
			inline(w, "; ran with ", d.Args)
		}
	}
	switch r := c.result; {
	case c.unknown:
		w.WriteString(" → **outcome unknown**: the call may or may not have happened; re-observe")
	case r != nil:
		w.WriteString(" →")
		writeResult(w, r)
	case c.started:
		w.WriteString(" → started, no result recorded")
	}
	w.WriteString("\n")
}

// writeNoteCall writes a note tool call that did what it was asked, in the words of
// the notebook: "✎ Situation: "…"", "✎ plan step 4: done", "✎ plan: [...]".
func writeNoteCall(w *bufio.Writer, tool string, args json.RawMessage, sections map[string]string) {
	var a struct {
		Section *string         `json:"section"`
		Text    *string         `json:"text"`
		ID      *int            `json:"id"`
		Status  string          `json:"status"`
		Steps   json.RawMessage `json:"steps"`
	}
	_ = json.Unmarshal(args, &a)
	switch {
	case tool == "update_notes" && a.Text != nil:
		what := "notes"
		if a.Section != nil && *a.Section != "" {
			what = *a.Section
		}
		key := strings.ToLower(what)
		old, seen := sections[key]
		sections[key] = *a.Text
		if seen && strings.Count(*a.Text, "\n") >= 2 {
			// A rewrite of a section seen before: the lines it changed (the notes
			// history has every version whole).
			changed := newLines(old, *a.Text)
			if len(changed) == 0 {
				fmt.Fprintf(w, "- ✎ %s: rewritten unchanged\n", oneLine(what))
				return
			}
			q, _ := json.Marshal(strings.Join(changed, "\n"))
			inline(w, fmt.Sprintf("- ✎ %s, %d of %d lines changed: ", oneLine(what), len(changed), strings.Count(*a.Text, "\n")+1), q)
			w.WriteString("\n")
			return
		}
		q, _ := json.Marshal(*a.Text)
		inline(w, "- ✎ "+oneLine(what)+": ", q)
	case tool == "update_step" && a.ID != nil:
		fmt.Fprintf(w, "- ✎ plan step %d: %s", *a.ID, oneLine(a.Status))
		if a.Text != nil && *a.Text != "" {
			q, _ := json.Marshal(*a.Text)
			inline(w, ", ", q)
		}
	case tool == "set_plan" && len(a.Steps) > 0:
		inline(w, "- ✎ plan: ", a.Steps)
	default:
		fmt.Fprintf(w, "- ✎ %s", tool)
		inline(w, " ", args)
	}
	w.WriteString("\n")
}

// plainWord is a string argument written bare in key=value form.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]*$`)

// writeArgs writes a call's arguments: an object whose values are all plain words (ship
// and waypoint symbols) as `key=value …`, anything else as compact JSON.
func writeArgs(w *bufio.Writer, args json.RawMessage) {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) == nil && len(m) > 0 && len(m) <= 4 {
		keys := make([]string, 0, len(m))
		plain := true
		for k, v := range m {
			var s string
			if json.Unmarshal(v, &s) != nil || !plainWord.MatchString(s) || !plainWord.MatchString(k) {
				plain = false
				break
			}
			keys = append(keys, k)
		}
		if plain {
			// In the order the call gave them.
			slices.SortFunc(keys, func(a, b string) int {
				return bytes.Index(args, []byte(`"`+a+`"`)) - bytes.Index(args, []byte(`"`+b+`"`))
			})
			parts := make([]string, len(keys))
			for i, k := range keys {
				parts[i] = k + "=" + jsonString(m[k])
			}
			fmt.Fprintf(w, " `%s`", strings.Join(parts, " "))
			return
		}
	}
	inline(w, " ", args)
}

// writeResult writes a result's fields after "→".
func writeResult(w *bufio.Writer, r map[string]json.RawMessage) {
	wrote := false
	if e, ok := r["error"]; ok {
		var ge errorJSON
		var s string
		switch {
		case json.Unmarshal(e, &s) == nil:
			fmt.Fprintf(w, " error: %s", oneLine(s))
		case json.Unmarshal(e, &ge) == nil:
			code := strings.Trim(string(ge.Code), `"`)
			if code != "" && code != "0" {
				fmt.Fprintf(w, " error %s: %s", code, oneLine(ge.Message))
			} else {
				fmt.Fprintf(w, " error: %s", oneLine(ge.Message))
			}
		default:
			fmt.Fprintf(w, " error `%s`", compact(e))
		}
		wrote = true
	}
	if out, ok := r["output"]; ok {
		if wrote {
			w.WriteString(";")
		}
		inline(w, " ", out)
		wrote = true
	}
	if v, ok := r["wait"]; ok {
		var wait struct {
			Until  time.Time `json:"until"`
			Reason string    `json:"reason"`
		}
		if json.Unmarshal(v, &wait) == nil && !wait.Until.IsZero() {
			fmt.Fprintf(w, "; wait until %s", wait.Until.Format("2006-01-02 15:04:05"))
			if r := oneLine(wait.Reason); r != "" {
				fmt.Fprintf(w, ": %s", r)
			}
		}
		wrote = true
	}
	if u, ok := r["unknown"]; ok && string(u) == "true" {
		w.WriteString(" **outcome unknown**: the call may or may not have happened; re-observe")
		wrote = true
	}
	rest := map[string]json.RawMessage{}
	for k, v := range r {
		switch k {
		case "error", "output", "wait", "unknown":
		default:
			rest[k] = v
		}
	}
	if len(rest) > 0 {
		b, _ := json.Marshal(rest)
		inline(w, "; other: ", b)
		wrote = true
	}
	if !wrote {
		w.WriteString(" done")
	}
}

// inline writes v after prefix: a string as its text, anything else as compact JSON; in
// a fenced block when it is long or spans lines, so that nothing is cut.
func inline(w *bufio.Writer, prefix string, v json.RawMessage) {
	text := string(compact(v))
	var s string
	if json.Unmarshal(v, &s) == nil {
		text = s
	}
	if len(text) <= 1000 && !strings.ContainsAny(text, "\n`") {
		if json.Unmarshal(v, &s) == nil {
			fmt.Fprintf(w, "%s%s", prefix, text)
		} else {
			fmt.Fprintf(w, "%s`%s`", prefix, text)
		}
		return
	}
	w.WriteString(prefix + "(below)\n")
	writeBlock(w, []byte(text))
}

// writeBookkeeping writes the summarised records of a step in one line.
func writeBookkeeping(w *bufio.Writer, b bookkeeping) {
	var parts []string
	if len(b.usage) > 0 {
		parts = append(parts, strings.Join(b.usage, "; "))
	}
	if len(b.notes) > 0 && b.noteCalls == 0 {
		parts = append(parts, "notes "+notesSummary(b.notes))
	}
	if b.policy > 0 {
		parts = append(parts, fmt.Sprintf("policy ×%d", b.policy))
	}
	if len(b.states) > 0 {
		parts = append(parts, "state "+strings.Join(b.states, ", "))
	}
	if b.unchangedObs > 0 {
		parts = append(parts, fmt.Sprintf("%d observation(s) unchanged", b.unchangedObs))
	}
	if b.thinking > 0 {
		parts = append(parts, fmt.Sprintf("the model's reasoning, %d characters, not shown", b.thinking))
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "- _%s._\n", strings.Join(parts, " · "))
	}
}

// usageLine says what a model call cost: the prompt's size and the tokens, and the
// price when known ("" for a brain without a model).
func usageLine(v json.RawMessage) string {
	u, err := usageOf(v)
	if err != nil {
		return string(compact(v))
	}
	if u.Prompt+u.Completion == 0 && u.Cost == 0 {
		return "" // a brain without a model (the autopilot): nothing was spent
	}
	s := fmt.Sprintf("prompt %d chars, %d+%d tokens", u.Chars, u.Prompt, u.Completion)
	if u.Cost > 0 {
		s += fmt.Sprintf(", $%.4f", u.Cost)
	}
	return s
}

// notesLine says what a notes change changed: the version and the sections (a
// notes_changed record of format 1 carries the whole notes: its version is enough, the
// notes history has the text). Plan changes are the note calls' arguments.
func notesLine(n *record.Notes) string {
	if n == nil {
		return ""
	}
	s := fmt.Sprintf("v%d", n.Version)
	if len(n.Changed) > 0 {
		s += " (" + strings.Join(n.Changed, ", ") + ")"
	}
	if n.Text == nil && (len(n.Plan) > 0 || n.Removed > 0) {
		s += " (plan)"
	}
	return s
}

// notesSummary folds a step's notes changes into one phrase: "v30 (Situation), v31
// (Next, plan)".
func notesSummary(lines []string) string {
	var out []string
	for _, l := range lines {
		if n := len(out); n > 0 {
			prev, cur := out[n-1], l
			pv, _, _ := strings.Cut(prev, " ")
			cv, rest, _ := strings.Cut(cur, " ")
			if pv == cv {
				// Same version: merge what changed.
				out[n-1] = strings.TrimSuffix(prev, ")") + ", " + strings.TrimPrefix(rest, "(")
				if !strings.Contains(prev, "(") {
					out[n-1] = prev + " " + rest
				}
				continue
			}
		}
		out = append(out, l)
	}
	return strings.Join(out, ", ")
}

func jsonString(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) != nil {
		return strings.Trim(string(compact(v)), `"`)
	}
	return s
}

func trimFloat(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", f), "0"), ".")
}
