package openapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/coplayhq/coplay/game"
	"github.com/pb33f/go-yaml"
)

// The Game reports what it leaves out.
var _ game.Skipper = (*Game)(nil)

// platformSpec is the multi-file OpenAPI 3.1 fixture of a small board-game platform.
var platformSpec = fixture("platform/openapi.yaml")

// platformOps are the platform's operations as its path files declare them, read
// with a YAML decoder rather than libopenapi: "METHOD key" → operationId and first tag.
type specOp struct {
	Method, ID, Tag string
}

func platformOps(t *testing.T) []specOp {
	t.Helper()
	files, err := filepath.Glob(fixture("platform/paths/*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no path files in the platform fixture: %v", err)
	}
	var ops []specOp
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var items map[string]map[string]yaml.Node
		if err := yaml.Unmarshal(data, &items); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, item := range items {
			for method, node := range item {
				if method == "parameters" {
					continue
				}
				var op struct {
					OperationID string   `yaml:"operationId"`
					Tags        []string `yaml:"tags"`
				}
				if err := node.Decode(&op); err != nil {
					t.Fatalf("%s: %s: %v", file, method, err)
				}
				tag := ""
				if len(op.Tags) > 0 {
					tag = op.Tags[0]
				}
				ops = append(ops, specOp{strings.ToUpper(method), op.OperationID, tag})
			}
		}
	}
	return ops
}

func TestPlatformFixtureEveryOperationIsATool(t *testing.T) {
	t.Parallel()
	ops := platformOps(t)
	if len(ops) < 25 {
		t.Fatalf("the platform fixture has %d operations, want about 25", len(ops))
	}
	g := mustOpen(t, Config{Spec: platformSpec})
	if s := g.Skipped(); len(s) != 0 {
		t.Errorf("skipped %v, want none", s)
	}
	if strings.Contains(g.Info().Rules, "not available") {
		t.Errorf("the rules mention skipped operations when none is:\n%s", g.Info().Rules)
	}
	tools := map[string]game.Tool{}
	for _, tool := range g.Tools() {
		tools[tool.Name] = tool
	}
	if len(tools) != len(ops)+1 {
		t.Errorf("%d tools for %d operations (and last_response)", len(tools), len(ops))
	}
	for _, op := range ops {
		name := op.ID
		if name == "" {
			name = "get_api_status" // the one operation without an id is named from its path
		}
		tool, ok := tools[name]
		if !ok {
			t.Errorf("operation %s is not a tool", name)
			continue
		}
		if tool.Group != op.Tag {
			t.Errorf("%s: group %q, want its first tag %q", name, tool.Group, op.Tag)
		}
		if want := game.Read; op.Method != "GET" && tool.Kind == want {
			t.Errorf("%s (%s) is a read", name, op.Method)
		}
	}
	if g := tools[lastResponseTool].Group; g != "" {
		t.Errorf("last_response has group %q", g)
	}

	// Streaming answers are no reason to leave an operation out.
	for _, name := range []string{"exportUserGames", "streamBoardGame"} {
		if tools[name].Kind != game.Read {
			t.Errorf("%s (an application/x-ndjson GET) is %v, want a read tool", name, tools[name].Kind)
		}
	}
	// A text body is one string argument, required as the body is.
	body := tools["getUsersByIds"].Schema.Properties[wholeBody]
	if body == nil || body.Type != "string" || body.MaxLength == nil || !strings.Contains(body.Description, "text/plain") ||
		!slices.Equal(tools["getUsersByIds"].Schema.Required, []string{wholeBody}) {
		t.Errorf("getUsersByIds body = %+v, required %v; want a required string sent as text/plain", body, tools["getUsersByIds"].Schema.Required)
	}
	// A form's fields are typed arguments, from a schema in another file.
	ch := tools["createChallenge"].Schema
	if p := ch.Properties["rules"]; p == nil || p.Type != "array" || p.Items == nil || len(p.Items.Enum) != 5 {
		t.Errorf("createChallenge rules = %+v, want an array of the rule enum", p)
	}
	if p := ch.Properties["clock.limit"]; p == nil || p.Type != "integer" || p.Maximum == nil {
		t.Errorf("createChallenge clock.limit = %+v", p)
	}
	if p := ch.Properties["days"]; p == nil || len(p.Enum) != 7 {
		t.Errorf("createChallenge days = %+v, want an integer enum", p)
	}
	// A multipart form without its optional file field, which the description mentions.
	banner := tools["updateTeamBanner"]
	if _, ok := banner.Schema.Properties["image"]; ok {
		t.Errorf("updateTeamBanner offers the file field image: %v", banner.Schema.PropertyOrder)
	}
	if !slices.Equal(banner.Schema.PropertyOrder, []string{"teamId", "caption", "visible", "keywords", "style"}) ||
		!slices.Equal(banner.Schema.Required, []string{"teamId", "caption"}) {
		t.Errorf("updateTeamBanner properties %v required %v", banner.Schema.PropertyOrder, banner.Schema.Required)
	}
	if !strings.Contains(banner.Description, "file field image is not supported") {
		t.Errorf("updateTeamBanner's description does not say its file field is left out: %q", banner.Description)
	}
}

func TestPlatformGroupedCoversEveryOperation(t *testing.T) {
	t.Parallel()
	ops := mustOpen(t, Config{Spec: platformSpec})
	g := mustOpen(t, Config{Spec: platformSpec, Catalog: CatalogGrouped})
	if s := g.Skipped(); len(s) != 0 {
		t.Errorf("skipped %v", s)
	}
	covered := map[string]string{} // operation → tool
	for _, tool := range g.Tools() {
		if tool.Name == lastResponseTool {
			continue
		}
		gr := g.groups[tool.Name]
		wantGroup := gr.Ops[0].Tag
		if tool.Group != wantGroup {
			t.Errorf("%s: group %q, want its tag %q", tool.Name, tool.Group, wantGroup)
		}
		for _, e := range tool.Schema.Properties[opArgField].Enum {
			covered[e.(string)] = tool.Name
		}
	}
	for _, op := range ops.ops {
		if _, ok := covered[op.Name]; !ok {
			t.Errorf("%s is in no grouped tool", op.Name)
		}
	}
	if tool := toolNamed(t, g, "games_read"); tool.Group != "games" {
		t.Errorf("games_read group %q, want games", tool.Group)
	}
	if tool := toolNamed(t, g, "other_read"); tool.Group != "" {
		t.Errorf("other_read (untagged operations) group %q, want none", tool.Group)
	}
	if tool := toolNamed(t, g, "teams_act"); !strings.Contains(tool.Description, "file field image is not supported") {
		t.Errorf("teams_act does not say updateTeamBanner's file is left out:\n%s", tool.Description)
	}
}

// platformServer records every request the platform fixture's tools send.
type platformServer struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen []seen
}

func newPlatformServer(t *testing.T) *platformServer {
	p := &platformServer{}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		p.mu.Lock()
		p.seen = append(p.seen, seen{r.Method, r.URL.Path, r.URL.EscapedPath(), r.URL.RawQuery, r.Header.Clone(), string(body)})
		p.mu.Unlock()
		if strings.HasPrefix(r.URL.Path, "/pawnshop/api/games/user/") {
			w.Header().Set("Content-Type", "application/x-ndjson")
			io.WriteString(w, "{\"id\":\"aaaaaaaa\",\"speed\":\"blitz\"}\n{\"id\":\"bbbbbbbb\",\"speed\":\"rapid\"}\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true}`)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *platformServer) last(t *testing.T) seen {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.seen) == 0 {
		t.Fatal("the server received nothing")
	}
	return p.seen[len(p.seen)-1]
}

func TestTextAndFormBodiesReachTheServerByteCorrect(t *testing.T) {
	t.Parallel()
	srv := newPlatformServer(t)
	g := mustOpen(t, Config{Spec: platformSpec, BaseURL: srv.srv.URL + "/pawnshop"})

	for _, tc := range []struct {
		tool, args        string
		path, contentType string
		body              string
	}{
		{"getUsersByIds", `{"body":"ann,bob,cy"}`, "/pawnshop/api/users", "text/plain", "ann,bob,cy"},
		{"exportGamesByIds", `{"body":"aaaaaaaa,bbbbbbbb"}`, "/pawnshop/api/games/export/_ids", "text/plain", "aaaaaaaa,bbbbbbbb"},
		{"importGame", `{"pgn":"[Event \"Casual\"]\n1. e4 e5 2. Nf3 *"}`, "/pawnshop/api/import", "application/x-www-form-urlencoded",
			"pgn=" + url.QueryEscape("[Event \"Casual\"]\n1. e4 e5 2. Nf3 *")},
		// Fields in the spec's order, arrays repeating the name, numbers as written.
		{"createChallenge", `{"username":"bob","message":"gl & hf","rules":["noAbort","noRematch"],"clock.limit":300,"clock.increment":2,"rated":true,"color":"white"}`,
			"/pawnshop/api/challenge/bob", "application/x-www-form-urlencoded",
			"rated=true&clock.limit=300&clock.increment=2&color=white&rules=noAbort&rules=noRematch&message=gl+%26+hf"},
		{"writeInChat", `{"gameId":"aaaaaaaa","room":"player","text":"good game, thanks!"}`, "/pawnshop/api/board/game/aaaaaaaa/chat",
			"application/x-www-form-urlencoded", "room=player&text=good+game%2C+thanks%21"},
		// An optional form body given nothing is not sent.
		{"declineChallenge", `{"challengeId":"c1"}`, "/pawnshop/api/challenge/c1/decline", "", ""},
		{"declineChallenge", `{"challengeId":"c1","reason":"tooFast"}`, "/pawnshop/api/challenge/c1/decline", "application/x-www-form-urlencoded", "reason=tooFast"},
	} {
		res := call(t, g, tc.tool, tc.args)
		if !res.OK() {
			t.Errorf("%s: %+v", tc.tool, res)
			continue
		}
		got := srv.last(t)
		if got.Method != "POST" || got.Path != tc.path {
			t.Errorf("%s: sent %s %s, want POST %s", tc.tool, got.Method, got.Path, tc.path)
		}
		if ct := got.Header.Get("Content-Type"); ct != tc.contentType {
			t.Errorf("%s: Content-Type %q, want %q", tc.tool, ct, tc.contentType)
		}
		if got.Body != tc.body {
			t.Errorf("%s: body\n %q\nwant\n %q", tc.tool, got.Body, tc.body)
		}
	}

	// A multipart form: one part per value, in the spec's order, with a boundary.
	res := call(t, g, "updateTeamBanner", `{"teamId":"rooks","caption":"The \"Rooks\"","visible":false,"keywords":["endgames","blitz"],"style":"striped"}`)
	if !res.OK() {
		t.Fatalf("updateTeamBanner: %+v", res)
	}
	got := srv.last(t)
	if got.Method != "PUT" || got.Path != "/pawnshop/api/team/rooks/banner" {
		t.Errorf("updateTeamBanner sent %s %s", got.Method, got.Path)
	}
	mt, params, err := mime.ParseMediaType(got.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		t.Fatalf("updateTeamBanner Content-Type %q (%v), want multipart/form-data with a boundary", got.Header.Get("Content-Type"), err)
	}
	if want := multipartBody(params["boundary"], []string{"caption", `The "Rooks"`, "visible", "false", "keywords", "endgames", "keywords", "blitz", "style", "striped"}, nil); got.Body != want {
		t.Errorf("updateTeamBanner body\n%q\nwant\n%q", got.Body, want)
	}

	// A streaming GET is still a read that answers.
	res = call(t, g, "exportUserGames", `{"username":"ann","max":2,"perfType":"blitz"}`)
	if !res.OK() || !strings.Contains(res.Output, "bbbbbbbb") {
		t.Errorf("exportUserGames = %+v", res)
	}
	if q := srv.last(t).Query; q != "max=2&perfType=blitz" {
		t.Errorf("exportUserGames query %q", q)
	}
}

// multipartBody is the multipart body mime/multipart writes for name, value pairs;
// types gives a part's Content-Type by its index.
func multipartBody(boundary string, pairs []string, types map[int]string) string {
	var b strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		if i == 0 {
			fmt.Fprintf(&b, "--%s\r\n", boundary)
		} else {
			fmt.Fprintf(&b, "\r\n--%s\r\n", boundary)
		}
		fmt.Fprintf(&b, "Content-Disposition: form-data; name=%q\r\n", pairs[i])
		if ct := types[i/2]; ct != "" {
			fmt.Fprintf(&b, "Content-Type: %s\r\n", ct)
		}
		fmt.Fprintf(&b, "\r\n%s", pairs[i+1])
	}
	fmt.Fprintf(&b, "\r\n--%s--\r\n", boundary)
	return b.String()
}

func TestRequiredFilesAndBinaryBodiesAreSkippedWithWhy(t *testing.T) {
	t.Parallel()
	g := mustOpen(t, Config{Spec: fixture("uploads.yaml")})
	want := []game.Skipped{
		{Name: "uploadAvatar", Reason: "file field file is required, and file uploads are not supported"},
		{Name: "PUT /replays/{id}", Reason: "request body is application/octet-stream; only JSON, form (url-encoded or multipart) and text bodies can be sent, not files"},
		{Name: "brokenPath", Reason: "path parameter {x} is not declared in parameters"},
	}
	if got := g.Skipped(); !slices.Equal(got, want) {
		t.Errorf("Skipped() =\n %q\nwant\n %q", got, want)
	}
	if !strings.Contains(g.Info().Rules, "3 operations of the API are not available as tools") {
		t.Errorf("the rules do not count the skipped operations:\n%s", g.Info().Rules)
	}
	var names []string
	for _, tool := range g.Tools() {
		names = append(names, tool.Name)
	}
	if !slices.Equal(names, []string{"getReplay", "postScreenshot", "addNote", lastResponseTool}) {
		t.Errorf("tools %v", names)
	}
	// Optional files (3.1's contentMediaType, base64 items) are left out, and said so.
	shot := toolNamed(t, g, "postScreenshot")
	if !slices.Equal(shot.Schema.PropertyOrder, []string{"caption", "meta"}) {
		t.Errorf("postScreenshot offers %v, want caption and meta only", shot.Schema.PropertyOrder)
	}
	for _, w := range []string{"file field shot is not supported", "file field thumbnails is not supported"} {
		if !strings.Contains(shot.Description, w) {
			t.Errorf("postScreenshot's description lacks %q: %q", w, shot.Description)
		}
	}
	// An optional body of a type that cannot be sent, and a parameter without a schema.
	note := toolNamed(t, g, "addNote")
	for _, w := range []string{"optional request body (application/xml) cannot be sent", "header parameter X-Trace has no schema"} {
		if !strings.Contains(note.Description, w) {
			t.Errorf("addNote's description lacks %q: %q", w, note.Description)
		}
	}
	if _, err := Open(context.Background(), Config{Spec: fixture("uploads.yaml"), Observe: []string{"uploadAvatar"}}); err == nil ||
		!strings.Contains(err.Error(), "file field file is required") {
		t.Errorf("observing a skipped operation: %v, want its reason", err)
	}

	// What is sent: a JSON-content parameter as JSON text, an object part as JSON.
	srv := newPlatformServer(t)
	g = mustOpen(t, Config{Spec: fixture("uploads.yaml"), BaseURL: srv.srv.URL + "/up"})
	call(t, g, "addNote", `{"filter":{"level":2}}`)
	if got := srv.last(t); got.Query != "filter=%7B%22level%22%3A2%7D" || got.Body != "" || got.Header.Get("Content-Type") != "" {
		t.Errorf("addNote sent ?%s with %q (%s)", got.Query, got.Body, got.Header.Get("Content-Type"))
	}
	call(t, g, "postScreenshot", `{"caption":"win","meta":{"level":3}}`)
	got := srv.last(t)
	_, params, err := mime.ParseMediaType(got.Header.Get("Content-Type"))
	if err != nil {
		t.Fatalf("postScreenshot Content-Type %q: %v", got.Header.Get("Content-Type"), err)
	}
	if want := multipartBody(params["boundary"], []string{"caption", "win", "meta", `{"level":3}`}, map[int]string{1: "application/json"}); got.Body != want {
		t.Errorf("postScreenshot body\n%q\nwant\n%q", got.Body, want)
	}
}

// A form without a schema is one object argument; an optional text body is optional.
func TestSchemalessFormAndOptionalTextBody(t *testing.T) {
	t.Parallel()
	spec := filepath.Join(t.TempDir(), "spec.yaml")
	if err := os.WriteFile(spec, []byte(`openapi: 3.1.0
info: {title: forms, version: "1"}
paths:
  /feedback:
    post:
      operationId: sendFeedback
      requestBody:
        required: true
        content:
          application/x-www-form-urlencoded: {}
      responses: {"204": {description: ok}}
  /notes:
    post:
      operationId: addNote
      requestBody:
        content:
          text/markdown:
            schema: {type: string}
      responses: {"204": {description: ok}}
  /tags:
    post:
      operationId: setTags
      requestBody:
        required: true
        content:
          application/x-www-form-urlencoded:
            schema:
              type: object
              properties:
                tags: {type: array, items: {type: string}}
                ids: {type: array, items: {type: integer}}
            encoding:
              tags: {explode: false}
      responses: {"204": {description: ok}}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := newPlatformServer(t)
	g := mustOpen(t, Config{Spec: spec, BaseURL: srv.srv.URL})
	fb := toolNamed(t, g, "sendFeedback").Schema
	if b := fb.Properties[wholeBody]; b == nil || b.Type != "object" || !slices.Equal(fb.Required, []string{wholeBody}) {
		t.Errorf("sendFeedback schema = %+v", fb)
	}
	call(t, g, "sendFeedback", `{"body":{"stars":5,"text":"fun","tags":["a","b"]}}`)
	if got := srv.last(t); got.Body != "stars=5&tags=a&tags=b&text=fun" || got.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
		t.Errorf("sendFeedback sent %q (%s)", got.Body, got.Header.Get("Content-Type"))
	}
	note := toolNamed(t, g, "addNote").Schema
	if len(note.Required) != 0 || note.Properties[wholeBody].Type != "string" {
		t.Errorf("addNote (optional text/markdown body) = %+v", note)
	}
	call(t, g, "addNote", `{"body":"# Hi\n"}`)
	if got := srv.last(t); got.Body != "# Hi\n" || got.Header.Get("Content-Type") != "text/markdown" {
		t.Errorf("addNote sent %q (%s)", got.Body, got.Header.Get("Content-Type"))
	}
	call(t, g, "setTags", `{"tags":["a b","c"],"ids":[1,2]}`)
	if got := srv.last(t); got.Body != "tags=a+b%2Cc&ids=1&ids=2" {
		t.Errorf("setTags (tags with explode: false) sent %q", got.Body)
	}
	call(t, g, "addNote", `{}`)
	if got := srv.last(t); got.Body != "" || got.Header.Get("Content-Type") != "" {
		t.Errorf("addNote without a body sent %q (%s)", got.Body, got.Header.Get("Content-Type"))
	}
}

// The skip reasons are plain text a person reads, and they marshal for `coplay tools --json`.
func TestSkippedMarshals(t *testing.T) {
	t.Parallel()
	g := mustOpen(t, Config{Spec: fixture("uploads.yaml")})
	b, err := json.Marshal(g.Skipped())
	if err != nil || !strings.Contains(string(b), `{"name":"PUT /replays/{id}","reason":"request body is application/octet-stream;`) {
		t.Errorf("marshalled %s (%v)", b, err)
	}
}
