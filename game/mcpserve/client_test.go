package mcpserve

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/mcp"
)

// coplay's own MCP client (game/mcp) joining a seat sees the tools a local agent of that
// seat sees (names, descriptions, schemas, kinds, dry runs and their effects: the
// previews are its dry runs, not tools), its dry run is the seat's, and it wakes with
// the trigger a local agent reads.
func TestCoplaysClientSeesTheLocalGame(t *testing.T) {
	sv := serve(t, "arena", arenaTokens, Config{}, "Heron", "Finch")
	join := func(token string) *mcp.Game {
		g, err := mcp.Open(context.Background(), mcp.Config{URL: sv.URL, Headers: map[string]string{"Authorization": "Bearer " + token}, Observe: []string{WorldURI}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { g.Close() })
		return g
	}
	heron, finch := join(heronToken), join(finchToken)
	local := sv.league.Seats[0].Game.Tools()
	joined := heron.Tools()
	if len(joined) != len(local) {
		t.Fatalf("joined tools %v, local %v", names(joined), names(local))
	}
	for i, lt := range local {
		jt := joined[i]
		ls, _ := lt.SchemaJSON()
		js, _ := jt.SchemaJSON()
		if jt.Name != lt.Name || jt.Description != lt.Description || jt.Kind != lt.Kind || jt.DryRun != lt.DryRun ||
			!slices.Equal(jt.Effects, lt.Effects) || !sameJSON(t, ls, js) {
			t.Errorf("joined %s %q %s dry %v %v %s; local %s %q %s dry %v %v %s", jt.Name, jt.Description, jt.Kind, jt.DryRun, jt.Effects, js,
				lt.Name, lt.Description, lt.Kind, lt.DryRun, lt.Effects, ls)
		}
	}

	args := json.RawMessage(`{"to":"Finch","text":"see you at dawn"}`)
	want, _, err := sv.league.Seats[0].Game.(game.Simulator).Simulate(context.Background(), "send_message", args)
	if err != nil {
		t.Fatal(err)
	}
	got, ok, err := heron.Simulate(context.Background(), "send_message", args)
	if err != nil || !ok || got.Summary != want.Summary || got.Fails != want.Fails {
		t.Fatalf("joined dry run %+v ok %v (%v); local %+v", got, ok, err, want)
	}

	if _, err := finch.Observe(context.Background()); err != nil { // connects, subscribes
		t.Fatal(err)
	}
	if res, err := heron.Call(context.Background(), "send_message", args); err != nil || !res.OK() {
		t.Fatalf("send: %+v %v", res, err)
	}
	select {
	case tr := <-finch.Triggers():
		if tr.Type != "message.received" || tr.Subject != "Heron" || !strings.Contains(tr.Text, "see you at dawn") {
			t.Fatalf("Finch's trigger %+v", tr)
		}
	case <-time.After(time.Minute): // only a hung test waits this long
		t.Fatal("Finch's coplay did not wake")
	}
}

func names(tools []game.Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}
