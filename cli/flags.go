package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/coplayhq/coplay/game"
)

// usageError is a mistake in how coplay was called (an unknown flag, a bad value, an
// argument too many). It exits with status 2; every other failure exits with 1.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// usagef makes a usageError.
func usagef(format string, a ...any) error {
	return &usageError{msg: fmt.Sprintf(format, a...)}
}

// flagError turns pflag's parse error into a usageError of one line that says which
// flag, what was wrong, and what to do (cobra's FlagErrorFunc for every command).
// pflag's errors are typed: the flag and the value are read from them, not from text.
func flagError(cmd *cobra.Command, err error) error {
	help := fmt.Sprintf("`%s -h` lists the flags", cmd.CommandPath())
	var unknown *pflag.NotExistError
	var invalid *pflag.InvalidValueError
	var missing *pflag.ValueRequiredError
	switch {
	case errors.As(err, &unknown):
		name, dash := unknown.GetSpecifiedName(), "--"
		if unknown.GetSpecifiedShortnames() != "" {
			dash = "-"
		}
		if near := nearestFlag(cmd.Flags(), name); near != "" {
			return usagef("unknown flag %s%s: did you mean --%s? (%s)", dash, name, near, help)
		}
		return usagef("unknown flag %s%s (%s)", dash, name, help)
	case errors.As(err, &invalid):
		f := invalid.GetFlag()
		if kind := valueKind(f); kind != "" {
			return usagef("--%s: %q is not %s", f.Name, invalid.GetValue(), kind)
		}
		// A flag of its own kind (--seat NAME=PROFILE) says what it wants.
		return usagef("--%s: %v", f.Name, errors.Unwrap(invalid))
	case errors.As(err, &missing):
		f, what := missing.GetFlag(), "a value"
		if n, _ := pflag.UnquoteUsage(f); n != "" {
			what = "a " + n
		}
		return usagef("--%s needs %s after it (%s)", f.Name, what, help)
	}
	return usagef("%v (%s)", err, help)
}

// noArgs refuses positional arguments to a command that takes flags only.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("unexpected arguments %q (`%s -h` lists the flags)", args, cmd.CommandPath())
	}
	return nil
}

// valueKind says what a flag's value must look like, from the flag's type; "" for a
// type that says it itself.
func valueKind(f *pflag.Flag) string {
	switch f.Value.Type() {
	case "bool":
		return "true or false"
	case "int", "int64", "int32", "uint", "uint64":
		return "a whole number"
	case "float64", "float32":
		return "a number"
	case "duration":
		return "a duration such as 30s"
	}
	return ""
}

// nearestFlag returns the defined flags closest to name (a typo, a transposition, a
// prefix) as "a", "a or --b" or "a, --b or --c" (the caller writes the first "--"), or ""
// when none is close enough to suggest.
func nearestFlag(fs *pflag.FlagSet, name string) string {
	var names []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	near := game.Closest(name, names, 3)
	if len(near) == 0 {
		return ""
	}
	return orList(near, "--")
}

// didYouMean is " (did you mean X?)" when a choice is close to s, else "": coplay's
// one "did you mean", game.Closest, in the words of a command-line message.
func didYouMean(s string, choices ...string) string {
	if near := game.Closest(s, choices, 3); len(near) > 0 {
		return " (did you mean " + orList(near, "") + "?)"
	}
	return ""
}

// orList is "a", "a or PREFIXb" or "a, PREFIXb or PREFIXc".
func orList(words []string, prefix string) string {
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", "+prefix) + " or " + prefix + words[len(words)-1]
}

// isSingleDashLong reports whether a is a long flag written with one dash, as Go's flag
// package took it (-game, -data=x.db): a letter, then letters, digits or dashes. A
// negative number (-1) and a lone shorthand (-o) are not.
func isSingleDashLong(a string) bool {
	name, _, _ := strings.Cut(a, "=")
	if len(name) < 3 || name[0] != '-' || !isLetter(name[1]) {
		return false
	}
	for _, c := range []byte(name[2:]) {
		if !isLetter(c) && !(c >= '0' && c <= '9') && c != '-' {
			return false
		}
	}
	return true
}

// isLetter reports whether c is an ASCII letter.
func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// normalizeFlags makes every long flag written with one dash in args a double-dash
// one, so that command lines written for Go's flag package (`coplay -game arena`) work
// as they did: pflag would read -game as the shorthands -g -a -m -e. A flag's value is
// left alone (--model -x is the model "-x"), as is everything after "--". cmd is the
// command args run, whose flags say which take a value.
func normalizeFlags(cmd *cobra.Command, args []string) []string {
	out := make([]string, 0, len(args))
	flags := pflag.NewFlagSet(cmd.Name(), pflag.ContinueOnError)
	flags.AddFlagSet(cmd.Flags())
	flags.AddFlagSet(cmd.InheritedFlags())
	for i := 0; i < len(args); i++ {
		a := args[i]
		out = append(out, a)
		switch {
		case a == "--":
			return append(out, args[i+1:]...)
		case a == "--h":
			out[len(out)-1] = "-h"
			continue
		case isSingleDashLong(a):
			a = "-" + a
			out[len(out)-1] = a
		case !strings.HasPrefix(a, "-"):
			continue
		}
		name, _, inline := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := flags.Lookup(name)
		if f == nil && !strings.HasPrefix(a, "--") {
			f = flags.ShorthandLookup(name)
		}
		if f != nil && !inline && f.NoOptDefVal == "" && i+1 < len(args) {
			i++
			out = append(out, args[i]) // the flag's value, whatever it looks like
		}
	}
	return out
}
