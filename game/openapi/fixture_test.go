package openapi

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/game"
)

func TestFixtureMultiFile31LoadsAndConverts(t *testing.T) {
	t.Parallel()
	g := mustOpen(t, Config{Spec: fixture("arena.yaml")})
	if got := g.Info(); got.Name != "openapi" || got.Title != "Arena" || !strings.Contains(got.Rules, "tiny turn-based arena") {
		t.Errorf("Info = %+v", got)
	}
	if !strings.Contains(g.Info().Rules, "1 operation of the API is not available") {
		t.Errorf("rules do not count the skipped operation:\n%s", g.Info().Rules)
	}
	skipped := g.Skipped()
	if len(skipped) != 1 || skipped[0].Name != "upload-avatar" || !strings.Contains(skipped[0].Reason, "request body is image/png") {
		t.Errorf("Skipped() = %q, want upload-avatar for its image/png body", skipped)
	}
	var names []string
	for _, tool := range g.Tools() {
		names = append(names, tool.Name+":"+tool.Kind.String())
	}
	want := []string{"get-player:read", "make-move:act", "send-message:act", "get_board:read", "board-history:read", "last_response:read"}
	if !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}

	// A path-level parameter from the other file.
	player := toolNamed(t, g, "get-player").Schema
	if p := player.Properties["name"]; p == nil || p.Type != "string" || !slices.Contains(player.Required, "name") {
		t.Errorf("get-player schema: %+v", player)
	}

	move := toolNamed(t, g, "make-move").Schema
	if got := move.PropertyOrder; !slices.Equal(got, []string{"name", "dryRun", "X-Request-Tag", "direction", "steps", "body_name", "note", "tags"}) {
		t.Errorf("make-move properties = %v (Authorization must be ignored, the body's name renamed)", got)
	}
	if got := move.Required; !slices.Equal(got, []string{"name", "direction", "steps"}) {
		t.Errorf("make-move required = %v", got)
	}
	if d := move.Properties["body_name"].Description; !strings.Contains(d, `renamed`) || !strings.Contains(d, "path") {
		t.Errorf("body_name description does not say why it was renamed: %q", d)
	}
	if d := move.Properties["direction"]; d.Type != "string" || len(d.Enum) != 4 || d.Description != "Which way to move." {
		t.Errorf("direction (a $ref inside the other file) = %+v", d)
	}
	if s := move.Properties["steps"]; s.Minimum == nil || *s.Minimum != 1 || s.Maximum == nil || *s.Maximum != 5 {
		t.Errorf("steps bounds = %+v", s)
	}
	if n := move.Properties["note"]; !slices.Equal(n.Types, []string{"string", "null"}) {
		t.Errorf("note types = %v, want string or null", n.Types)
	}

	for _, tc := range []struct {
		args string
		want []string // substrings of the problems; none means valid
	}{
		{`{"name":"ann","direction":"NORTH","steps":2,"note":null}`, nil},
		{`{"name":"ann","direction":"NORTH","steps":2,"note":"fast","body_name":"dash","tags":["a"]}`, nil},
		{`{"name":"ann","direction":"north","steps":9,"note":5}`, []string{"did you mean NORTH", "arguments.steps: expected a number ≤ 5", "arguments.note: expected a string or null, got number 5"}},
		{`{"direction":"NORTH","steps":1}`, []string{"arguments.name: expected required a string"}},
		{`{"name":"ann","direction":"NORTH","steps":1,"tags":["a","b","c","d"]}`, []string{"at most 3 items"}},
		{`{"name":"ann","direction":"NORTH","steps":1,"Authorization":"x"}`, []string{`no property "Authorization"`}},
	} {
		err := game.Validate("make-move", move, json.RawMessage(tc.args))
		if len(tc.want) == 0 {
			if err != nil {
				t.Errorf("%s: %v", tc.args, err)
			}
			continue
		}
		text := problemsText(validationProblems(t, err))
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: problems lack %q:\n%s", tc.args, w, text)
			}
		}
	}

	msg := toolNamed(t, g, "send-message").Schema
	if !slices.Equal(msg.Required, []string{"to", "text"}) || msg.Properties["text"].MaxLength == nil {
		t.Errorf("send-message (a form body) = required %v, text %+v", msg.Required, msg.Properties["text"])
	}
	board := toolNamed(t, g, "get_board").Schema
	if len(board.Required) != 0 || len(board.Properties["format"].Enum) != 2 {
		t.Errorf("get_board = %+v", board)
	}
	history := toolNamed(t, g, "board-history").Schema
	if f := history.Properties["since"]; f.Format != "date-time" {
		t.Errorf("since format = %q", f.Format)
	}
	if f := history.Properties["minScore"]; f.ExclusiveMinimum == nil || *f.ExclusiveMinimum != 0 || f.Minimum != nil {
		t.Errorf("minScore = %+v, want exclusiveMinimum 0", f)
	}
	err := game.Validate("board-history", history, json.RawMessage(`{"since":"2026-01-01T00:00:00Z","minScore":0}`))
	if err == nil || !strings.Contains(err.Error(), "a number > 0") {
		t.Errorf("minScore 0: %v", err)
	}
}

func TestFixture30NullableAndRecursion(t *testing.T) {
	t.Parallel()
	g := mustOpen(t, Config{Spec: fixture("arena30.yaml"), BaseURL: "http://127.0.0.1:9"})
	edit := toolNamed(t, g, "edit-note")
	s := edit.Schema
	if id := s.Properties["id"]; id.Type != "integer" || id.Minimum == nil {
		t.Errorf("id = %+v", id)
	}
	if title := s.Properties["title"]; !slices.Equal(title.Types, []string{"string", "null"}) {
		t.Errorf("nullable title types = %v", title.Types)
	}
	tree := s.Properties["tree"]
	if tree == nil || tree.Properties["children"] == nil || tree.Properties["children"].Items == nil {
		t.Fatalf("tree = %+v", tree)
	}
	if d := tree.Properties["children"].Items.Description; !strings.Contains(d, "nested again") {
		t.Errorf("the recursive Node is not cut where it recurs: %q", d)
	}
	for args, ok := range map[string]bool{
		`{"id":1,"title":null}`:             true,
		`{"id":1,"title":"x","priority":2}`: true,
		`{"id":1,"priority":4}`:             false,
		`{"id":0}`:                          false,
		`{"id":1,"tree":{"label":"a","children":[{"label":"b"}]}}`:  true,
		`{"id":1,"tree":{"children":[]}}`:                           false,
		`{"id":"1"}`:                                                false,
		`{"id":1,"tree":{"label":"a","children":[{"anything":1}]}}`: true,
	} {
		err := game.Validate("edit-note", s, json.RawMessage(args))
		if (err == nil) != ok {
			t.Errorf("%s: valid %v, want %v (%v)", args, err == nil, ok, err)
		}
	}
}

func TestBrokenSpecsGiveClearErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	swagger := filepath.Join(dir, "swagger.json")
	if err := os.WriteFile(swagger, []byte(`{"swagger":"2.0","info":{"title":"old","version":"1"},"paths":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	noOps := filepath.Join(dir, "empty.yaml")
	if err := os.WriteFile(noOps, []byte("openapi: 3.1.0\ninfo: {title: empty, version: '1'}\nservers: [{url: 'http://127.0.0.1:9'}]\npaths: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cfg  Config
		want []string
	}{
		{"syntax", Config{Spec: fixture("broken-syntax.yaml")}, []string{"broken-syntax.yaml", "does not load", "L8"}},
		{"missing ref", Config{Spec: fixture("broken-ref.yaml")}, []string{"broken-ref.yaml", "does not exist", "missing.yaml#/components/parameters/Nope", "line 10"}},
		{"no file", Config{Spec: fixture("nope.yaml")}, []string{"nope.yaml", "no such file"}},
		{"no spec", Config{}, []string{"no spec file"}},
		{"swagger 2", Config{Spec: swagger}, []string{"swagger.json", "OpenAPI 3"}},
		{"no operations", Config{Spec: noOps}, []string{"no operation that can be a tool"}},
		{"no server", Config{Spec: fixture("arena30.yaml")}, []string{"no base URL"}},
		{"bad base URL", Config{Spec: fixture("arena30.yaml"), BaseURL: "127.0.0.1:8080"}, []string{"not an absolute http or https URL"}},
		{"catalogue", Config{Spec: fixture("arena.yaml"), Catalog: "tags"}, []string{`unknown catalogue "tags"`}},
		{"token", Config{Spec: fixture("arena.yaml"), TokenEnv: "COPLAY_TEST_SURELY_UNSET_TOKEN"}, []string{"COPLAY_TEST_SURELY_UNSET_TOKEN", "not set"}},
		{"observe unknown", Config{Spec: fixture("arena.yaml"), Observe: []string{"get-players"}}, []string{"cannot observe get-players", "did you mean get-player"}},
		{"observe needs args", Config{Spec: fixture("arena.yaml"), Observe: []string{"get-player"}}, []string{"cannot observe get-player", "needs name"}},
		{"observe action", Config{Spec: fixture("arena.yaml"), Observe: []string{"make-move"}}, []string{"cannot observe make-move", "POST"}},
		{"observe skipped", Config{Spec: fixture("arena.yaml"), Observe: []string{"upload-avatar"}}, []string{"cannot observe upload-avatar", "image/png"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := Open(context.Background(), tc.cfg)
			if err == nil {
				t.Fatalf("Open succeeded with %d tools", len(g.Tools()))
			}
			t.Logf("%v", err)
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}
