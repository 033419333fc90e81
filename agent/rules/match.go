package rules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/coplayhq/coplay/game"
)

// Call is what a rule is matched against: a validated call and its dry run (nil when
// the tool has none or it could not say).
type Call struct {
	Tool string
	Args json.RawMessage
	Sim  *game.Simulation
}

// Set is a list of rules. Order does not change what it decides, only which of two
// equally strong rules is named as the reason.
type Set []Rule

// Decide returns the rule that decides c: of the rules that apply, the strongest (deny
// beats ask beats allow), the first written among equals. ok is false when no rule
// applies: the caller's default (ask, or --approve all) stands.
func (s Set) Decide(c Call) (r Rule, ok bool) {
	var args map[string]any
	for _, rule := range s {
		if !rule.applies(c, &args) {
			continue
		}
		if !ok || rule.Action.strength() > r.Action.strength() {
			r, ok = rule, true
		}
	}
	return r, ok
}

// applies reports whether the rule covers c. args is decoded once per Decide.
func (r Rule) applies(c Call, args *map[string]any) bool {
	if m, err := path.Match(r.Tool, c.Tool); err != nil || !m {
		return false
	}
	if len(r.Args) > 0 {
		if *args == nil {
			*args = map[string]any{}
			d := json.NewDecoder(bytes.NewReader(c.Args))
			d.UseNumber()
			if d.Decode(args) != nil {
				return false
			}
		}
		for _, a := range r.Args {
			v, found := lookup(*args, a.Field)
			if !found {
				return false
			}
			if m, err := path.Match(a.Glob, v); err != nil || !m {
				return false
			}
		}
	}
	if len(r.Conds) > 0 {
		// A condition needs a dry run that predicts success and reports the effect;
		// otherwise the rule does not apply and the call asks.
		if c.Sim == nil || c.Sim.Fails {
			return false
		}
		for _, cond := range r.Conds {
			v, found := c.Sim.Effects[cond.Effect]
			if !found || !cond.Op.holds(v, cond.Value) {
				return false
			}
		}
	}
	return true
}

// lookup finds a dotted field in decoded arguments and renders it for glob matching:
// strings as they are, numbers as sent, booleans and null as words, anything else as
// compact JSON.
func lookup(args map[string]any, field string) (string, bool) {
	var v any = args
	for _, part := range strings.Split(field, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return "", false
		}
		if v, ok = m[part]; !ok {
			return "", false
		}
	}
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		return fmt.Sprint(x), true
	case nil:
		return "null", true
	}
	b, _ := json.Marshal(v)
	return string(b), true
}

// Check reports a rule that cannot mean anything for this catalogue: a tool name no
// tool has (listing the closest names), an argument the tool does not take, or
// conditions on a tool with no dry run (they could never apply).
func (r Rule) Check(tools []game.Tool) error {
	var names []string
	var matched []game.Tool
	for _, t := range tools {
		names = append(names, t.Name)
		if m, _ := path.Match(r.Tool, t.Name); m {
			matched = append(matched, t)
		}
	}
	if len(matched) == 0 {
		msg := fmt.Sprintf("rule %q: no tool %q", r.String(), r.Tool)
		if near := game.Closest(r.Tool, names, 3); len(near) > 0 {
			msg += "; did you mean " + strings.Join(near, " or ") + "?"
		} else {
			sort.Strings(names)
			msg += " (tools: " + strings.Join(names, ", ") + ")"
		}
		return fmt.Errorf("%s", msg)
	}
	for _, a := range r.Args {
		top := strings.SplitN(a.Field, ".", 2)[0]
		for _, t := range matched {
			if t.Schema == nil || t.Schema.Properties == nil {
				continue
			}
			if _, ok := t.Schema.Properties[top]; !ok {
				props := make([]string, 0, len(t.Schema.Properties))
				for p := range t.Schema.Properties {
					props = append(props, p)
				}
				sort.Strings(props)
				msg := fmt.Sprintf("rule %q: %s takes no argument %q", r.String(), t.Name, top)
				if near := game.Closest(top, props, 1); len(near) > 0 {
					msg += "; did you mean " + near[0] + "?"
				} else {
					msg += " (it takes " + strings.Join(props, ", ") + ")"
				}
				return fmt.Errorf("%s", msg)
			}
		}
	}
	if len(r.Conds) > 0 {
		for _, t := range matched {
			if t.DryRun {
				return r.checkEffects(matched)
			}
		}
		return fmt.Errorf("rule %q: %s has no dry run, so an if condition could never apply", r.String(), r.Tool)
	}
	return nil
}

// CheckEffects reports a condition naming a number that the dry runs of the rule's
// tools never predict ("fule" for navigate_ship's fuel), with the closest name: such a
// rule could never apply. Tools that do not declare their effects (game.Tool.Effects)
// take any name.
func (r Rule) CheckEffects(tools []game.Tool) error {
	var matched []game.Tool
	for _, t := range tools {
		if m, _ := path.Match(r.Tool, t.Name); m {
			matched = append(matched, t)
		}
	}
	return r.checkEffects(matched)
}

func (r Rule) checkEffects(matched []game.Tool) error {
	known := map[string]bool{}
	declared := false
	for _, t := range matched {
		if !t.DryRun || t.Effects == nil {
			continue
		}
		declared = true
		for _, e := range t.Effects {
			known[e] = true
		}
	}
	if !declared {
		return nil
	}
	for _, c := range r.Conds {
		if known[c.Effect] {
			continue
		}
		names := make([]string, 0, len(known))
		for e := range known {
			names = append(names, e)
		}
		sort.Strings(names)
		msg := fmt.Sprintf("rule %q: %s predicts no %q", r.String(), r.Tool, c.Effect)
		if near := game.Closest(c.Effect, names, 1); len(near) > 0 {
			msg += "; did you mean " + near[0] + "?"
		}
		if len(names) > 0 {
			msg += " (a condition can name " + strings.Join(names, ", ") + ")"
		} else {
			msg += " (its dry run predicts no numbers a condition can name)"
		}
		return fmt.Errorf("%s", msg)
	}
	return nil
}

// ParseChecked parses a rule line and checks it against the catalogue and the host
// requests (HostTools).
func ParseChecked(line string, tools []game.Tool) (Rule, error) {
	r, err := Parse(line)
	if err != nil {
		return r, err
	}
	if r.Tool == Elicitation || r.Tool == Sampling {
		tools = HostTools
	}
	return r, r.Check(tools)
}
