package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coplayhq/coplay/agent/llmtest"
	"github.com/coplayhq/coplay/notes"
)

// sessionState is the game state session name keeps in the notebook at path.
func sessionState(t *testing.T, path, name string) string {
	t.Helper()
	book, err := notes.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer book.Close()
	s, err := book.Session(name)
	if err != nil {
		t.Fatal(err)
	}
	state, err := s.State()
	if err != nil {
		t.Fatal(err)
	}
	return string(state)
}

// An --mcp URL with a password and a query key: neither reaches stdout, stderr, the
// notebook file or an export, in a session that plays and in a start that fails; the
// session keeps the URL without them, and --resume asks for the whole URL again
// rather than connect without them.
func TestMCPURLSecretsAreNeverShownOrKept(t *testing.T) {
	// Shorter than the scrubber takes (secret.MinLen): nothing here leans on it.
	const pw, key = "pW7qZ", "sK9xY"
	s := sdk.NewServer(&sdk.Implementation{Name: "lookout", Version: "1"}, &sdk.ServerOptions{HasTools: true})
	type none struct{}
	sdk.AddTool(s, &sdk.Tool{Name: "look", Description: "look around", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a quiet sea"}}}, nil, nil
		})
	var seenKey bool
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("api_key") == key {
			seenKey = true
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	mcpURL := "http://lookout:" + pw + "@" + host + "/mcp?api_key=" + key

	dir := t.TempDir()
	db := filepath.Join(dir, "coplay.db")
	cassette := writeCassette(t, dir, llmtest.Cassette{Name: "look", Steps: []llmtest.Step{
		{Text: "Looking.", Calls: []llmtest.Call{scall("look", `{}`)}},
		{Text: "Done."},
	}})
	out, errOut := coplayRun(t, nil, "", "run", "--headless", "--data", db, "--game", "mcp", "--mcp", mcpURL,
		"--brain", "script:"+cassette, "--approve", "all", "--steps", "2")
	if !strings.Contains(out, "a quiet sea") || !seenKey {
		t.Fatalf("the session did not play with the URL's key (seen %v):\n%s\n%s", seenKey, out, errOut)
	}
	name, _ := readJournal(t, db)
	export, _ := coplayRun(t, nil, "", "sessions", "export", name, "--data", db)
	list, _ := coplayRun(t, nil, "", "sessions", "--json", "--data", db)
	file, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	secrets := map[string]string{"the password": pw, "the query key": key}
	places := map[string][]byte{"stdout": []byte(out), "stderr": []byte(errOut), "the notebook file": file,
		"the export": []byte(export), "the session list": []byte(list)}
	if found := leaks(secrets, places); len(found) > 0 {
		t.Errorf("found: %v", found)
	}
	if state := sessionState(t, db, name); !strings.Contains(state, `"url":"http://`+host+`/mcp"`) || !strings.Contains(state, `"url_stripped":true`) {
		t.Errorf("the session keeps %s; want the URL without its user info and query", state)
	}

	// --resume without the URL: asked for it, nothing connected without the secrets.
	r := runStartup(t, nil, "run", "--headless", "--data", db, "--resume", name, "--brain", "script:"+cassette, "--steps", "1")
	checkOneLine(t, r, 2, "pass --mcp with the whole URL again", "$TOKEN")
	// With it: plays on.
	out, errOut = coplayRun(t, nil, "", "run", "--headless", "--data", db, "--resume", name, "--mcp", mcpURL,
		"--brain", "script:"+cassette, "--approve", "all", "--steps", "1")
	if found := leaks(secrets, map[string][]byte{"stdout": []byte(out), "stderr": []byte(errOut)}); len(found) > 0 {
		t.Errorf("resumed: found: %v", found)
	}

	// A start that fails (the server gone): the error names the server, not its secrets.
	srv.Close()
	r = runStartup(t, nil, "run", "--headless", "--data", filepath.Join(dir, "down.db"), "--game", "mcp", "--mcp", mcpURL,
		"--brain", "script:"+cassette, "--steps", "1")
	if r.code == 0 || !strings.Contains(r.stderr, host) {
		t.Errorf("a server that is down: exit %d, %s", r.code, r.stderr)
	}
	if found := leaks(secrets, map[string][]byte{"stdout": []byte(r.stdout), "stderr": []byte(r.stderr)}); len(found) > 0 {
		t.Errorf("a server that is down: found %v in %s", found, r.stderr)
	}
	var o, e strings.Builder
	run([]string{"tools", "--game", "mcp", "--mcp", mcpURL}, &o, &e)
	if found := leaks(secrets, map[string][]byte{"tools stdout": []byte(o.String()), "tools stderr": []byte(e.String())}); len(found) > 0 {
		t.Errorf("coplay tools: found %v in %s", found, e.String())
	}
}
