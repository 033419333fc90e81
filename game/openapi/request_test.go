package openapi

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestBadPathSegments(t *testing.T) {
	t.Parallel()
	for v, bad := range map[string]bool{"": true, ".": true, "..": true, "a/b": true, "a?b": true, "a#b": true, "5%": true,
		"X1-DF55-A2": false, "a b": false, "...": false, "ünï": false} {
		if got := badSegment(v) != ""; got != bad {
			t.Errorf("badSegment(%q) = %q, want bad %v", v, badSegment(v), bad)
		}
	}
}

// newRequest refuses a bad path segment even when called without validation first.
func TestNewRequestRefusesBadPathSegments(t *testing.T) {
	t.Parallel()
	g := mustOpen(t, Config{Spec: fixture("arena.yaml")})
	op := g.opTools["get-player"]
	for _, v := range []string{"..", "a/b", ""} {
		if _, err := op.newRequest(context.Background(), "http://127.0.0.1:9/api", map[string]any{"name": v}); err == nil || !strings.Contains(err.Error(), "refused") {
			t.Errorf("name %q: %v", v, err)
		}
	}
	req, err := op.newRequest(context.Background(), "http://127.0.0.1:9/api/", map[string]any{"name": "é x"})
	if err != nil || req.URL.EscapedPath() != "/api/players/%C3%A9%20x" {
		t.Errorf("escaped path = %v, %v", req.URL, err)
	}
}

func TestQueryArraysAndNumbers(t *testing.T) {
	t.Parallel()
	op := &operation{Method: "GET", Path: "/x", Fields: []field{
		{Name: "ids", Orig: "ids", In: inQuery, Explode: true},
		{Name: "tags", Orig: "tags", In: inQuery},
		{Name: "n", Orig: "n", In: inQuery},
		{Name: "filter", Orig: "filter", In: inQuery},
	}}
	args, err := decodeArgs(json.RawMessage(`{"ids":[1,2],"tags":["a","b"],"n":12345678901234567890,"filter":{"b":"2","a":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	req, err := op.newRequest(context.Background(), "http://127.0.0.1:9", args)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := req.URL.RawQuery, "filter%5Ba%5D=1&filter%5Bb%5D=2&ids=1&ids=2&n=12345678901234567890&tags=a%2Cb"; got != want {
		t.Errorf("query = %s, want %s", got, want)
	}
}
