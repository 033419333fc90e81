package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

// testReplay is a session of n steps read back: credits grow by 10 a step, every 7th
// step has a call vetoed by a rule, and the notes change at every step.
func testReplay(n int) *agent.Replay {
	rp := &agent.Replay{}
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	for i := 1; i <= n; i++ {
		at := t0.Add(time.Duration(i) * time.Minute)
		obs := &game.Observation{Summary: fmt.Sprintf("Agent X · %d credits at step %d", 1000+10*i, i), Time: at,
			Metrics: []game.Metric{{Name: "credits", Value: float64(1000 + 10*i)}}}
		call := agent.ReplayCall{ID: fmt.Sprint("c", i), Tool: "orbit_ship", Kind: "act", Args: []byte(`{"shipSymbol":"X-1"}`),
			Decision: &agent.Decision{CallID: fmt.Sprint("c", i), Decision: agent.Approve, By: "policy"}, Result: &game.Result{Output: "X-1 is IN_ORBIT"}}
		if i%7 == 0 {
			call.Tool = "set_flight_mode"
			call.Decision = &agent.Decision{CallID: call.ID, Decision: agent.Veto, By: "rule", Reason: fmt.Sprintf("no burning (step %d)", i)}
			call.Result = nil
		}
		notes := agent.NotesView{Text: fmt.Sprintf("# Notes\n\n## Situation\n\nwritten at step %d\n", i), Version: i}
		rp.Steps = append(rp.Steps, agent.ReplayStep{Step: i, Seq: uint64(10 * i), Time: at, Observation: obs,
			Notes: agent.ReplayNotes{Version: i, Text: notes.Text, Plan: []agent.PlanStep{}}, Calls: []agent.ReplayCall{call},
			Events: []agent.Event{
				{Seq: uint64(10 * i), Time: at, Type: agent.EventStep, Step: i},
				{Seq: uint64(10*i + 1), Time: at, Type: agent.EventObservation, Step: i, Observation: obs},
				{Seq: uint64(10*i + 2), Time: at, Type: agent.EventNotes, Step: i, Notes: &notes},
				{Seq: uint64(10*i + 3), Time: at, Type: agent.EventDecision, Step: i, Decision: call.Decision},
			}})
	}
	return rp
}

func keyPress(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	}
	r := []rune(s)[0]
	return tea.KeyPressMsg{Code: r, Text: s}
}

// TestReplayScreen jumps to step 150 of 300, steps back to the veto before it, and
// checks at 80×24 and 160×48 that Pending shows the veto's reason, the notes are at that
// step's version and the world pane shows that step; then forks there with advice.
func TestReplayScreen(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprint(size[0], "x", size[1]), func(t *testing.T) {
			r := NewReplay(testReplay(300), Info{Game: "universe", Session: "s1"})
			r.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			if r.Selected() != 300 {
				t.Fatalf("opens at step %d, want the last", r.Selected())
			}
			for _, k := range []string{"g", "1", "5", "0", "enter"} {
				r.Update(keyPress(k))
			}
			if r.Selected() != 150 {
				t.Fatalf("after g 150: step %d", r.Selected())
			}
			r.Update(keyPress("V"))
			if r.Selected() != 147 {
				t.Fatalf("previous veto from 150: step %d, want 147", r.Selected())
			}
			screen := ansi.Strip(r.render())
			lines := strings.Split(screen, "\n")
			if len(lines) != size[1] {
				t.Fatalf("%d lines, want %d", len(lines), size[1])
			}
			for _, want := range []string{"no burning (step 147)", "Pending at step 147", "step 147/300"} {
				if !strings.Contains(screen, want) {
					t.Errorf("screen lacks %q:\n%s", want, screen)
				}
			}
			r.Update(keyPress("2")) // the notes tab on a narrow screen
			screen = ansi.Strip(r.render())
			if !strings.Contains(screen, "(v147)") || !strings.Contains(screen, "written at step 147") {
				t.Errorf("notes not at step 147's version:\n%s", screen)
			}
			r.Update(keyPress("1"))
			if screen = ansi.Strip(r.render()); !strings.Contains(screen, "2,470 credits") && !strings.Contains(screen, "2470 credits") {
				t.Errorf("world pane not at step 147:\n%s", screen)
			}
			r.Update(keyPress("left"))
			r.Update(keyPress("v"))
			if r.Selected() != 147 {
				t.Errorf("back one then next veto: step %d, want 147", r.Selected())
			}
			r.Update(keyPress("?"))
			if screen = ansi.Strip(r.render()); !strings.Contains(screen, "previous veto") || !strings.Contains(screen, "fork here") {
				t.Errorf("help lacks the replay keys:\n%s", screen)
			}
			r.Update(keyPress("?"))
			r.Update(keyPress("f"))
			for _, k := range "sell" {
				r.Update(keyPress(string(k)))
			}
			if _, cmd := r.Update(keyPress("enter")); cmd == nil {
				t.Error("forking did not end the replay")
			}
			if c := r.choice; !c.Fork || c.Step != 147 || c.Advice != "sell" {
				t.Errorf("choice = %+v, want a fork at 147 with advice sell", c)
			}
		})
	}
}

// leagueReplay is two seats' replays of n steps each on one timeline, as `sessions
// replay LEAGUE` makes it: Heron's step i, then Finch's (Finch's credits are Heron's
// plus 5000), every event stamped with its seat.
func leagueReplay(n int) *agent.Replay {
	heron, finch := testReplay(n), testReplay(n)
	out := &agent.Replay{}
	for i := range n {
		for _, seat := range []struct {
			name string
			st   agent.ReplayStep
		}{{"Heron", heron.Steps[i]}, {"Finch", finch.Steps[i]}} {
			st := seat.st
			evs := append([]agent.Event(nil), st.Events...)
			for j := range evs {
				evs[j].Seat = seat.name
			}
			if seat.name == "Finch" {
				st.Time = st.Time.Add(30 * time.Second)
				obs := *st.Observation
				obs.Summary = fmt.Sprintf("Agent F · %d credits at step %d", 6000+10*st.Step, st.Step)
				st.Observation = &obs
			}
			evs = append(evs, agent.Event{Time: st.Time, Type: agent.EventText, Step: st.Step, Seat: seat.name,
				Text: fmt.Sprintf("%s thinks at step %d", seat.name, st.Step)})
			st.Events = evs
			out.Steps = append(out.Steps, st)
		}
	}
	return out
}

// TestLeagueReplayNamesTheSeat: each step of a league's replay is labelled with its seat
// in the timeline and the status line, the seat bar shows both seats, the world pane and
// the log show the selected seat's, a step number typed is the selected seat's, the
// next-seat key shows the other seat at that point, and forking is refused with a word
// on why.
func TestLeagueReplayNamesTheSeat(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprint(size[0], "x", size[1]), func(t *testing.T) {
			r := NewReplay(leagueReplay(10), Info{Game: "arena", Session: "arena-1",
				Seats: []SeatInfo{{Name: "Heron", Model: "autopilot"}, {Name: "Finch", Model: "gpt-x"}}})
			r.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			screen := ansi.Strip(r.render())
			lines := strings.Split(screen, "\n")
			if len(lines) != size[1] {
				t.Fatalf("%d lines, want %d", len(lines), size[1])
			}
			if bar := lines[len(lines)-3]; !strings.Contains(bar, "Heron") || !strings.Contains(bar, "[") || !strings.Contains(bar, "Finch") || strings.Contains(bar, "next waiting") {
				t.Errorf("no seat bar (without the live keys) above the timeline:\n%s", screen)
			}
			if !strings.Contains(screen, "Finch step 10 · 20/20") || !strings.Contains(screen, "Finch step 10 ·") {
				t.Errorf("the last step is not labelled Finch's:\n%s", screen)
			}
			r.Update(keyPress("3")) // the log, on a narrow screen
			if screen = ansi.Strip(r.render()); !strings.Contains(screen, "Finch thinks at step 10") || strings.Contains(screen, "Heron thinks") {
				t.Errorf("the log is not Finch's alone:\n%s", screen)
			}
			r.Update(keyPress("1"))
			r.Update(keyPress("left"))
			if screen = ansi.Strip(r.render()); !strings.Contains(screen, "Heron step 10 · 19/20") || !strings.Contains(screen, "1,100 credits") && !strings.Contains(screen, "1100 credits") {
				t.Errorf("the step before is not Heron's step 10 with Heron's world:\n%s", screen)
			}
			for _, k := range []string{"g", "4", "enter"} {
				r.Update(keyPress(k))
			}
			if r.Selected() != 4 || r.seat() != "Heron" || r.idx != 6 {
				t.Errorf("g 4 from Heron's step: step %d of %q at %d, want Heron's step 4 at 6", r.Selected(), r.seat(), r.idx)
			}
			r.Update(keyPress("."))
			if r.seat() != "Finch" || r.Selected() != 4 {
				t.Errorf("forward from Heron's step 4: %s's step %d, want Finch's 4", r.seat(), r.Selected())
			}
			if screen = ansi.Strip(r.render()); !strings.Contains(screen, "6,040 credits") && !strings.Contains(screen, "6040 credits") {
				t.Errorf("the world pane does not show Finch's world:\n%s", screen)
			}
			if r.Update(keyPress("s")); r.seat() != "Heron" || r.Selected() != 4 {
				t.Errorf("next seat from Finch's step 4: %s's step %d, want Heron's 4", r.seat(), r.Selected())
			}
			r.Update(keyPress("."))
			if r.Update(keyPress("f")); r.inputFor != inputNone || !strings.Contains(r.hint, "cannot fork here") {
				t.Errorf("fork on a league's replay: input %d, hint %q", r.inputFor, r.hint)
			}
		})
	}
}
