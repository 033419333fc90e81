package spacetraders

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/coplayhq/coplay/game"
)

// recorder is a loopback server that records every request and answers 404 (or what
// answer says).
type recorder struct {
	mu     sync.Mutex
	paths  []string
	answer func(w http.ResponseWriter, r *http.Request) bool
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rc.mu.Lock()
	rc.paths = append(rc.paths, r.Method+" "+r.URL.Path)
	rc.mu.Unlock()
	if rc.answer != nil && rc.answer(w, r) {
		return
	}
	w.WriteHeader(http.StatusNotFound)
	w.Write([]byte(`{"error":{"code":404,"message":"not found"}}`))
}

func (rc *recorder) sent() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]string(nil), rc.paths...)
}

func newRecorded(t *testing.T, answer func(http.ResponseWriter, *http.Request) bool) (*Game, *recorder) {
	t.Helper()
	rc := &recorder{answer: answer}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	return New(Config{BaseURL: srv.URL + "/v2", Token: "t"}), rc
}

// Every symbol argument of every tool is checked as a path segment during validation:
// a bad one is refused with a problem at its path, and nothing is sent.
func TestBadSymbolsRefusedBeforeSending(t *testing.T) {
	g, rc := newRecorded(t, nil)
	reg := game.NewRegistry(g)
	good := map[string]any{"shipSymbol": "S-1", "waypointSymbol": "X1-A-B1", "contractId": "c1", "symbol": "FOOD",
		"tradeSymbol": "FOOD", "units": 1, "toShipSymbol": "S-2", "flightMode": "CRUISE", "shipType": "SHIP_PROBE"}
	symbols := []string{"shipSymbol", "waypointSymbol", "contractId", "toShipSymbol", "systemSymbol"}
	checked := 0
	for _, tl := range g.Tools() {
		for _, field := range symbols {
			if _, ok := tl.Schema.Properties[field]; !ok {
				continue
			}
			for _, bad := range []string{"..", ".", "", "A/B", "A?x=1", "A#b", "%2e%2e"} {
				if bad == "" && field == "systemSymbol" {
					continue // optional: empty means the first ship's system
				}
				args := map[string]any{}
				for _, req := range tl.Schema.Required {
					args[req] = good[req]
				}
				if tl.Name == "observe_detail" {
					args["view"] = map[string]string{"shipSymbol": "ship", "contractId": "contract", "systemSymbol": "system_waypoints"}[field]
					if args["view"] == "" {
						args["view"] = "waypoint"
					}
				}
				args[field] = bad
				raw, _ := json.Marshal(args)
				_, err := reg.Call(context.Background(), tl.Name, raw)
				var ve *game.ValidationError
				if !errors.As(err, &ve) || !strings.Contains(err.Error(), "arguments."+field+":") {
					t.Errorf("%s with %s=%q: want a validation problem at arguments.%s, got %v", tl.Name, field, bad, field, err)
				}
				checked++
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d bad symbols tried; the catalogue lost its symbol arguments?", checked)
	}
	if s := rc.sent(); len(s) != 0 {
		t.Errorf("requests sent for refused calls: %v", s)
	}
}

// Even a call that skips validation never sends a dot segment: the client refuses it.
func TestClientNeverSendsDotSegments(t *testing.T) {
	g, rc := newRecorded(t, nil)
	for _, sym := range []string{"..", ".", ""} {
		_, err := g.Call(context.Background(), ToolOrbitShip, json.RawMessage(`{"shipSymbol":"`+sym+`"}`))
		if err == nil || !strings.Contains(err.Error(), "not sent") {
			t.Errorf("orbit %q: want a not-sent error, got %v", sym, err)
		}
	}
	if _, err := g.Client().Ship(context.Background(), ".."); err == nil {
		t.Error("GET /my/ships/.. was allowed")
	}
	if s := rc.sent(); len(s) != 0 {
		t.Errorf("requests sent: %v", s)
	}
}

// A redirect of an action is not followed (the action re-sent elsewhere is not what was
// approved); it comes back as a refusal. A GET's redirect still is followed.
func TestActionRedirectsNotFollowed(t *testing.T) {
	g, rc := newRecorded(t, func(w http.ResponseWriter, r *http.Request) bool {
		switch r.URL.Path {
		case "/v2/my/ships/S-1/orbit", "/v2/my/agent":
			http.Redirect(w, r, "/v2/elsewhere", http.StatusTemporaryRedirect)
			return true
		case "/v2/elsewhere":
			w.Write([]byte(`{"data":{"symbol":"A","headquarters":"X1-A-B1","credits":5,"startingFaction":"COSMIC","shipCount":1}}`))
			return true
		}
		return false
	})
	r, err := g.Call(context.Background(), ToolOrbitShip, json.RawMessage(`{"shipSymbol":"S-1"}`))
	if err != nil || r.Err == nil || r.Err.Code != http.StatusTemporaryRedirect || !strings.Contains(r.Output, "not followed for POST") {
		t.Fatalf("orbit redirected: %+v %v, want a refusal", r, err)
	}
	if got := strings.Join(rc.sent(), ", "); got != "POST /v2/my/ships/S-1/orbit" {
		t.Errorf("sent %s; the POST must not be re-sent", got)
	}
	a, err := g.Client().Agent(context.Background())
	if err != nil || a.Credits != 5 {
		t.Errorf("GET redirect not followed: %+v %v", a, err)
	}
}
