package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/openapi"
)

// plainGame is a game that says nothing of what it skips.
type plainGame struct{}

func (plainGame) Info() game.Info                                   { return game.Info{Name: "plain"} }
func (plainGame) Tools() []game.Tool                                { return nil }
func (plainGame) Observe(context.Context) (game.Observation, error) { return game.Observation{}, nil }
func (plainGame) Call(context.Context, string, json.RawMessage) (game.Result, error) {
	return game.Result{}, nil
}

// skippingGame skips what it is given.
type skippingGame struct {
	plainGame
	skipped []game.Skipped
}

func (g skippingGame) Skipped() []game.Skipped { return g.skipped }

// uploadsSkipped is what testdata/openapi/uploads.yaml cannot make tools of.
var uploadsSkipped = []game.Skipped{
	{Name: "uploadAvatar", Reason: "file field file is required, and file uploads are not supported"},
	{Name: "PUT /replays/{id}", Reason: "request body is application/octet-stream; only JSON, form (url-encoded or multipart) and text bodies can be sent, not files"},
	{Name: "brokenPath", Reason: "path parameter {x} is not declared in parameters"},
}

func TestSkippedLine(t *testing.T) {
	t.Parallel()
	if got := skippedLine(plainGame{}); got != "" {
		t.Errorf("a game that is no Skipper: %q", got)
	}
	if got := skippedLine(skippingGame{}); got != "" {
		t.Errorf("a game that skips nothing: %q", got)
	}
	one := skippingGame{skipped: []game.Skipped{{Name: "GET /x", Reason: "path parameter {x} is not declared in parameters"}}}
	if got, want := skippedLine(one), "1 operation skipped: GET /x (path parameter {x} is not declared in parameters); `coplay tools` lists it"; got != want {
		t.Errorf("one skipped:\n got %q\nwant %q", got, want)
	}

	g, err := openapi.Open(context.Background(), openapi.Config{Spec: "../testdata/openapi/uploads.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	want := "3 operations skipped: uploadAvatar (file field file is required, and file uploads are not supported), " +
		"PUT /replays/{id} (request body is application/octet-stream), " +
		"brokenPath (path parameter {x} is not declared in parameters); `coplay tools` lists them"
	if got := skippedLine(g); got != want {
		t.Errorf("the uploads spec:\n got %q\nwant %q", got, want)
	}

	var many skippingGame
	for i := range 40 {
		many.skipped = append(many.skipped, game.Skipped{Name: fmt.Sprintf("operation%02d", i),
			Reason: "request body is application/vnd.example.very-long-media-type+binary with a reason far longer than anyone reads at startup"})
	}
	got := skippedLine(many)
	if n := utf8.RuneCountInString(got); n > skippedLineMax {
		t.Errorf("40 skipped: the line is %d characters, want at most %d: %q", n, skippedLineMax, got)
	}
	if !strings.HasPrefix(got, "40 operations skipped: operation00 (request body is application/vnd.example") ||
		!strings.Contains(got, "…)") || !strings.HasSuffix(got, " more; `coplay tools` lists them") {
		t.Errorf("40 skipped: %q", got)
	}
	shown := strings.Count(got, "operation") - 1 // the head says "operations"
	if !strings.Contains(got, fmt.Sprintf("and %d more;", 40-shown)) {
		t.Errorf("40 skipped, %d named: the line does not count the other %d: %q", shown, 40-shown, got)
	}
}

// toolsJSON runs `coplay tools --json` with args and decodes what it prints.
func toolsJSON(t *testing.T, args ...string) (out map[string]json.RawMessage, tools []catalogEntry, skipped []game.Skipped) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if err := execute(append(append([]string{"tools"}, args...), "--json"), &stdout, &stderr); err != nil {
		t.Fatalf("coplay tools %v: %v\n%s", args, err, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("coplay tools --json printed no JSON object: %v\n%s", err, stdout.String())
	}
	if _, ok := out["skipped"]; !ok {
		t.Errorf("coplay tools --json has no skipped key: %s", stdout.String())
	}
	if err := json.Unmarshal(out["tools"], &tools); err != nil {
		t.Fatalf("tools: %v", err)
	}
	if err := json.Unmarshal(out["skipped"], &skipped); err != nil {
		t.Fatalf("skipped: %v", err)
	}
	return out, tools, skipped
}

func TestToolsJSONListsToolsAndSkipped(t *testing.T) {
	t.Parallel()
	_, tools, skipped := toolsJSON(t, "--game", "openapi", "--spec", "../testdata/openapi/uploads.yaml")
	if !slices.Equal(skipped, uploadsSkipped) {
		t.Errorf("skipped = %q\nwant %q", skipped, uploadsSkipped)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
		if tl.Name == "postScreenshot" && (tl.Group != "media" || tl.Kind != game.Act || tl.Schema == nil) {
			t.Errorf("postScreenshot = %+v, want an act in group media with its schema", tl)
		}
	}
	if !slices.Equal(names, []string{"getReplay", "postScreenshot", "addNote", "last_response"}) {
		t.Errorf("tools %v", names)
	}

	// Nothing skipped: the key is still there, an empty list.
	out, tools, skipped := toolsJSON(t, "--game", "openapi", "--spec", "../testdata/openapi/platform/openapi.yaml")
	if string(out["skipped"]) != "[]" || len(skipped) != 0 {
		t.Errorf("the platform fixture: skipped = %s, want []", out["skipped"])
	}
	if len(tools) != 28 {
		t.Errorf("the platform fixture: %d tools, want its 27 operations and last_response", len(tools))
	}
	// The offline game is no Skipper: the same shape.
	out, tools, _ = toolsJSON(t, "--game", "universe")
	if string(out["skipped"]) != "[]" || len(tools) < 10 {
		t.Errorf("--game universe: %d tools, skipped %s", len(tools), out["skipped"])
	}
}

func TestToolsTextEndsWithSkipped(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if err := execute([]string{"tools", "--game", "openapi", "--spec", "../testdata/openapi/uploads.yaml"}, &stdout, &stderr); err != nil {
		t.Fatalf("coplay tools: %v\n%s", err, stderr.String())
	}
	want := "\n3 operations skipped:\n" +
		"  uploadAvatar: file field file is required, and file uploads are not supported\n" +
		"  PUT /replays/{id}: request body is application/octet-stream; only JSON, form (url-encoded or multipart) and text bodies can be sent, not files\n" +
		"  brokenPath: path parameter {x} is not declared in parameters\n"
	if !strings.HasSuffix(stdout.String(), want) {
		t.Errorf("coplay tools does not end with the skipped operations:\n%s", stdout.String())
	}
	if !strings.Contains(stdout.String(), "postScreenshot (act, media)\n") {
		t.Errorf("coplay tools does not give postScreenshot's kind and group:\n%s", stdout.String())
	}

	stdout.Reset()
	if err := execute([]string{"tools", "--game", "openapi", "--spec", "../testdata/openapi/platform/openapi.yaml"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stdout.String(), "skipped") {
		t.Errorf("coplay tools mentions skipped operations when there are none:\n%s", stdout.String())
	}
}
