package arena

import (
	"strings"
	"testing"

	"github.com/coplayhq/coplay/game"
)

// The driver shares --seed and --speed, checks --speed, saves, and resumes from a save.
func TestDriverOpensAndResumes(t *testing.T) {
	d, err := game.LookupDriver(DriverName)
	if err != nil || !d.Saves {
		t.Fatalf("driver %s: %+v, %v", DriverName, d, err)
	}
	if _, err := openDriver(t, game.Values{"speed": -1.0}, game.Env{CheckOnly: true}); err == nil || !strings.Contains(err.Error(), "--speed must be a positive factor") {
		t.Fatalf("--speed -1: %v", err)
	}
	if o, err := openDriver(t, nil, game.Env{CheckOnly: true}); o != nil || err != nil {
		t.Fatalf("check only: %v %v", o, err)
	}
	o, err := openDriver(t, game.Values{"seed": int64(3), "speed": 100.0}, game.Env{})
	if err != nil {
		t.Fatal(err)
	}
	saved, err := o.Save()
	if err != nil || !strings.Contains(string(saved), `"seed":3`) {
		t.Fatalf("save: %.80s %v", saved, err)
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := openDriver(t, nil, game.Env{State: saved, Resuming: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if g := r.Game.(*Game); g.View().Agent.Name != AgentName || !strings.Contains(string(save(t, g)), `"seed":3`) {
		t.Fatal("the resumed arena is not the saved one")
	}
	tools, err := openDriver(t, nil, game.Env{ToolsOnly: true})
	if err != nil || len(tools.Game.Tools()) != 13 {
		t.Fatalf("tools only: %v", err)
	}
	_ = tools.Close()
}
