package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/llmtest"
	"github.com/coplayhq/coplay/game/mcp"
	"github.com/coplayhq/coplay/game/mcp/mcptest"
)

// TestMCPOAuthLastsTheNight plays an OAuth-protected MCP server whose access tokens live
// 3 seconds, unattended, for 8 steps of 1.5 seconds each: the browser (a $BROWSER script
// that follows the URL with curl) is needed once, the tokens are refreshed as they
// expire and no call meets a 401; --resume the next run plays without the browser; no
// token reaches the notebook or the events, and the token file is 0600. `coplay
// sessions rm` leaves the grant; `coplay mcp logout URL` revokes and forgets it.
func TestMCPOAuthLastsTheNight(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed (the test's browser follows the authorization URL with it)")
	}
	srv, err := mcptest.NewOAuthServer("127.0.0.1:0", 3*time.Second, 1500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	browserLog := filepath.Join(dir, "browser.log")
	browser := filepath.Join(dir, "browser.sh")
	script := "#!/bin/sh\necho \"$1\" >> '" + browserLog + "'\ncurl -sSL -o /dev/null \"$1\"\n"
	if err := os.WriteFile(browser, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	configDir := filepath.Join(dir, "config")
	env := []string{"BROWSER=" + browser, "XDG_CONFIG_HOME=" + configDir, "COPLAY_MCP_TOKENS=file"}
	steps := make([]llmtest.Step, 0, 9)
	for i := range 8 {
		steps = append(steps, llmtest.Step{Text: fmt.Sprintf("Tick %d.", i+1), Calls: []llmtest.Call{scall("tick", `{}`)}})
	}
	cassette := writeCassette(t, dir, llmtest.Cassette{Name: "overnight", Steps: append(steps, llmtest.Step{Text: "Done."})})
	db := filepath.Join(dir, "coplay.db")
	unattended := func(agent.Event, func(agent.Command)) {}
	browsed := func() int {
		b, _ := os.ReadFile(browserLog)
		return strings.Count(string(b), "\n")
	}

	// The first night: authorized once, refreshed as the tokens expire.
	evs := headlessRunEnv(t, []string{"--data", db, "--game", "mcp", "--mcp", srv.URL, "--brain", "script:" + cassette, "--approve", "all", "--steps", "8"}, env, unattended)
	session := checkTicks(t, "first run", evs, 8)
	st := srv.Stats()
	if browsed() != 1 || st.CodeGrants != 1 || st.Registrations != 1 {
		t.Errorf("first run: the browser was opened %d times, %d codes exchanged, %d registrations; want 1 each", browsed(), st.CodeGrants, st.Registrations)
	}
	if st.Refreshes < 3 {
		t.Errorf("first run: %d refreshes over 12 s of 3 s tokens; want at least 3", st.Refreshes)
	}
	if want := []string{"authorization_code", "refresh_token"}; strings.Join(st.RegisteredGrants, " ") != strings.Join(want, " ") {
		t.Errorf("registered for grant_types %v, want %v", st.RegisteredGrants, want)
	}
	t.Logf("first run: %d refreshes, %d 401s (the first, before authorizing)", st.Refreshes, st.Unauthorized)
	if st.Unauthorized != 1 {
		t.Errorf("the server answered %d requests with 401; want only the first, before authorizing", st.Unauthorized)
	}
	tokenFile := filepath.Join(configDir, "coplay", mcp.TokenFileName)
	if fi, err := os.Stat(tokenFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file %s: %v, mode %v; want 0600", tokenFile, err, fi)
	}

	// The next night: --resume refreshes the kept tokens, no browser.
	if err := srv.Expired(context.Background()); err != nil { // the kept access token has expired
		t.Fatal(err)
	}
	// A script goes on where it was when resumed: this night has a script of its own.
	cassette2 := writeCassette(t, dir, llmtest.Cassette{Name: "overnight-2", Steps: append(slices.Clone(steps), llmtest.Step{Text: "Done."})})
	evs2 := headlessRunEnv(t, []string{"--data", db, "--resume", session, "--brain", "script:" + cassette2, "--approve", "all", "--steps", "8"}, env, unattended)
	checkTicks(t, "resumed run", evs2, 8)
	st2 := srv.Stats()
	if browsed() != 1 || st2.CodeGrants != 1 || st2.Registrations != 1 {
		t.Errorf("resumed run: the browser was opened %d times in all, %d codes, %d registrations; want no new ones", browsed(), st2.CodeGrants, st2.Registrations)
	}
	if st2.Unauthorized != st.Unauthorized {
		t.Errorf("resumed run: %d more 401s", st2.Unauthorized-st.Unauthorized)
	}

	// No token in the notebook nor in what was said.
	notebook, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	all := fmt.Sprint(evs, evs2)
	for _, tok := range srv.Tokens() {
		if bytes.Contains(notebook, []byte(tok)) {
			t.Errorf("a token is in the notebook file")
		}
		if strings.Contains(all, tok) {
			t.Errorf("a token is in the events")
		}
	}

	// sessions rm leaves the grant; mcp logout revokes and forgets it.
	var out, errOut bytes.Buffer
	if code := run([]string{"sessions", "rm", session, "--data", db}, &out, &errOut); code != 0 {
		t.Fatalf("sessions rm: exit %d %s", code, errOut.String())
	}
	if b, err := os.ReadFile(tokenFile); err != nil || !strings.Contains(string(b), srv.URL) {
		t.Fatalf("sessions rm took the grant away: %v", err)
	}
	out.Reset()
	if code := runEnv(t, env, []string{"mcp", "logout", srv.URL}, &out, &errOut); code != 0 {
		t.Fatalf("mcp logout: exit %d %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "revoked") || srv.Stats().Revoked == 0 {
		t.Errorf("mcp logout said %q and the server revoked %d tokens", out.String(), srv.Stats().Revoked)
	}
	if _, err := os.Stat(tokenFile); !os.IsNotExist(err) {
		t.Errorf("the token file is still there after logging out of its only server: %v", err)
	}
	errOut.Reset()
	if code := runEnv(t, env, []string{"mcp", "logout", srv.URL}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "no authorization is kept") {
		t.Errorf("a second logout: exit %d, %q", code, errOut.String())
	}
}

// checkTicks checks that every call was answered "tick N" (none met a 401 or any
// other error) and returns the session's name.
func checkTicks(t *testing.T, run string, evs []agent.Event, want int) string {
	t.Helper()
	n, session := 0, ""
	for _, ev := range evs {
		switch ev.Type {
		case agent.EventStarted:
			if i := strings.Index(ev.Text, "(session "); i >= 0 {
				session = strings.TrimSuffix(ev.Text[i+len("(session "):], ")")
			}
		case agent.EventResult:
			if ev.Result.Err != nil || ev.Result.Unknown || !strings.HasPrefix(ev.Result.Output, "tick ") {
				t.Errorf("%s: a call's result: %+v", run, ev.Result)
			}
			n++
		case agent.EventError:
			t.Errorf("%s: error event: %s", run, ev.Text)
		}
	}
	if n != want {
		t.Errorf("%s: %d results, want %d", run, n, want)
	}
	if session == "" {
		t.Fatalf("%s: no session named in the started event", run)
	}
	return session
}
