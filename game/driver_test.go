package game

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Open hands a driver every option it declares: the ones given, the others at their
// default; an option of another driver is not its business, and a value of the wrong
// type is the caller's mistake.
func TestOpenCompletesTheOptions(t *testing.T) {
	var got Values
	RegisterDriver(Driver{Name: "test-a", Summary: "a",
		Options: []Option{
			{Name: "test-url", Kind: OptionString, Default: "http://default", Usage: "server `URL`"},
			{Name: "test-seed", Kind: OptionInt, Default: int64(1)},
			{Name: "test-loud", Kind: OptionBool},
			{Name: "test-wait", Kind: OptionDuration, Default: time.Second},
			{Name: "test-watch", Kind: OptionList},
		},
		Open: func(_ context.Context, env Env) (*Opened, error) {
			got = env.Options
			return &Opened{Title: "A at " + env.Options.String("test-url")}, nil
		}})
	o, err := Open(context.Background(), "test-a", Env{Options: Values{"test-seed": int64(7), "test-watch": []string{"x", "y"}, "test-only-b": "z"}})
	if err != nil || o.Title != "A at http://default" {
		t.Fatalf("Open = %+v, %v", o, err)
	}
	if got.Int("test-seed") != 7 || got.Bool("test-loud") || got.Duration("test-wait") != time.Second || strings.Join(got.List("test-watch"), ",") != "x,y" {
		t.Errorf("the driver saw %v", got)
	}
	if _, ok := got["test-only-b"]; ok {
		t.Errorf("the driver saw another driver's option: %v", got)
	}
	if _, err := Open(context.Background(), "test-a", Env{Options: Values{"test-seed": 7}}); err == nil || !strings.Contains(err.Error(), "--test-seed") {
		t.Errorf("an int for an int64 option: %v", err)
	}
	if _, err := Open(context.Background(), "test-nosuch", Env{}); !errors.Is(err, ErrUnknownDriver) {
		t.Errorf("an unknown driver: %v", err)
	}
}

// A bad option declaration is a programming error found at start-up: RegisterDriver
// panics, naming it. Drivers may share a name only with one kind.
func TestRegisterDriverRefusesBadOptions(t *testing.T) {
	RegisterDriver(Driver{Name: "test-one", Options: []Option{{Name: "test-shared", Kind: OptionInt}}})
	RegisterDriver(Driver{Name: "test-two", Options: []Option{{Name: "test-shared", Kind: OptionInt, Default: int64(3)}}})
	for want, opts := range map[string][]Option{
		"kind int for test-one, float for": {{Name: "test-shared", Kind: OptionFloat}},
		"cannot default to int":            {{Name: "test-n", Kind: OptionInt, Default: 3}},
		"declared twice":                   {{Name: "test-d"}, {Name: "test-d"}},
		"without dashes":                   {{Name: "--test-x"}},
		"only a string or a list":          {{Name: "test-e", Kind: OptionBool, Enum: []string{"yes"}}},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), want) {
					t.Errorf("%q: recovered %v", want, r)
				}
			}()
			RegisterDriver(Driver{Name: "test-bad-" + want, Options: opts})
		}()
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
