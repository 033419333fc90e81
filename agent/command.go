package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/coplayhq/coplay/agent/rules"
	"github.com/coplayhq/coplay/game"
)

// commandFields lists, for each command, the fields it may carry and which of them it
// must carry. Every command may also carry "seat" (a league's seat).
var commandFields = map[CommandType]struct{ allowed, required []string }{
	CmdDecide:      {[]string{"call_id", "decision", "reason", "args"}, []string{"call_id", "decision"}},
	CmdAdvise:      {[]string{"text"}, []string{"text"}},
	CmdPause:       {},
	CmdResume:      {},
	CmdStop:        {},
	CmdAllow:       {[]string{"tool", "allow"}, []string{"tool", "allow"}},
	CmdRevise:      {[]string{"call_id", "args"}, []string{"call_id", "args"}},
	CmdRule:        {[]string{"rule"}, []string{"rule"}},
	CmdUnrule:      {[]string{"rule"}, []string{"rule"}},
	CmdKeepPlaying: {[]string{"on"}, []string{"on"}},
	CmdAnswer:      {[]string{"id", "action", "content"}, []string{"id", "action"}},
	CmdPlay:        {[]string{"tool", "args", "force"}, []string{"tool"}},
	CmdTakeOver:    {[]string{"on"}, []string{"on"}},
	CmdAsk:         {[]string{"text"}, []string{"text"}},
}

// ParseCommand reads one headless command line (docs/PROTOCOL.md). It is strict: the
// line must be exactly one JSON object; unknown fields, fields the command does not
// take, null values, missing required fields and bad values are errors, and the error
// says which.
func ParseCommand(line []byte) (Command, error) {
	var fields map[string]json.RawMessage
	if err := decodeOne(line, &fields); err != nil {
		return Command{}, err
	}
	if fields == nil {
		return Command{}, errors.New("command: want a JSON object, got null")
	}
	var c Command
	if err := decodeOne(line, &c); err != nil {
		return Command{}, err
	}
	spec, ok := commandFields[c.Cmd]
	if !ok {
		return Command{}, unknownCmd(c.Cmd)
	}
	for _, k := range sortedUnion(fields, nil) {
		if k == "cmd" {
			continue
		}
		if k != "seat" && !contains(spec.allowed, k) {
			return Command{}, fmt.Errorf("command %s: field %q is not used by this command", c.Cmd, k)
		}
		if string(bytes.TrimSpace(fields[k])) == "null" {
			return Command{}, fmt.Errorf("command %s: field %q is null", c.Cmd, k)
		}
	}
	for _, k := range spec.required {
		if _, ok := fields[k]; !ok {
			return Command{}, fmt.Errorf("command %s: field %q is required", c.Cmd, k)
		}
	}
	if c.Cmd == CmdDecide {
		if _, ok := fields["reason"]; ok && c.Decision != Veto {
			return Command{}, fmt.Errorf("command decide: a reason goes with a veto, not with %q", c.Decision)
		}
	}
	if err := checkShape(c); err != nil {
		return Command{}, err
	}
	return c, nil
}

// decodeOne decodes exactly one JSON value, refusing unknown fields and trailing data.
func decodeOne(line []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("command: %w", err)
	}
	if dec.More() {
		return errors.New("command: extra data after the JSON object")
	}
	if _, err := dec.Token(); err == nil {
		return errors.New("command: extra data after the JSON object")
	}
	return nil
}

// checkShape checks a command's values, whoever built it.
func checkShape(c Command) error {
	switch c.Cmd {
	case CmdDecide:
		if c.CallID == "" {
			return errors.New("command decide: call_id is empty")
		}
		switch c.Decision {
		case Approve, Veto:
			if len(c.Args) > 0 {
				return fmt.Errorf("command decide: args go with an edit, not with %q", c.Decision)
			}
		case Edit:
			if t := bytes.TrimSpace(c.Args); len(t) == 0 || t[0] != '{' {
				return errors.New("command decide: an edit needs args, a JSON object of the new arguments")
			}
		default:
			return fmt.Errorf("command decide: decision %q is not approve, veto or edit", c.Decision)
		}
	case CmdRevise:
		if c.CallID == "" {
			return errors.New("command revise: call_id is empty")
		}
		if t := bytes.TrimSpace(c.Args); len(t) == 0 || t[0] != '{' {
			return errors.New("command revise: args must be a JSON object of the new arguments")
		}
	case CmdAdvise, CmdAsk:
		if strings.TrimSpace(c.Text) == "" {
			return fmt.Errorf("command %s: text is empty", c.Cmd)
		}
	case CmdPlay:
		if strings.TrimSpace(c.Tool) == "" {
			return errors.New("command play: tool is empty")
		}
		if t := bytes.TrimSpace(c.Args); len(t) > 0 && t[0] != '{' {
			return errors.New("command play: args must be a JSON object of the tool's arguments")
		}
	case CmdAllow:
		if c.Tool == "" {
			return errors.New("command allow: tool is empty")
		}
	case CmdRule, CmdUnrule:
		if strings.TrimSpace(c.Rule) == "" {
			return fmt.Errorf("command %s: rule is empty", c.Cmd)
		}
	case CmdAnswer:
		return checkAnswerShape(c)
	case CmdPause, CmdResume, CmdStop, CmdKeepPlaying, CmdTakeOver:
	default:
		return unknownCmd(c.Cmd)
	}
	return nil
}

// unknownCmd refuses a cmd nobody knows, with the one probably meant ("advice" for
// advise) and the whole list.
func unknownCmd(cmd CommandType) error {
	if near := game.Closest(string(cmd), cmdList(), 1); len(near) > 0 {
		return fmt.Errorf("command: unknown cmd %q: did you mean %q? (want one of %s)", cmd, near[0], cmdNames())
	}
	return fmt.Errorf("command: unknown cmd %q (want one of %s)", cmd, cmdNames())
}

// cmdList is every command's name, sorted.
func cmdList() []string {
	var names []string
	for k := range commandFields {
		names = append(names, string(k))
	}
	sort.Strings(names)
	return names
}

func cmdNames() string { return strings.Join(cmdList(), ", ") }

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// command is a Command on its way to the Run goroutine.
type command struct {
	Command
	claim *Decision      // decide: the Gate's claim, made as it was sent (settleAsSent)
	host  *hostMsg       // a game's question, sampling request, progress or log line (ask.go)
	valid game.ValidCall // decide edit, revise, play: the arguments, validated once by Send
	rule  rules.Rule     // rule, unrule, allow: the rule, parsed (and checked) by Send
	// unreadable: unrule names a stored session rule line that does not read back
	// (ruleBook.unreadable), by its text rather than a rule.
	unreadable bool
	why        string // stop: why, when not the person ("stdin closed")
	inEnded    bool   // league.Headless: stdin reached its end (deadline.go)
	// orphaned: league.Headless: stdin has ended and the runner waits for a person, who can
	// no longer answer (deadline.go)
	orphaned bool
	notice   string // Notice: a word for the journal and the screens (who connected)
}

// check validates a command against its shape, the catalogue and the calls now
// waiting, and returns it with an edit's or revise's validated arguments or a rule
// command's parsed rule. A rule that does not parse is refused with the parser's column
// and what it expected; one naming a tool the game does not have, with the closest
// names.
func (r *Runner) check(c Command) (command, error) {
	out := command{Command: c}
	if err := checkShape(c); err != nil {
		return out, err
	}
	switch c.Cmd {
	case CmdAllow:
		if _, err := r.tools.registry().Lookup(c.Tool); err != nil {
			return out, fmt.Errorf("allow: %w", err)
		}
		rule, err := rules.Parse("allow " + c.Tool)
		if err != nil {
			return out, fmt.Errorf("allow %q: %w", c.Tool, err)
		}
		out.rule = rule
		return out, nil
	case CmdRule:
		rule, err := rules.ParseChecked(c.Rule, r.tools.registry().Tools())
		if err != nil {
			return out, fmt.Errorf("rule %q refused: %w", c.Rule, err)
		}
		// The session keeps its rules in the notebook, where a secret is never written
		// (it would be stored redacted, and read back as another rule).
		if name, ok := r.scrub.s.Find(rule.String()); ok {
			return out, fmt.Errorf("rule refused: it holds the value of %s, and rules are kept in the notebook, where secrets never go", name)
		}
		out.rule = rule
		return out, nil
	case CmdUnrule:
		if out.unreadable = r.policy.unreadable(c.Rule); out.unreadable {
			return out, nil
		}
		// Not checked against the catalogue: a rule for a tool that is gone can go too.
		rule, err := rules.Parse(c.Rule)
		if err != nil {
			return out, fmt.Errorf("unrule %q refused: %w", c.Rule, err)
		}
		out.rule = rule
		return out, nil
	case CmdAnswer:
		return r.asks.checkAnswer(out)
	case CmdPlay, CmdTakeOver, CmdAsk:
		return r.person.check(out, r.tools)
	case CmdDecide, CmdRevise:
	default:
		return out, nil
	}
	tool, ok := r.gate.waiting(r.policy.seat, c.CallID)
	if !ok {
		return out, fmt.Errorf("%s: %w", c.Cmd, r.gate.refusal(r.policy.seat, c.CallID))
	}
	if c.Cmd == CmdDecide && c.Decision != Edit {
		return out, nil
	}
	v, err := r.tools.validate(tool.Name, c.Args)
	if err != nil {
		what := "decide: edit"
		if c.Cmd == CmdRevise {
			what = "revise"
		}
		return out, fmt.Errorf("%s of call %q refused, nothing changed: %w", what, c.CallID, err)
	}
	out.valid = v
	return out, nil
}
