package game

import (
	"context"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
)

func TestDriversShareFlagsAndRefuseOthers(t *testing.T) {
	var gotA, gotB *string
	RegisterDriver(Driver{Name: "test-a", Summary: "a", Flags: func(fs *FlagSet) Opener {
		gotA = fs.StringFlag("test-url", "", "server URL")
		only := fs.StringFlag("test-only-a", "", "a's own")
		return func(context.Context, Env) (*Opened, error) {
			if *only == "bad" {
				return nil, errors.New("--test-only-a must not be bad")
			}
			return &Opened{Title: "A at " + *gotA}, nil
		}
	}})
	RegisterDriver(Driver{Name: "test-b", Summary: "b", Flags: func(fs *FlagSet) Opener {
		gotB = fs.StringFlag("test-url", "", "server URL")
		return nil
	}})
	std := flag.NewFlagSet("t", flag.ContinueOnError)
	std.SetOutput(io.Discard)
	fs := NewFlagSet(std)
	openers := fs.AddDrivers()
	if err := fs.Parse([]string{"--test-url", "http://x", "--test-only-a", "ok"}); err != nil {
		t.Fatal(err)
	}
	if gotA != gotB || *gotA != "http://x" {
		t.Fatalf("shared flag not shared: %v %v", gotA, gotB)
	}
	if err := fs.CheckSet("test-a"); err != nil {
		t.Fatalf("CheckSet(test-a) = %v", err)
	}
	err := fs.CheckSet("test-b")
	if err == nil || !strings.Contains(err.Error(), "--test-only-a is for --game test-a, not --game test-b") {
		t.Fatalf("CheckSet(test-b) = %v", err)
	}
	o, err := openers["test-a"](context.Background(), Env{})
	if err != nil || o.Title != "A at http://x" {
		t.Fatalf("open = %+v, %v", o, err)
	}
}

func TestLookupDriverSuggests(t *testing.T) {
	RegisterDriver(Driver{Name: "test-universe"})
	_, err := LookupDriver("test-univers")
	if !errors.Is(err, ErrUnknownDriver) || !strings.Contains(err.Error(), "did you mean test-universe?") {
		t.Fatalf("LookupDriver = %v", err)
	}
	if d, err := LookupDriver("test-universe"); err != nil || d.Name != "test-universe" {
		t.Fatalf("LookupDriver(test-universe) = %+v, %v", d, err)
	}
}

// Numeric and bool flags are shared like string flags: a second driver gets the same
// variable, the first default and usage stay, and a type mismatch is a programming error.
func TestDriversShareNumericAndBoolFlags(t *testing.T) {
	std := flag.NewFlagSet("t", flag.ContinueOnError)
	std.SetOutput(io.Discard)
	fs := NewFlagSet(std)
	fs.current = "one"
	seedA := fs.Int64Flag("seed", 1, "seed")
	speedA := fs.Float64Flag("speed", 0, "speed")
	quietA := fs.BoolFlag("quiet", false, "quiet")
	fs.current = "two"
	seedB := fs.Int64Flag("seed", 1, "seed")
	speedB := fs.Float64Flag("speed", 0, "speed")
	quietB := fs.BoolFlag("quiet", false, "quiet")
	fs.current = ""
	if seedA != seedB || speedA != speedB || quietA != quietB {
		t.Fatal("a flag added twice is not shared")
	}
	if err := fs.Parse([]string{"--seed", "42", "--speed", "2.5", "--quiet"}); err != nil {
		t.Fatal(err)
	}
	if *seedB != 42 || *speedB != 2.5 || !*quietB {
		t.Fatalf("parsed seed %d speed %v quiet %v", *seedB, *speedB, *quietB)
	}
	for _, game := range []string{"one", "two"} {
		if err := fs.CheckSet(game); err != nil {
			t.Errorf("CheckSet(%s) = %v", game, err)
		}
	}
	if err := fs.CheckSet("three"); err == nil || !strings.Contains(err.Error(), "--game one or --game two") {
		t.Errorf("CheckSet(three) = %v", err)
	}
	// What the command line reads to say what a flag takes ("a whole number").
	for name, want := range map[string]any{"seed": int64(42), "speed": 2.5, "quiet": true} {
		if g, ok := fs.Lookup(name).Value.(flag.Getter); !ok || g.Get() != want {
			t.Errorf("--%s: Get() = %v, want %v", name, g, want)
		}
	}
	if err := fs.Parse([]string{"--seed", "x"}); err == nil || !strings.Contains(err.Error(), `invalid value "x" for flag -seed: parse error`) {
		t.Errorf("a bad number: %v", err)
	}
	for name, add := range map[string]func(){
		"seed":  func() { fs.Float64Flag("seed", 1, "") },
		"speed": func() { fs.BoolFlag("speed", false, "") },
		"quiet": func() { fs.Int64Flag("quiet", 0, "") },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "--"+name+" added twice with different types") {
					t.Errorf("--%s with another type: recovered %v", name, r)
				}
			}()
			add()
		}()
	}
}
