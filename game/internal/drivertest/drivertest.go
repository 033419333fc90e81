// Package drivertest helps the tests of game drivers: it encodes a tool call's
// arguments.
package drivertest

import (
	"encoding/json"
	"testing"
)

// Args encodes v as a tool call's arguments; a value that does not encode fails the test.
func Args(t testing.TB, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
