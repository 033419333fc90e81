package openapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/coplayhq/coplay/game"
)

// FuzzSummarize: any body gives a summary within the limit, valid JSON when the body
// was JSON and nothing was cut to fit, and never a panic.
func FuzzSummarize(f *testing.F) {
	for _, seed := range []string{`{"a":[1,2,3]}`, `[]`, `"x"`, `{"a":{"b":{"c":"` + strings.Repeat("é", 300) + `"}}}`, "not json", "", `{"a":1} trailing`} {
		f.Add([]byte(seed), 64)
	}
	f.Fuzz(func(t *testing.T, body []byte, limit int) {
		limit = 16 + abs(limit)%4096
		out, _ := summarize(body, limit)
		if len(out) > limit {
			t.Fatalf("summary of %d bytes over the limit %d", len(out), limit)
		}
		if utf8.Valid(body) && !utf8.ValidString(out) {
			t.Fatalf("summary of valid UTF-8 is not: %q", out)
		}
	})
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// FuzzCall: any arguments to any tool of the arena end in a validation error, a result
// or an error, never a panic; and a request reaches the server only with arguments
// that pass the tool's schema and checks.
func FuzzCall(f *testing.F) {
	for _, seed := range []string{`{"name":"ann","direction":"NORTH","steps":2}`, `{"name":"../x"}`, `{"to":"a","text":"b"}`,
		`{"limit":5}`, `{"tool":"get_board","offset":3}`, `{"since":"x","minScore":1e400}`, `[]`, `null`, `{"name":["a",{"b":1}]}`} {
		for i := range 6 {
			f.Add(i, seed)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"data":{"ok":true}}`))
	}))
	f.Cleanup(srv.Close)
	g, err := Open(context.Background(), Config{Spec: fixture("arena.yaml"), BaseURL: srv.URL + "/api"})
	if err != nil {
		f.Fatal(err)
	}
	tools := g.Tools()
	f.Fuzz(func(t *testing.T, i int, args string) {
		tool := tools[abs(i)%len(tools)]
		res, err := g.Call(context.Background(), tool.Name, json.RawMessage(args))
		valid := game.Validate(tool.Name, tool.Schema, json.RawMessage(args)) == nil && (tool.Check == nil || len(tool.Check(json.RawMessage(args))) == 0)
		if !valid && err == nil {
			t.Fatalf("%s %s: invalid arguments were run: %+v", tool.Name, args, res)
		}
	})
}
