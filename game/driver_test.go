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
