package mcpserve

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/ratelimit"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

var arenaTokens = map[string]string{"Heron": heronToken, "Finch": finchToken}

// A seat's client sees the game's own tools (names, descriptions, schemas; readOnlyHint
// on Read tools) and a preview beside each with a dry run; Heron's message reaches
// Finch, whose subscription hears the trigger it carries, and Heron's act is
// committed before it is answered.
func TestSeatsPlayOneWorld(t *testing.T) {
	sv := serve(t, "arena", arenaTokens, Config{}, "Heron", "Finch")
	heron := connect(t, sv.URL, heronToken, nil)

	updates := make(chan *sdk.ResourceUpdatedNotificationParams, 16)
	finch := connect(t, sv.URL, finchToken, &sdk.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
		updates <- req.Params
	}})
	if err := finch.Subscribe(context.Background(), &sdk.SubscribeParams{URI: TriggersURI}); err != nil {
		t.Fatal(err)
	}

	list, err := heron.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]*sdk.Tool{}
	for _, tl := range list.Tools {
		served[tl.Name] = tl
	}
	for _, gt := range sv.league.Seats[0].Game.Tools() {
		tl := served[gt.Name]
		if tl == nil {
			t.Fatalf("tool %s is not served", gt.Name)
		}
		want, _ := gt.SchemaJSON()
		got, _ := json.Marshal(tl.InputSchema)
		if tl.Description != gt.Description || !sameJSON(t, want, got) {
			t.Errorf("%s served as %q %s, want %q %s", gt.Name, tl.Description, got, gt.Description, want)
		}
		if tl.Annotations == nil || tl.Annotations.ReadOnlyHint != (gt.Kind == game.Read) {
			t.Errorf("%s (%s): annotations %+v", gt.Name, gt.Kind, tl.Annotations)
		}
		if p := served[PreviewPrefix+gt.Name]; (p != nil) != gt.DryRun || p != nil && !p.Annotations.ReadOnlyHint {
			t.Errorf("%s (dry run %v): preview %+v", gt.Name, gt.DryRun, p)
		}
	}
	if !strings.Contains(heron.InitializeResult().Instructions, "You are Heron") {
		t.Errorf("Heron's instructions: %.60q", heron.InitializeResult().Instructions)
	}

	if out, _ := call(t, heron, "status", nil); !strings.HasPrefix(out, "Heron ·") {
		t.Fatalf("Heron's status: %q", out)
	}
	out, res := call(t, heron, PreviewPrefix+"send_message", map[string]any{"to": "Finch", "text": "meet me at the market"})
	var p preview
	if err := json.Unmarshal([]byte(out), &p); err != nil || !p.Predicted || p.Fails || !strings.Contains(p.Summary, "sends to Finch") || res.IsError {
		t.Fatalf("preview: %s (%v)", out, err)
	}
	if n := sv.commitsOf("Heron"); n != 0 {
		t.Fatalf("a preview committed %d times", n)
	}
	if out, res := call(t, heron, "send_message", map[string]any{"to": "Finch", "text": "meet me at the market"}); res.IsError {
		t.Fatalf("send: %s", out)
	}
	if n := sv.commitsOf("Heron"); n != 1 || !regexp.MustCompile(`^send_message \{.*"meet me at the market".*\} → Sent`).MatchString(sv.acts["Heron"][0]) {
		t.Fatalf("the act was committed %d times (%q), want once", n, sv.acts["Heron"])
	}
	select {
	case u := <-updates:
		if tr := triggerOf(t, u.Meta); u.URI != TriggersURI || tr.Type != "message.received" || !strings.Contains(tr.Text, "meet me at the market") {
			t.Fatalf("update %s %+v", u.URI, tr)
		}
	case <-time.After(time.Minute): // only a hung test waits this long
		t.Fatal("Finch heard no update")
	}
	if trs := read(t, finch, TriggersURI); !strings.Contains(trs, "meet me at the market") || !strings.Contains(trs, `"seat":"Finch"`) {
		t.Errorf("Finch's triggers: %s", trs)
	}
	if msgs, _ := call(t, finch, "messages", nil); !strings.Contains(msgs, "Heron") || !strings.Contains(msgs, "meet me at the market") {
		t.Errorf("Finch's messages: %s", msgs)
	}
	if msgs, _ := call(t, heron, "messages", map[string]any{"member": "Finch"}); strings.Contains(msgs, "meet me at the market") && strings.Contains(msgs, "From Finch") {
		t.Errorf("Heron reads as Finch: %s", msgs)
	}
	if w := read(t, finch, WorldURI); !strings.Contains(w, "Finch") {
		t.Errorf("Finch's world: %.200s", w)
	}
}

// Arguments are checked as a local agent's are, and a refused check runs nothing.
func TestBadArgumentsAreTheGamesWords(t *testing.T) {
	sv := serve(t, "arena", arenaTokens, Config{}, "Heron", "Finch")
	heron := connect(t, sv.URL, heronToken, nil)
	out, res := call(t, heron, "buy", map[string]any{"item": "bred", "quantity": "2"})
	if !res.IsError || !strings.Contains(out, "invalid arguments for buy (not executed)") || !strings.Contains(out, "bread") {
		t.Fatalf("bad buy: %s", out)
	}
	if n := sv.commitsOf("Heron"); n != 0 {
		t.Fatalf("a refused call committed %d times", n)
	}
	if _, err := heron.CallTool(context.Background(), &sdk.CallToolParams{Name: "no_such_tool"}); err == nil {
		t.Fatal("an unknown tool was answered")
	}
}

// The door: no token, a wrong one, a page of another origin and a rebinding Host are
// refused before anything runs; refusals are journaled, the first at once and the rest
// counted.
func TestTheDoorRefuses(t *testing.T) {
	sv := serve(t, "arena", arenaTokens, Config{}, "Heron", "Finch")
	for name, tc := range map[string]struct {
		header map[string]string
		want   int
	}{
		"no token":      {nil, http.StatusUnauthorized},
		"wrong token":   {map[string]string{"Authorization": "Bearer " + heronToken + "x"}, http.StatusUnauthorized},
		"basic auth":    {map[string]string{"Authorization": "Basic aGVyb246eA=="}, http.StatusUnauthorized},
		"evil origin":   {map[string]string{"Authorization": "Bearer " + heronToken, "Origin": "http://evil.example"}, http.StatusForbidden},
		"evil host":     {map[string]string{"Authorization": "Bearer " + heronToken, "Host": "evil.example"}, http.StatusForbidden},
		"right token":   {map[string]string{"Authorization": "Bearer " + heronToken}, http.StatusOK},
		"own origin":    {map[string]string{"Authorization": "Bearer " + heronToken, "Origin": strings.TrimSuffix(sv.URL, Path)}, http.StatusOK},
		"origin, token": {map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden},
	} {
		if got := post(t, sv.URL, tc.header); got != tc.want {
			t.Errorf("%s: status %d, want %d", name, got, tc.want)
		}
	}
	if _, err := dial(sv.URL, "not-a-seat-token", nil); err == nil {
		t.Fatal("a client with a wrong token connected")
	}
	if sv.commitsOf("Heron")+sv.commitsOf("Finch") != 0 {
		t.Fatal("a refused request committed")
	}
	var refused []string
	for _, e := range sv.Journal() {
		if e.Kind == KindRefused {
			refused = append(refused, e.Text)
		}
	}
	if len(refused) != 1 || !strings.Contains(refused[0], "refused a request from 127.0.0.1") {
		t.Fatalf("refusals journaled: %q, want the first alone until the minute ends", refused)
	}
	sv.journal.flush()
	last := sv.Journal()[len(sv.Journal())-1]
	if last.Kind != KindRefused || !regexp.MustCompile(`refused \d+ more requests in the last minute: .*a wrong token from 127.0.0.1 ×\d`).MatchString(last.Text) {
		t.Fatalf("the minute's count: %+v", last)
	}
}

// A seat's token never reaches another seat's session: the SDK refuses it (403).
func TestASessionIsItsSeats(t *testing.T) {
	sv := serve(t, "arena", arenaTokens, Config{}, "Heron", "Finch")
	heron := connect(t, sv.URL, heronToken, nil)
	body := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"send_message","arguments":{"to":"Heron","text":"as Heron?"}}}`
	req, _ := http.NewRequest(http.MethodPost, sv.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+finchToken)
	req.Header.Set(sessionHeader, heron.ID())
	req.Header.Set("Mcp-Protocol-Version", heron.InitializeResult().ProtocolVersion)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || sv.commitsOf("Heron")+sv.commitsOf("Finch") != 0 {
		t.Fatalf("Finch's token on Heron's session: %d", resp.StatusCode)
	}
}

// Past its rate limit a seat's call is a 429 tool error saying when to retry, and
// nothing runs; the other seat is not held back.
func TestRateLimitPerSeat(t *testing.T) {
	sv := serve(t, "arena", arenaTokens, Config{Limit: ratelimit.Budget{PerSecond: 1, Burst: 2, BurstWindow: time.Hour}}, "Heron", "Finch")
	heron := connect(t, sv.URL, heronToken, nil) // the session took one
	finch := connect(t, sv.URL, finchToken, nil)
	call(t, heron, "status", nil)
	call(t, heron, "status", nil)
	out, res := call(t, heron, "send_message", map[string]any{"to": "Finch", "text": "too many"})
	var rl rateLimit
	b, _ := json.Marshal(res.StructuredContent)
	if !res.IsError || !strings.HasPrefix(out, "429 Too Many Requests: seat Heron") || json.Unmarshal(b, &rl) != nil || rl.Status != 429 || rl.RetryAfter <= 0 || rl.RetryAfter > 1 {
		t.Fatalf("over the limit: %s %s", out, b)
	}
	if sv.commitsOf("Heron") != 0 {
		t.Fatal("a refused act committed")
	}
	if out, res := call(t, finch, "status", nil); res.IsError {
		t.Fatalf("Finch is held back by Heron: %s", out)
	}
}

// A seat keeps at most MaxSessions: a new one closes its oldest, and the journal says so.
func TestNewSessionClosesTheOldest(t *testing.T) {
	sv := serve(t, "arena", arenaTokens, Config{MaxSessions: 1}, "Heron", "Finch")
	first := connect(t, sv.URL, heronToken, nil)
	second := connect(t, sv.URL, heronToken, nil)
	if out, res := call(t, second, "status", nil); res.IsError {
		t.Fatalf("the new session: %s", out)
	}
	done := make(chan error, 1)
	go func() { done <- first.Wait() }()
	select {
	case <-done:
	case <-time.After(time.Minute): // only a hung test waits this long
		t.Fatal("the oldest session stays open")
	}
	waitJournal(t, sv.Server, func(es []Entry) bool {
		return slices.ContainsFunc(es, func(e Entry) bool { return e.Kind == KindClosed && e.Seat == "Heron" }) &&
			slices.ContainsFunc(es, func(e Entry) bool { return e.Kind == KindLeave && e.Seat == "Heron" }) &&
			slices.ContainsFunc(es, func(e Entry) bool {
				return e.Kind == KindJoin && strings.Contains(e.Text, "Heron joined with test-client 1 from 127.0.0.1")
			})
	})
}

// waitJournal waits until the journal satisfies ok.
func waitJournal(t *testing.T, s *Server, ok func([]Entry) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok(s.Journal()) {
		if time.Now().After(deadline) {
			t.Fatalf("journal: %+v", s.Journal())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// In the universe each seat's observe_game shows its own ships, never the other's.
func TestUniverseSeatsSeeTheirOwnShips(t *testing.T) {
	sv := serve(t, "universe", map[string]string{"ALPHA": heronToken, "BETA": finchToken}, Config{}, "ALPHA", "BETA")
	for seat, tok := range map[string]string{"ALPHA": heronToken, "BETA": finchToken} {
		other := map[string]string{"ALPHA": "BETA", "BETA": "ALPHA"}[seat]
		out, res := call(t, connect(t, sv.URL, tok, nil), "observe_game", nil)
		if res.IsError || !strings.Contains(out, seat+"-1") || strings.Contains(out, other+"-1") {
			t.Errorf("%s's observe_game: %s", seat, out)
		}
	}
}

// Served on stdin and stdout, the seat plays with no token.
func TestStdioServesOneSeat(t *testing.T) {
	sv := serve(t, "arena", nil, Config{}, "Heron")
	srvIn, cliOut := io.Pipe()
	cliIn, srvOut := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- sv.ServeStdio(ctx, "Heron", srvIn, srvOut) }()
	c := sdk.NewClient(&sdk.Implementation{Name: "pipe", Version: "1"}, nil)
	sess, err := c.Connect(ctx, &sdk.IOTransport{Reader: cliIn, Writer: cliOut}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out, _ := call(t, sess, "status", nil); !strings.HasPrefix(out, "Heron ·") {
		t.Fatalf("status over stdio: %q", out)
	}
	sess.Close()
	select {
	case <-done:
	case <-time.After(time.Minute): // only a hung test waits this long
		t.Fatal("ServeStdio goes on after its client left")
	}
	if err := sv.ServeStdio(ctx, "Nobody", srvIn, srvOut); err == nil || !strings.Contains(err.Error(), "seats: Heron") {
		t.Fatalf("an unknown seat: %v", err)
	}
}

func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xa) == string(yb)
}
