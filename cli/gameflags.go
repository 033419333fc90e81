package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/coplayhq/coplay/game"
)

// gameFlags are the game drivers' options (game.Option, declared as data by each
// driver) as the flags of one command: one flag a name, whichever drivers declare it,
// with the help of the first driver by name.
type gameFlags struct {
	fs     *pflag.FlagSet
	kinds  map[string]game.OptionKind
	owners map[string][]string // flag name -> the drivers that declare it
}

// addGameFlags adds every driver's options to fs as flags, or only the named drivers'
// (a command that takes some games, whose other flags must stay free: coplay serve's
// --mcp is not the mcp driver's).
func addGameFlags(fs *pflag.FlagSet, only ...string) *gameFlags {
	g := &gameFlags{fs: fs, kinds: map[string]game.OptionKind{}, owners: map[string][]string{}}
	for _, d := range game.Drivers() {
		if len(only) > 0 && !slices.Contains(only, d.Name) {
			continue
		}
		for _, opt := range d.Options {
			g.owners[opt.Name] = append(g.owners[opt.Name], d.Name)
			if _, added := g.kinds[opt.Name]; added {
				continue // another driver's, of the same kind (game.RegisterDriver checks)
			}
			if fs.Lookup(opt.Name) != nil {
				panic(fmt.Sprintf("cli: driver %s's option --%s is a flag of coplay's own", d.Name, opt.Name))
			}
			g.kinds[opt.Name] = opt.Kind
			addOption(fs, opt)
		}
	}
	return g
}

// addOption adds opt to fs as a flag of its kind.
func addOption(fs *pflag.FlagSet, opt game.Option) {
	switch def := opt.DefaultValue(); opt.Kind {
	case game.OptionInt:
		fs.Int64(opt.Name, def.(int64), opt.Usage)
	case game.OptionFloat:
		fs.Float64(opt.Name, def.(float64), opt.Usage)
	case game.OptionBool:
		fs.Bool(opt.Name, def.(bool), opt.Usage)
	case game.OptionDuration:
		fs.Duration(opt.Name, def.(time.Duration), opt.Usage)
	case game.OptionList:
		// Each value whole: a header holds commas ('Accept: a, b').
		fs.StringArray(opt.Name, nil, opt.Usage)
	default:
		fs.String(opt.Name, def.(string), opt.Usage)
	}
	if len(opt.Enum) > 0 {
		_ = fs.SetAnnotation(opt.Name, valuesKey, opt.Enum) // the flag was just added
	}
}

// values are the options the command line gave (a flag set by the config file counts:
// applyConfig sets it), each of its kind's type; the driver's defaults fill the rest
// (game.Open).
func (g *gameFlags) values() game.Values {
	out := game.Values{}
	for name, kind := range g.kinds {
		f := g.fs.Lookup(name)
		if !f.Changed {
			continue
		}
		var v any
		var err error
		switch kind {
		case game.OptionInt:
			v, err = g.fs.GetInt64(name)
		case game.OptionFloat:
			v, err = g.fs.GetFloat64(name)
		case game.OptionBool:
			v, err = g.fs.GetBool(name)
		case game.OptionDuration:
			v, err = g.fs.GetDuration(name)
		case game.OptionList:
			v, err = g.fs.GetStringArray(name)
		default:
			v, err = g.fs.GetString(name)
		}
		if err != nil {
			panic(fmt.Sprintf("cli: reading --%s: %v", name, err)) // added by addOption as its kind
		}
		out[name] = v
	}
	return out
}

// openers are how each driver opens its game with the options given, by driver name.
func (g *gameFlags) openers() map[string]game.Opener {
	out := map[string]game.Opener{}
	for _, d := range game.Drivers() {
		if d.Open == nil {
			continue
		}
		name := d.Name
		out[name] = func(ctx context.Context, env game.Env) (*game.Opened, error) {
			env.Options = g.values()
			return game.Open(ctx, name, env)
		}
	}
	return out
}

// OpenLeague opens the named driver's league with the options given (game.OpenLeague).
func (g *gameFlags) OpenLeague(ctx context.Context, driver string, env game.Env, seats []string) (*game.League, error) {
	env.Options = g.values()
	return game.OpenLeague(ctx, driver, env, seats)
}

// CheckSet returns an error naming the first flag (by name) that the command line set
// and that only drivers other than gameName take.
func (g *gameFlags) CheckSet(gameName string) error {
	var err error
	g.fs.Visit(func(f *pflag.Flag) {
		owners := g.owners[f.Name]
		if err != nil || len(owners) == 0 || slices.Contains(owners, gameName) {
			return
		}
		err = fmt.Errorf("--%s is for --game %s, not --game %s", f.Name, strings.Join(owners, " or --game "), gameName)
	})
	return err
}

// given is the value of the driver flag name as the command line gave it, if it did.
func (g *gameFlags) given(name string) (string, bool) {
	if _, ok := g.kinds[name]; !ok {
		return "", false
	}
	f := g.fs.Lookup(name)
	return f.Value.String(), f.Changed
}

// Lookup is the driver flag name, or nil.
func (g *gameFlags) Lookup(name string) *pflag.Flag {
	if _, ok := g.kinds[name]; !ok {
		return nil
	}
	return g.fs.Lookup(name)
}
