package cli

import (
	"errors"
	"flag"
	"fmt"
	"github.com/coplayhq/coplay/game"
	"io"
	"regexp"
	"strings"
	"time"
)

// usageError is a mistake in how coplay was called (an unknown flag, a bad value, an
// argument too many). It exits with status 2; every other failure exits with 1.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// usagef makes a usageError.
func usagef(format string, a ...any) error {
	return &usageError{msg: fmt.Sprintf(format, a...)}
}

// The flag package reports its mistakes only as text; these read them back so each can
// be said in one line with a suggestion rather than followed by the whole flag list.
var (
	unknownFlagRe = regexp.MustCompile(`^flag provided but not defined: -(.*)$`)
	badValueRe    = regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for (?:flag )?-([^:]*): `)
	needsArgRe    = regexp.MustCompile(`^flag needs an argument: -(.*)$`)
)

// newFlagSet is a command's flag set: parse errors are returned (parseFlags makes them
// one line), and what the flag package prints goes to stderr.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseNoArgs is parseFlags for a command that takes flags only: a positional argument
// is a usage error.
func parseNoArgs(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected arguments %q (`%s -h` lists the flags)", pos, fs.Name())
	}
	return nil
}

// parseFlags parses args with fs, allowing flags before and after positional arguments
// ("--resume NAME --data FILE"), and returns the positional ones. A mistake comes back
// as one line (a usageError) naming the flag and, for a typo, the flag that was probably
// meant; -h and --help print the flags to stdout and return flag.ErrHelp.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, error) {
	// Nothing is printed while parsing: the one-line error below replaces the flag
	// package's message and flag dump.
	usage := fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	pos, err := parseInterleaved(fs, args)
	fs.Usage = usage
	if errors.Is(err, flag.ErrHelp) {
		if c, ok := stdout.(*flagCollector); ok {
			c.fs = fs // completion reads the flags (complete.go), prints nothing
			return nil, flag.ErrHelp
		}
		fs.SetOutput(stdout)
		if fs.Usage != nil {
			fs.Usage()
		} else {
			fs.PrintDefaults()
		}
		return nil, flag.ErrHelp
	}
	if err != nil {
		return nil, flagError(fs, err)
	}
	return pos, nil
}

// flagError turns one of the flag package's parse errors into a usageError that says
// which flag, what was wrong, and what to do.
func flagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	help := fmt.Sprintf("`%s -h` lists the flags", helpCommand(fs))
	if m := unknownFlagRe.FindStringSubmatch(msg); m != nil {
		name, _, _ := strings.Cut(m[1], "=")
		if near := nearestFlag(fs, name); near != "" {
			return usagef("unknown flag --%s: did you mean --%s? (%s)", name, near, help)
		}
		return usagef("unknown flag --%s (%s)", name, help)
	}
	if m := badValueRe.FindStringSubmatch(msg); m != nil {
		value, name := m[1], m[2]
		kind := valueKind(fs.Lookup(name))
		if why := msg[len(m[0]):]; kind == "a valid value" && why != "" {
			// A flag of its own kind (--seat NAME=PROFILE) says what it wants.
			return usagef("--%s: %s", name, why)
		}
		return usagef("--%s: %q is not %s", name, value, kind)
	}
	if m := needsArgRe.FindStringSubmatch(msg); m != nil {
		name := m[1]
		what := "a value"
		if f := fs.Lookup(name); f != nil {
			if n, _ := flag.UnquoteUsage(f); n != "" {
				what = "a " + n
			}
		}
		return usagef("--%s needs %s after it (%s)", name, what, help)
	}
	return usagef("%s (%s)", msg, help)
}

// helpCommand is how the person asks for this flag set's help: "coplay run".
func helpCommand(fs *flag.FlagSet) string {
	name := fs.Name()
	if name == "coplay" {
		return "coplay play" // `coplay -h` lists the commands; play's flags are play's
	}
	if strings.HasPrefix(name, "coplay") {
		return name
	}
	return "coplay " + name
}

// valueKind says what a flag's value must look like, from the flag's type.
func valueKind(f *flag.Flag) string {
	if f == nil {
		return "a valid value"
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return "a valid value"
	}
	switch g.Get().(type) {
	case bool:
		return "true or false"
	case int, int64, uint, uint64:
		return "a whole number"
	case float64:
		return "a number"
	case time.Duration:
		return "a duration such as 30s"
	}
	return "a valid value"
}

// nearestFlag returns the defined flags closest to name (a typo, a transposition, a
// prefix) as "a", "a or --b" or "a, --b or --c" (the caller writes the first "--"), or ""
// when none is close enough to suggest.
func nearestFlag(fs *flag.FlagSet, name string) string {
	var best []string
	bestD := 0
	fs.VisitAll(func(f *flag.Flag) {
		d := game.EditDistance(name, f.Name)
		if len(name) >= 3 && strings.HasPrefix(f.Name, name) {
			d = min(d, 1)
		}
		switch {
		case best == nil || d < bestD:
			best, bestD = []string{f.Name}, d
		case d == bestD:
			best = append(best, f.Name)
		}
	})
	if best == nil || bestD > max(1, len(name)/3) || len(best) > 3 {
		return ""
	}
	if len(best) == 1 {
		return best[0]
	}
	return strings.Join(best[:len(best)-1], ", --") + " or --" + best[len(best)-1]
}

// suggest returns the choice closest to s, or "" when none is close enough.
func suggest(s string, choices ...string) string {
	best, bestD := "", 0
	for _, c := range choices {
		d := game.EditDistance(strings.ToLower(s), c)
		if best == "" || d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" || bestD > max(1, len(s)/3) {
		return ""
	}
	return best
}

// didYouMean is " (did you mean X?)" when a choice is close to s, else "".
func didYouMean(s string, choices ...string) string {
	if near := suggest(s, choices...); near != "" {
		return " (did you mean " + near + "?)"
	}
	return ""
}
