package game

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// Each format refuses what it does not describe, with a path error like any other
// schema problem, and takes what it does; an unknown format stays an annotation.
func TestFormatsAreChecked(t *testing.T) {
	schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"at":    {Type: "string", Format: "date-time"},
		"day":   {Type: "string", Format: "date"},
		"clock": {Type: "string", Format: "time"},
		"mail":  {Type: "string", Format: "email"},
		"id":    {Type: "string", Format: "uuid"},
		"link":  {Type: "string", Format: "uri"},
		"small": {Type: "integer", Format: "int32"},
		"big":   {Type: "integer", Format: "int64"},
		"other": {Type: "string", Format: "hostname-of-my-own"},
		"list":  {Type: "array", Items: &jsonschema.Schema{Type: "string", Format: "uuid"}},
	}}
	good := `{"at":"2026-01-02T15:04:05Z","day":"2026-01-02","clock":"15:04:05+02:00","mail":"a@example.com",
		"id":"123e4567-e89b-12d3-a456-426614174000","link":"https://example.com/x?y=1","small":2147483647,
		"big":-9223372036854775808,"other":"anything","list":["123E4567-E89B-12D3-A456-426614174000"]}`
	if err := Validate("t", schema, json.RawMessage(good)); err != nil {
		t.Fatalf("good values refused: %v", err)
	}
	for _, at := range []string{"2026-01-02t15:04:05.5+01:00", "2026-01-02 15:04:05Z"} {
		if err := Validate("t", schema, json.RawMessage(`{"at":"`+at+`"}`)); err != nil {
			t.Errorf("%s refused: %v", at, err)
		}
	}
	bad := map[string]string{
		`{"at":"tomorrow at noon"}`:        `arguments.at: expected a date-time (RFC 3339, like 2026-01-02T15:04:05Z), got string "tomorrow at noon"`,
		`{"at":"2026-01-02T15:04:05"}`:     `arguments.at: expected a date-time`,
		`{"day":"2026-02-30"}`:             `arguments.day: expected a date (RFC 3339 full-date, like 2026-01-02), got string "2026-02-30"`,
		`{"day":"2026-1-2"}`:               `arguments.day: expected a date`,
		`{"clock":"25:00:00"}`:             `arguments.clock: expected a time (like 15:04:05 or 15:04:05Z), got string "25:00:00"`,
		`{"mail":"not an address"}`:        `arguments.mail: expected an email address`,
		`{"mail":"Bob <bob@example.com>"}`: `arguments.mail: expected an email address`,
		`{"id":"123e4567"}`:                `arguments.id: expected a UUID`,
		`{"link":"/relative/path"}`:        `arguments.link: expected an absolute URI`,
		`{"small":2147483648}`:             `arguments.small: expected a whole number from -2147483648 to 2147483647 (int32), got 2147483648`,
		`{"big":9223372036854775808}`:      `arguments.big: expected a whole number from -9223372036854775808 to 9223372036854775807 (int64), got 9223372036854775808`,
		`{"list":["x"]}`:                   `arguments.list[0]: expected a UUID`,
	}
	for args, want := range bad {
		err := Validate("t", schema, json.RawMessage(args))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want a problem starting %q", args, err, want)
		}
	}
}
