package ui

import (
	"encoding/json"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/rules"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/keymap"
)

// moveLine is the person's own move, typed: a tool's name (tab completes it from the
// catalogue, read and act tools alike), then its arguments as key=value pairs or one
// JSON object (tab completes the argument's name, then its value where the schema lists
// them). The arguments are checked as they are typed with the validator edits use; the
// dry run shows where the tool has one; a deny rule that matches is shown, and enter
// must be pressed a second time to play against it. Enter plays the move (the runner's
// play command), esc leaves.
type moveLine struct {
	st    *styles
	km    *keymap.KeyMap
	tools map[string]game.Tool // the moves: the catalogue without the runner's own tools
	names []string             // their names, sorted
	rules rules.Set            // the rules that may deny a move (config, profile, session)
	seat  string               // the league's seat the move is for ("" alone)
	input textinput.Model

	tool    string
	args    json.RawMessage // the arguments as JSON, when they read
	probs   []string        // what is wrong with the move as typed
	choices []string        // what tab could complete to, when it could not choose
	noMatch bool            // tab found nothing to complete
	deny    string          // the deny rule that matches the move, "" when none
	armed   bool            // enter was pressed once against the deny rule
	// preview is the dry run of the move as typed, once the runner answered for it
	// (previewFor); asked says which move a preview was last asked for.
	preview           *agent.MovePreview
	previewFor, asked string
}

// newMoveLine opens the move line for seat, with the catalogue tools and the rules that
// may deny a move.
func newMoveLine(st *styles, km *keymap.KeyMap, tools map[string]game.Tool, deny rules.Set, seat string, width int) (*moveLine, tea.Cmd) {
	d := &moveLine{st: st, km: km, tools: map[string]game.Tool{}, rules: deny, seat: seat,
		input: newInput("move› ", "a tool's name (tab completes), then key=value pairs or one JSON object", st.dark)}
	for name, t := range tools {
		switch name {
		case agent.ToolWait, agent.ToolLoadTools, agent.ToolFindTools:
			continue // the agent's pace and catalogue: no move in the game
		}
		d.tools[name] = t
		d.names = append(d.names, name)
	}
	sort.Strings(d.names)
	d.resize(width)
	d.check()
	return d, d.input.Focus()
}

func (d *moveLine) kind() dialogKind { return moveDialog }

func (d *moveLine) hint() (string, []key.Binding) {
	return "your move:", []key.Binding{one(d.km.Complete, "complete"), one(d.km.Send, "play it"), one(d.km.Cancel, "leave")}
}

func (d *moveLine) resize(width int) {
	d.input.SetWidth(max(min(width, 90)-len(d.input.Prompt)-4, 10))
}

// previewMsg is the runner's dry run of a move as typed (key: the move it is for).
type previewMsg struct {
	key     string
	preview agent.MovePreview
}

// actPreview asks the runner to dry-run a move as typed.
type actPreview struct {
	seat, tool string
	args       json.RawMessage
	key        string
}

// actPlay plays a move.
type actPlay struct {
	seat, tool string
	args       json.RawMessage
	force      bool
}

func (d *moveLine) update(msg tea.Msg) (tea.Cmd, action) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		d.resize(msg.Width)
		return nil, nil
	case tea.BackgroundColorMsg:
		d.input.SetStyles(textinput.DefaultStyles(d.st.dark))
		return nil, nil
	case previewMsg:
		if msg.key == d.asked {
			p := msg.preview
			d.preview, d.previewFor = &p, msg.key
			d.check()
		}
		return nil, nil
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, d.km.Cancel):
			return nil, actClose
		case key.Matches(msg, d.km.Complete):
			before := d.input.Value()
			line, choices := complete(before, d.tools, d.names)
			d.noMatch = line == before && len(choices) == 0
			d.input.SetValue(line)
			d.input.CursorEnd()
			d.choices = choices
			return nil, d.check()
		case key.Matches(msg, d.km.Send):
			return nil, d.play()
		}
	}
	cmd := typed(&d.input, msg)
	if _, ok := msg.(tea.KeyPressMsg); ok {
		d.choices, d.armed, d.noMatch = nil, false, false
	}
	return cmd, d.check()
}

// play is enter: the move when it can be played, a second enter against a deny rule.
func (d *moveLine) play() action {
	d.check()
	switch {
	case len(d.probs) > 0:
		return actHint("the move cannot be played yet: " + d.probs[0])
	case d.deny != "" && !d.armed:
		d.armed = true
		return actHint("the rule " + d.deny + " denies this move: enter again plays it all the same")
	}
	return actPlay{seat: d.seat, tool: d.tool, args: d.args, force: d.deny != ""}
}

// check reads the move as typed, checks it with the edit validator, finds a deny rule
// that matches it (on its dry run, for a rule with a condition), and asks for a new dry
// run when the move changed and the tool has one.
func (d *moveLine) check() action {
	d.probs, d.deny = nil, ""
	tool, args, problem := parseMove(d.input.Value(), d.tools)
	d.tool, d.args = tool, args
	t, known := d.tools[tool]
	switch {
	case problem != "":
		d.probs = []string{problem}
	case !known:
		near := matching(d.names, tool)
		p := "no tool " + tool
		if len(near) > 0 && len(near) <= 6 {
			p += " (did you mean " + strings.Join(near, ", ") + "?)"
		}
		d.probs = []string{p}
	default:
		d.probs = editProblems(d.tools, tool, string(args))
	}
	if len(d.probs) > 0 {
		return nil
	}
	moveKey := tool + " " + compactJSON(args)
	var sim *game.Simulation
	if d.preview != nil && d.previewFor == moveKey {
		sim = d.preview.Simulation
	}
	if r, ok := d.rules.Decide(rules.Call{Tool: tool, Args: args, Sim: sim}); ok && r.Action == rules.Deny {
		d.deny = r.String()
	}
	if t.DryRun && d.asked != moveKey {
		d.asked = moveKey
		return actPreview{seat: d.seat, tool: tool, args: args, key: moveKey}
	}
	return nil
}

func (d *moveLine) view(w, h int) []string {
	st, km := d.st, d.km
	dw := min(w, 90)
	lines := []string{d.input.View()}
	lines = append(lines, wrapStyled("a tool's name, then key=value pairs or one JSON object", dw-2, st.muted, "")...)
	if d.noMatch {
		lines = append(lines, st.muted.Render(firstKey(km.Complete)+": nothing to complete here"))
	}
	if len(d.choices) > 0 {
		lines = append(lines, wrapStyled(strings.Join(d.choices, "  "), dw-2, st.muted, firstKey(km.Complete)+": ")...)
	}
	if t, ok := d.tools[d.tool]; ok {
		lines = append(lines, wrapStyled(d.tool+" ("+t.Kind.String()+"): "+firstLine(t.Description), dw-2, st.muted, "")...)
		if names := argNames(t); names != "" {
			lines = append(lines, wrapStyled("arguments: "+names, dw-2, st.muted, "")...)
		}
	}
	lines = append(lines, "")
	if len(d.probs) == 0 {
		lines = append(lines, st.good.Render("✓ valid: "+d.tool+" "+spacedJSON(d.args)))
	}
	for _, p := range d.probs {
		lines = append(lines, wrapStyled(p, dw-2, st.bad, "✗ ")...)
	}
	if t := d.tools[d.tool]; len(d.probs) == 0 && t.DryRun {
		switch p := d.preview; {
		case p == nil || d.previewFor != d.asked:
			lines = append(lines, st.muted.Render("dry run: checking…"))
		case p.Simulation == nil:
			lines = append(lines, st.muted.Render("dry run: the game cannot say"))
		case p.Simulation.Fails:
			lines = append(lines, wrapStyled(p.Simulation.Summary, dw-2, st.bad, "dry run: ")...)
		default:
			lines = append(lines, wrapStyled(p.Simulation.Summary, dw-2, st.good, "dry run: ")...)
		}
	}
	if d.deny != "" {
		again := "enter twice to play it all the same"
		if d.armed {
			again = "enter again plays it all the same"
		}
		lines = append(lines, wrapStyled("the rule "+d.deny+" denies this move: "+again, dw-2, st.warn, "! ")...)
	}
	lines = append(lines, helpLine(st, []key.Binding{one(km.Complete, "complete"), one(km.Send, "play it"), one(km.Cancel, "leave")}, dw-2))
	title := "Your move"
	if d.seat != "" {
		title += " (" + d.seat + ")"
	}
	return box(st, title, lines, dw, min(len(lines)+2, h), frameFocus)
}

// argNames lists a tool's arguments, the required ones marked.
func argNames(t game.Tool) string {
	props := propsOf(t)
	if len(props) == 0 {
		return ""
	}
	req := map[string]bool{}
	for _, r := range t.Schema.Required {
		req[r] = true
	}
	var names []string
	for k := range props {
		if req[k] {
			k += "*"
		}
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, " ") + " (* required)"
}

// firstLine is a description's first line.
func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
