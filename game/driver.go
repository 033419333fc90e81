package game

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Driver is one kind of game coplay can play. Each driver lives in its own package and
// registers itself from an init function with RegisterDriver; the program imports the
// package for that side effect. Adding a game is a new folder and one import.
type Driver struct {
	// Name is what --game takes, e.g. "universe", "spacetraders", "mcp".
	Name string
	// Summary is one line for `coplay help` and error messages.
	Summary string
	// Flags adds the driver's own flags to fs and returns how to open a game once fs
	// is parsed. Flags several drivers share (--base-url) are added with the Flag
	// helpers of this package (StringFlag, ...), which add a flag only once. Flags may
	// be nil for a driver with no flags.
	Flags func(fs *FlagSet) Opener
	// Saves says the driver's games save and restore their state with the session.
	Saves bool
	// Rewind, for an offline world whose saved state is the whole world, turns a state
	// saved `ago` in the past into one that restores the world as it stood then, its
	// clocks included (a ship in transit is still in transit, for the time it had left).
	// A fork (coplay --fork NAME@STEP) plays from it. nil: the world lives elsewhere
	// (a server), and a fork can only say that it has moved on.
	Rewind func(state []byte, ago time.Duration) ([]byte, error)
	// League, for a game whose world several seats can share, adds the driver's flags
	// (shared with Flags through the FlagSet) and returns how to open a league: see
	// league.go for the contract. nil: the game cannot host a league.
	League func(fs *FlagSet) LeagueOpener
}

// Opener opens a game with the flags the driver added, once they are parsed. It checks
// them first: a missing or bad flag or environment variable is an error that says which
// and what to do, before anything is started.
type Opener func(ctx context.Context, env Env) (*Opened, error)

// Env is what coplay gives a driver to open a game with.
type Env struct {
	// State is the session's saved game state; nil for a new game.
	State []byte
	// Resuming is set when an existing session is continued.
	Resuming bool
	// Dir is a directory where the driver may keep files (a server's log).
	Dir string
	// Getenv reads the environment (os.Getenv; tests give their own).
	Getenv func(string) string
	// ToolsOnly is set when the game is opened only to list its tools (`coplay tools`):
	// a driver may skip what playing needs and listing does not.
	ToolsOnly bool
	// CheckOnly asks the opener only to check its flags and environment and return
	// (nil, err): coplay does this before it opens the notebook, so that a mistake never
	// leaves a session behind.
	CheckOnly bool
	// Clock, for an offline world, is the clock to read (nil: the machine's): a fork
	// opens a rewound world on a HeldClock so that it stands still until observed.
	Clock Clock
	// Model is set when a model plays (not the autopilot, not a cassette): a game may
	// then offer it to its server (MCP sampling), each use approved by the person.
	Model bool
	// SeatStates, for a league being resumed (FlagSet.OpenLeague), is each seat's last
	// saved state by seat name; the newest is restored. OpenLeague hands a driver whose
	// seats save parts (League.Parts) every seat's part here, unwrapped.
	SeatStates map[string][]byte
	// MaxSeats, for a league, is the most seats OpenLeague takes; 0 is MaxSeats. A
	// served world (coplay serve) takes up to MaxServedSeats: its agents play elsewhere.
	MaxSeats int
}

// Opened is a game ready to play, and how to put it away.
type Opened struct {
	Game Game
	// Title names the game for the screen, e.g. "SpaceTraders (offline universe)".
	Title string
	// Save returns the game's state for the session; nil when the driver saves none.
	Save func() ([]byte, error)
	// Close releases the game (stops a server, closes connections); may be nil.
	Close func() error
	// Secrets are values the process holds that must never be shown, written or sent to
	// a model (tokens); coplay scrubs them from everything it emits.
	Secrets []string
}

var drivers = struct {
	sync.Mutex
	m map[string]Driver
}{m: map[string]Driver{}}

// RegisterDriver makes a driver available to --game. It panics on an empty or duplicate
// name, a programming error found at start-up.
func RegisterDriver(d Driver) {
	drivers.Lock()
	defer drivers.Unlock()
	if d.Name == "" {
		panic("game.RegisterDriver: driver has no name")
	}
	if _, dup := drivers.m[d.Name]; dup {
		panic(fmt.Sprintf("game.RegisterDriver: driver %q registered twice", d.Name))
	}
	drivers.m[d.Name] = d
}

// Drivers returns the registered drivers sorted by name.
func Drivers() []Driver {
	drivers.Lock()
	defer drivers.Unlock()
	out := make([]Driver, 0, len(drivers.m))
	for _, d := range drivers.m {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ErrUnknownDriver is wrapped by LookupDriver's error for a name no driver has.
var ErrUnknownDriver = errors.New("unknown game")

// LookupDriver returns the driver named name, or an error that lists the drivers and
// the closest name.
func LookupDriver(name string) (Driver, error) {
	drivers.Lock()
	d, ok := drivers.m[name]
	drivers.Unlock()
	if ok {
		return d, nil
	}
	var names []string
	for _, d := range Drivers() {
		names = append(names, d.Name)
	}
	msg := fmt.Sprintf("%q is not a game coplay knows (games: %s)", name, strings.Join(names, ", "))
	if near := Closest(name, names, 1); len(near) > 0 {
		msg += "; did you mean " + near[0] + "?"
	}
	return Driver{}, fmt.Errorf("%w: %s", ErrUnknownDriver, msg)
}

// FlagSet is a flag.FlagSet that remembers which driver added each flag, so that a
// flag given for another game than the one chosen is refused with a clear message.
type FlagSet struct {
	*flag.FlagSet
	owner   map[string][]string     // flag name -> drivers that use it
	current string                  // the driver whose Flags is running
	leagues map[string]LeagueOpener // driver name -> how to open its league
}

// NewFlagSet wraps fs for drivers to add their flags to.
func NewFlagSet(fs *flag.FlagSet) *FlagSet {
	return &FlagSet{FlagSet: fs, owner: map[string][]string{}, leagues: map[string]LeagueOpener{}}
}

// AddDrivers runs every registered driver's Flags on fs and returns their openers by
// driver name. It keeps the league openers of the drivers that have one, for
// OpenLeague.
func (fs *FlagSet) AddDrivers() map[string]Opener { return fs.AddDriversNamed() }

// AddDriversNamed is AddDrivers for the named drivers only (all when none is named), for
// a command that takes some games: the others' flags stay free for its own.
func (fs *FlagSet) AddDriversNamed(names ...string) map[string]Opener {
	out := map[string]Opener{}
	for _, d := range Drivers() {
		if len(names) > 0 && !slices.Contains(names, d.Name) {
			continue
		}
		fs.current = d.Name
		if d.Flags != nil {
			out[d.Name] = d.Flags(fs)
		} else {
			out[d.Name] = nil
		}
		if d.League != nil {
			fs.leagues[d.Name] = d.League(fs)
		}
		fs.current = ""
	}
	return out
}

// CheckSet returns an error naming the first flag that was set on the command line but
// belongs only to drivers other than game.
func (fs *FlagSet) CheckSet(game string) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		owners := fs.owner[f.Name]
		if err != nil || len(owners) == 0 {
			return
		}
		for _, o := range owners {
			if o == game {
				return
			}
		}
		err = fmt.Errorf("--%s is for --game %s, not --game %s", f.Name, strings.Join(owners, " or --game "), game)
	})
	return err
}

func (fs *FlagSet) own(name string) {
	if fs.current != "" && !slices.Contains(fs.owner[name], fs.current) {
		fs.owner[name] = append(fs.owner[name], fs.current)
	}
}

// StringFlag adds a string flag, or returns the one another driver already added under
// that name (the first usage text stays).
func (fs *FlagSet) StringFlag(name, value, usage string) *string {
	return addFlag(fs, name, value, usage, func(p *string) *stringValue { return (*stringValue)(p) })
}

// ListFlag adds a repeatable string flag (--observe A --observe B), or returns the one
// another driver already added under that name.
func (fs *FlagSet) ListFlag(name, usage string) *[]string {
	return addFlag(fs, name, nil, usage, func(p *[]string) *listValue { return (*listValue)(p) })
}

// Int64Flag adds an int64 flag, or returns the one another driver already added under
// that name (the first default and usage text stay).
func (fs *FlagSet) Int64Flag(name string, value int64, usage string) *int64 {
	return addFlag(fs, name, value, usage, func(p *int64) *int64Value { return (*int64Value)(p) })
}

// Float64Flag adds a float64 flag, or returns the one another driver already added
// under that name (the first default and usage text stay).
func (fs *FlagSet) Float64Flag(name string, value float64, usage string) *float64 {
	return addFlag(fs, name, value, usage, func(p *float64) *float64Value { return (*float64Value)(p) })
}

// BoolFlag adds a bool flag (--name alone sets it), or returns the one another driver
// already added under that name (the first default and usage text stay).
func (fs *FlagSet) BoolFlag(name string, value bool, usage string) *bool {
	return addFlag(fs, name, value, usage, func(p *bool) *boolValue { return (*boolValue)(p) })
}

// flagValue is a flag's value that hands back the variable it sets.
type flagValue[T any] interface {
	flag.Value
	target() *T
}

// addFlag adds the flag name, a variable of type T set through the flag.Value that as
// makes of it, or returns the variable of the one another driver already added under
// that name (the first default and usage text stay).
func addFlag[T any, V flagValue[T]](fs *FlagSet, name string, value T, usage string, as func(*T) V) *T {
	defer fs.own(name)
	if v, ok := sharedFlag[V](fs, name); ok {
		return v.target()
	}
	p := new(T)
	*p = value
	fs.Var(as(p), name, usage)
	return p
}

// sharedFlag returns the flag another driver already added under name, if any. It
// panics when that flag has another type than V, a programming error found at start-up.
func sharedFlag[V flag.Value](fs *FlagSet, name string) (V, bool) {
	var zero V
	f := fs.Lookup(name)
	if f == nil {
		return zero, false
	}
	v, ok := f.Value.(V)
	if !ok {
		panic(fmt.Sprintf("game.FlagSet: flag --%s added twice with different types", name))
	}
	return v, true
}

type stringValue string

func (s *stringValue) Set(v string) error { *s = stringValue(v); return nil }
func (s *stringValue) String() string     { return string(*s) }
func (s *stringValue) Get() any           { return string(*s) }
func (s *stringValue) target() *string    { return (*string)(s) }

type listValue []string

func (l *listValue) Set(v string) error { *l = append(*l, v); return nil }
func (l *listValue) String() string     { return strings.Join(*l, ",") }
func (l *listValue) target() *[]string  { return (*[]string)(l) }

type int64Value int64

func (i *int64Value) Set(v string) error {
	n, err := strconv.ParseInt(v, 0, 64)
	if err != nil {
		return numError(err)
	}
	*i = int64Value(n)
	return nil
}
func (i *int64Value) String() string { return strconv.FormatInt(int64(*i), 10) }
func (i *int64Value) Get() any       { return int64(*i) }
func (i *int64Value) target() *int64 { return (*int64)(i) }

type float64Value float64

func (f *float64Value) Set(v string) error {
	n, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return numError(err)
	}
	*f = float64Value(n)
	return nil
}
func (f *float64Value) String() string   { return strconv.FormatFloat(float64(*f), 'g', -1, 64) }
func (f *float64Value) Get() any         { return float64(*f) }
func (f *float64Value) target() *float64 { return (*float64)(f) }

type boolValue bool

func (b *boolValue) Set(v string) error {
	x, err := strconv.ParseBool(v)
	if err != nil {
		return errors.New("parse error")
	}
	*b = boolValue(x)
	return nil
}
func (b *boolValue) String() string   { return strconv.FormatBool(bool(*b)) }
func (b *boolValue) IsBoolFlag() bool { return true }
func (b *boolValue) Get() any         { return bool(*b) }
func (b *boolValue) target() *bool    { return (*bool)(b) }

// numError words a number that does not parse as package flag does ("parse error",
// "value out of range"), so messages about numeric flags read the same as before.
func numError(err error) error {
	if errors.Is(err, strconv.ErrRange) {
		return errors.New("value out of range")
	}
	return errors.New("parse error")
}

// FlagError is a mistake in a driver's flags (a bad value, a missing flag): coplay
// treats it as a mistake in the command line.
type FlagError struct{ Msg string }

// Error returns the message.
func (e *FlagError) Error() string { return e.Msg }

// FlagErrorf makes a FlagError.
func FlagErrorf(format string, a ...any) error { return &FlagError{Msg: fmt.Sprintf(format, a...)} }
