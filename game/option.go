package game

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// OptionKind is the kind of value an Option takes.
type OptionKind int

// The kinds of option, each with the Go type of its Default and of its value in Values.
const (
	OptionString   OptionKind = iota // a word or a path: string
	OptionInt                        // a whole number: int64
	OptionFloat                      // a number: float64
	OptionBool                       // on when given alone (--no-rate-limit): bool
	OptionDuration                   // like 90s or 2m: time.Duration
	OptionList                       // repeatable, each value kept whole (--observe A --observe B): []string
)

// String names the kind as the command line says what a value must be.
func (k OptionKind) String() string {
	switch k {
	case OptionString:
		return "string"
	case OptionInt:
		return "int"
	case OptionFloat:
		return "float"
	case OptionBool:
		return "bool"
	case OptionDuration:
		return "duration"
	case OptionList:
		return "list"
	}
	return fmt.Sprintf("OptionKind(%d)", int(k))
}

// Option is one setting a driver takes from the command line (--seed, --mcp, --spec),
// declared as data: coplay's command line makes a flag of it, offers its Enum when the
// shell completes it, and hands what was given to the driver in Env.Options. The driver
// checks the values itself when it opens (a bad one is a FlagError).
type Option struct {
	// Name is the flag's name without dashes: "seed", "mcp-header".
	Name string
	Kind OptionKind
	// Default is the value when the option is not given: a string, int64, float64,
	// bool or time.Duration by Kind; nil is the kind's zero. A list has none.
	Default any
	// Usage is the flag's help on one line; a word in backquotes names its value
	// ("`seed` of a new offline world").
	Usage string
	// Enum, when set, are the values the shell offers for it (a string's or a list's).
	Enum []string
}

// zero is the value of an option of kind k that is not given and has no default.
func (k OptionKind) zero() any {
	switch k {
	case OptionInt:
		return int64(0)
	case OptionFloat:
		return float64(0)
	case OptionBool:
		return false
	case OptionDuration:
		return time.Duration(0)
	case OptionList:
		return []string(nil)
	}
	return ""
}

// holds reports whether v has the Go type of kind k's values.
func (k OptionKind) holds(v any) bool {
	switch v.(type) {
	case string:
		return k == OptionString
	case int64:
		return k == OptionInt
	case float64:
		return k == OptionFloat
	case bool:
		return k == OptionBool
	case time.Duration:
		return k == OptionDuration
	case []string:
		return k == OptionList
	}
	return false
}

// DefaultValue is the option's value when it is not given.
func (o Option) DefaultValue() any {
	if o.Default == nil {
		return o.Kind.zero()
	}
	return o.Default
}

// check says what is wrong with a declaration: a programming error, found at start-up.
func (o Option) check() error {
	switch {
	case o.Name == "" || strings.HasPrefix(o.Name, "-") || strings.ContainsAny(o.Name, " =\t"):
		return fmt.Errorf("option name %q: want a flag's name without dashes", o.Name)
	case o.Kind < OptionString || o.Kind > OptionList:
		return fmt.Errorf("option --%s: unknown kind %d", o.Name, int(o.Kind))
	case o.Default != nil && (o.Kind == OptionList || !o.Kind.holds(o.Default)):
		return fmt.Errorf("option --%s: kind %s cannot default to %T", o.Name, o.Kind, o.Default)
	case o.Enum != nil && o.Kind != OptionString && o.Kind != OptionList:
		return fmt.Errorf("option --%s: only a string or a list has values to offer", o.Name)
	}
	return nil
}

// Values are the drivers' options as given, by name (without dashes), each of its
// kind's Go type. Open and OpenLeague hand a driver one with every option it declares,
// the ones not given at their default.
type Values map[string]any

// String is the value of a string option.
func (v Values) String(name string) string { s, _ := v[name].(string); return s }

// Int is the value of a whole-number option.
func (v Values) Int(name string) int64 { n, _ := v[name].(int64); return n }

// Float is the value of a number option.
func (v Values) Float(name string) float64 { f, _ := v[name].(float64); return f }

// Bool is the value of an on/off option.
func (v Values) Bool(name string) bool { b, _ := v[name].(bool); return b }

// Duration is the value of a duration option.
func (v Values) Duration(name string) time.Duration { d, _ := v[name].(time.Duration); return d }

// List is the values of a repeatable option, in the order given.
func (v Values) List(name string) []string { l, _ := v[name].([]string); return slices.Clone(l) }

// valuesFor is given completed with d's options: each it declares, given or at its
// default. A given value of the wrong type is the caller's programming error; a given
// option d does not declare is dropped (the command line refuses another game's flags
// before a driver is opened).
func (d Driver) valuesFor(given Values) (Values, error) {
	out := Values{}
	for _, o := range d.Options {
		v, ok := given[o.Name]
		if !ok {
			out[o.Name] = o.DefaultValue()
			continue
		}
		if !o.Kind.holds(v) {
			return nil, fmt.Errorf("game: option --%s of %s given as %T, want kind %s", o.Name, d.Name, v, o.Kind)
		}
		out[o.Name] = v
	}
	return out, nil
}

// checkOptions checks d's option declarations, alone and against the drivers already
// registered: a name several drivers declare (--seed, --base-url) must be of one kind,
// since the command line has one flag for it.
func checkOptions(d Driver, others map[string]Driver) error {
	seen := map[string]bool{}
	for _, o := range d.Options {
		if err := o.check(); err != nil {
			return err
		}
		if seen[o.Name] {
			return fmt.Errorf("option --%s declared twice", o.Name)
		}
		seen[o.Name] = true
		for _, other := range others {
			for _, p := range other.Options {
				if p.Name == o.Name && p.Kind != o.Kind {
					return fmt.Errorf("option --%s: kind %s for %s, %s for %s (one flag cannot be both)", o.Name, p.Kind, other.Name, o.Kind, d.Name)
				}
			}
		}
	}
	return nil
}
