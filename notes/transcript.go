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
	proposal map[string]json.RawMessage // the "call" object
	decision map[string]json.RawMessage
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

// add takes the next record.
func (t *transcript) add(r Record) {
	if t.cur == nil || r.Step != t.cur.step {
		t.flush()
		t.cur = &stepView{step: r.Step, first: r.Seq, byID: map[string]*callView{}}
	}
	st := t.cur
	st.end = r.Seq
	var fields map[string]json.RawMessage
	if len(r.Data) > 0 && json.Unmarshal(r.Data, &fields) != nil {
		st.other = append(st.other, r)
		return
	}
	switch r.Type {
	case "step":
		st.book.steps++
	case "usage":
		if u := usageLine(fields["usage"]); u != "" {
			st.book.usage = append(st.book.usage, u)
		}
	case "state":
		if s := jsonString(fields["state"]); s != "" {
			st.book.states = append(st.book.states, s)
		}
	case "text":
		if s := jsonString(fields["text"]); strings.TrimSpace(s) != "" {
			st.texts = append(st.texts, s)
		}
	case "thinking":
		// The model's reasoning is not what it said: only its size is noted.
		st.book.thinking += len([]rune(jsonString(fields["text"])))
	case "observation":
		if !st.obsSeen {
			st.obsSeen, st.obsStart, st.obsStartKnown = true, t.summary, t.known
			st.metricsStart = maps.Clone(t.metrics)
		}
		// Rendered once for the whole step (stepObservation); this keeps the state.
		t.observation(fields["observation"])
	case "notes_changed":
		st.book.notes = append(st.book.notes, notesLine(fields["notes"]))
	case "trigger":
		if line := triggerLine(fields["trigger"]); line != "" {
			st.triggers = append(st.triggers, line)
		} else {
			st.other = append(st.other, r)
		}
	case "waiting":
		st.waits = append(st.waits, waitLine(fields))
	case "question":
		st.asked = append(st.asked, "? **The person asked**: "+oneLine(jsonString(fields["text"])))
	case "reply":
		st.asked = append(st.asked, "**The agent answered**: "+oneLine(jsonString(fields["text"])))
	case "tool_updated":
		if c := st.byID[r.CallID]; c != nil && r.CallID != "" {
			c.updated(fields["call"])
			return
		}
		st.other = append(st.other, r)
	case TypeProposed, TypeDecision, TypeStarted, TypeResult, TypeOutcomeUnknown:
		if r.CallID == "" {
			st.other = append(st.other, r)
			return
		}
		c := st.byID[r.CallID]
		if c == nil {
			c = &callView{id: r.CallID, earlier: r.Type != TypeProposed}
			st.byID[r.CallID] = c
			st.calls = append(st.calls, c)
		}
		switch r.Type {
		case TypeProposed:
			_ = json.Unmarshal(fields["call"], &c.proposal)
		case TypeDecision:
			c.decision = fields
		case TypeStarted:
			c.started = true
			st.book.started++
			if call := fields["call"]; c.proposal == nil && len(call) > 0 {
				// The person's own move carries its call on its start.
				_ = json.Unmarshal(call, &c.proposal)
				c.person, c.earlier = jsonString(c.proposal["by"]) == "person", false
				c.via = jsonString(fields["via"])
			}
		case TypeResult:
			if c.proposal == nil {
				// Format 1 repeated the call in its result.
				_ = json.Unmarshal(fields["call"], &c.proposal)
			}
			c.result = fields
			if v, ok := fields["result"]; ok {
				c.result = nil
				_ = json.Unmarshal(v, &c.result)
			}
			delete(c.result, "call")
		case TypeOutcomeUnknown:
			c.unknown = true
		}
	default:
		st.other = append(st.other, r)
	}
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
func (c *callView) updated(v json.RawMessage) {
	var call map[string]json.RawMessage
	if c.started || c.proposal == nil || json.Unmarshal(v, &call) != nil {
		return
	}
	for _, k := range []string{"simulation", "problems"} {
		if nv, ok := call[k]; ok {
			c.proposal[k] = nv
		} else {
			delete(c.proposal, k)
		}
	}
}

// waitLine is a wait of the runner's on one line: its own words, else when and why; the
// end of a wait has no time ("the wait ended: the time came").
func waitLine(fields map[string]json.RawMessage) string {
	if s := oneLine(jsonString(fields["text"])); s != "" {
		return s
	}
	var wait struct {
		Until  time.Time `json:"until"`
		Reason string    `json:"reason"`
	}
	_ = json.Unmarshal(fields["wait"], &wait)
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

// observation returns the lines that show what an observation changed, and remembers
// its summary.
func (t *transcript) observation(v json.RawMessage) []string {
	var o struct {
		Summary      *string           `json:"summary"`
		SummaryEdits []json.RawMessage `json:"summary_edits"`
		Metrics      []struct {
			Name  string  `json:"name"`
			Value float64 `json:"value"`
			Unit  string  `json:"unit"`
		} `json:"metrics"`
		Timers []struct {
			Label string    `json:"label"`
			End   time.Time `json:"end"`
		} `json:"timers"`
		Map      json.RawMessage   `json:"map"`
		MapEdits []json.RawMessage `json:"map_edits"`
	}
	if json.Unmarshal(v, &o) != nil {
		return []string{" `" + string(compact(v)) + "`"}
	}
	var head []string
	for _, m := range o.Metrics {
		// Only the numbers that moved.
		if old, ok := t.metrics[m.Name]; ok && old == m.Value {
			continue
		}
		t.metrics[m.Name] = m.Value
		head = append(head, fmt.Sprintf("%s %s", m.Name, trimFloat(m.Value)))
	}
	for _, tm := range o.Timers {
		head = append(head, fmt.Sprintf("%s until %s", oneLine(tm.Label), tm.End.Format("15:04:05")))
	}
	// The map's changes are the ships' moves, which the summary and the results say.
	var lines []string
	if len(head) > 0 {
		lines = append(lines, " "+strings.Join(head, " · "))
	}
	var added []string
	switch {
	case o.Summary != nil:
		if t.known {
			added = newLines(t.summary, *o.Summary)
			added = notCounters(t.summary, added)
		} else {
			added = strings.Split(strings.TrimRight(*o.Summary, "\n"), "\n")
		}
		t.summary, t.known = *o.Summary, true
	case len(o.SummaryEdits) > 0:
		for _, e := range o.SummaryEdits {
			var parts []json.RawMessage
			if json.Unmarshal(e, &parts) != nil || len(parts) < 2 {
				continue
			}
			for _, p := range parts[2:] {
				added = append(added, jsonString(p))
			}
		}
		if s, ok := applyEdits(t.summary, o.SummaryEdits); ok && t.known {
			added = notCounters(t.summary, added)
			t.summary = s
		} else {
			t.known = false
		}
	}
	if l := t.quoteAdded(added); l != "" {
		lines = append(lines, l)
	}
	return lines
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

// applyEdits applies the journal's line edits ([at, del, lines...], At in the original
// text) to s; ok is false when they do not fit.
func applyEdits(s string, edits []json.RawMessage) (string, bool) {
	x := strings.Split(s, "\n")
	var out []string
	pos := 0
	for _, e := range edits {
		var parts []json.RawMessage
		var at, del int
		if json.Unmarshal(e, &parts) != nil || len(parts) < 2 ||
			json.Unmarshal(parts[0], &at) != nil || json.Unmarshal(parts[1], &del) != nil ||
			at < pos || del < 0 || at > len(x) || del > len(x)-at {
			return "", false
		}
		out = append(out, x[pos:at]...)
		for _, p := range parts[2:] {
			out = append(out, jsonString(p))
		}
		pos = at + del
	}
	out = append(out, x[pos:]...)
	return strings.Join(out, "\n"), true
}

// writeCall writes a call on one line (its arguments and result in blocks when long or
// multi-line): tool, arguments, problems, dry run, decision, result.
func writeCall(w *bufio.Writer, c *callView, book *bookkeeping, sections map[string]string) {
	tool := jsonString(c.proposal["tool"])
	if tool == "" {
		tool = jsonString(c.proposal["name"])
	}
	if tool == "" {
		tool = "call"
	}
	// What the policy decided (read and note tools, --approve all) and note tools that
	// did what they were asked are bookkeeping: counted, not spelled out per call.
	decision, by := jsonString(c.decision["decision"]), jsonString(c.decision["by"])
	routine := c.decision != nil && by == "policy" && (decision == "auto" || decision == "approve") &&
		len(c.decision["reason"]) == 0 && len(c.decision["args"]) == 0
	if routine {
		book.policy++
	}
	var problems []struct{ Path, Expected, Got, Hint string }
	_ = json.Unmarshal(c.proposal["problems"], &problems)
	_, failed := c.result["error"]
	if routine && !failed && !c.unknown && len(problems) == 0 && c.result != nil && jsonString(c.proposal["kind"]) == "note" {
		book.noteCalls++
		writeNoteCall(w, tool, c.proposal["args"], sections)
		return
	}
	fmt.Fprintf(w, "- **%s**", tool)
	if c.earlier || c.unknown {
		fmt.Fprintf(w, " (call `%s`)", c.id)
	}
	if args := c.proposal["args"]; len(args) > 0 {
		writeArgs(w, args)
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
	if json.Unmarshal(c.proposal["simulation"], &sim) == nil && sim.Summary != "" {
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
		if via := jsonString(d["via"]); via != "" {
			fmt.Fprintf(w, " (via %s)", via) // where the person decided: screen, attach, ssh:KEY
		}
		if reason := jsonString(d["reason"]); reason != "" {
			fmt.Fprintf(w, ": %s", oneLine(reason))
		}
		if args := d["args"]; len(args) > 0 {
			inline(w, "; ran with ", args)
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

func usageLine(v json.RawMessage) string {
	var u struct {
		Prompt     int64   `json:"prompt_tokens"`
		Completion int64   `json:"completion_tokens"`
		Cost       float64 `json:"cost"`
		Chars      int64   `json:"prompt_chars"`
	}
	if json.Unmarshal(v, &u) != nil {
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
func notesLine(v json.RawMessage) string {
	var n struct {
		Version int      `json:"version"`
		Changed []string `json:"changed"`
		Plan    []any    `json:"plan"`
		Text    *string  `json:"text"`
		Removed int      `json:"plan_removed"`
	}
	if json.Unmarshal(v, &n) != nil {
		return string(compact(v))
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
