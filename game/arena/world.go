package arena

import (
	"fmt"
	"strings"
	"time"

	"github.com/coplayhq/coplay/game"
)

// maxCatchUp is the most game minutes one advance processes; a longer gap (a machine
// asleep for days at a high speed) skips the rest quietly.
const maxCatchUp = 7 * 24 * 60

// world is the state with the rules that move it. It is not safe for concurrent use:
// Game holds a lock around it.
type world struct {
	s   *state
	out []game.Trigger // produced since the caller last took them
	// outbox holds what the agent did that the league's other seats must see (a message
	// to them, a battle joined), for Game to post once the world's lock is released.
	outbox []letter
}

// minuteOf returns the whole game minutes from Epoch to t.
func minuteOf(t time.Time) int64 { return int64(t.Sub(Epoch) / time.Minute) }

// timeOf returns the game time of minute m.
func timeOf(m int64) time.Time { return Epoch.Add(time.Duration(m) * time.Minute) }

// advance moves the world to game time to, one game minute at a time: everything that
// happens, happens on a minute. Time never goes back.
func (w *world) advance(to time.Time) {
	if !to.After(w.s.Now) {
		return
	}
	last := minuteOf(to)
	if last-w.s.Tick > maxCatchUp {
		w.s.Tick = last - maxCatchUp
	}
	for m := w.s.Tick + 1; m <= last; m++ {
		w.s.Tick, w.s.Now = m, timeOf(m)
		w.tick(m)
	}
	w.s.Now = to
}

// tick is one game minute of the world.
func (w *world) tick(m int64) {
	w.scriptTick(m)
	w.marketTick(m)
	w.battleTick(m)
	w.workTick()
	w.energyTick(m)
	w.pendingTick()
	w.helpTick()
	if !w.quiet(m) {
		w.npcTick(m)
		if m-w.s.LastWake >= wakeEvery {
			w.speakUp(m)
		}
	}
	w.trim()
}

// emit records a trigger at the world's time.
func (w *world) emit(typ, subject, text string) {
	w.out = append(w.out, game.Trigger{Type: typ, Subject: subject, Text: text, Time: w.s.Now})
	w.s.LastWake = w.s.Tick
}

// take returns the triggers produced since the last take.
func (w *world) take() []game.Trigger {
	out := w.out
	w.out = nil
	return out
}

// trim forgets the oldest messages and finished battles past what is kept.
func (w *world) trim() {
	if n := len(w.s.Messages); n > maxMessages {
		w.s.Messages = append([]*message(nil), w.s.Messages[n-maxMessages:]...)
	}
	over := 0
	for _, b := range w.s.Battles {
		if b.Over {
			over++
		}
	}
	if over <= maxOverBattles {
		return
	}
	kept := w.s.Battles[:0]
	for _, b := range w.s.Battles {
		if b.Over && over > maxOverBattles {
			over--
			continue
		}
		kept = append(kept, b)
	}
	w.s.Battles = kept
}

// workTick ends work whose time is up and pays for it.
func (w *world) workTick() {
	job := w.s.Agent.Work
	if job == nil || w.s.Now.Before(job.End) {
		return
	}
	w.s.Agent.Work = nil
	j, _ := JobNamed(job.Job)
	pay := j.Gold * job.Shifts
	w.s.Agent.Gold += pay
	got := fmt.Sprintf("+%d gold", pay)
	if n := j.Apples * job.Shifts; n > 0 {
		w.addItem("apple", n)
		got += fmt.Sprintf(", +%d apple", n)
	}
	if n := j.Standing * job.Shifts; n > 0 && w.s.Agent.Community != "" {
		w.s.Agent.Standing = clamp(w.s.Agent.Standing+n, 0, 100)
		got += fmt.Sprintf(", +%d standing", n)
	}
	w.emit("schedule", "work", fmt.Sprintf("%s work over: %s", job.Job, got))
}

// energyTick lets energy drift toward restLevel: hunger above it, rest below it.
func (w *world) energyTick(m int64) {
	a := &w.s.Agent
	switch {
	case a.Energy > restLevel && m%8 == 0:
		a.Energy--
	case a.Energy < restLevel && a.Work == nil && m%4 == 0:
		a.Energy++
	}
}

func (w *world) addItem(item string, n int) {
	if w.s.Agent.Inventory == nil {
		w.s.Agent.Inventory = map[string]int{}
	}
	w.s.Agent.Inventory[item] += n
	if w.s.Agent.Inventory[item] <= 0 {
		delete(w.s.Agent.Inventory, item)
	}
}

// memberNamed returns the member called name (any case), or a refusal that says who
// was probably meant.
func (w *world) memberNamed(name string) (*member, *game.Error) {
	for _, m := range w.s.Members {
		if strings.EqualFold(m.Name, name) {
			return m, nil
		}
	}
	var names []string
	for _, m := range w.s.Members {
		names = append(names, m.Name)
	}
	msg := fmt.Sprintf("unknown member %q", name)
	if near := game.Closest(name, names, 1); len(near) > 0 {
		msg += fmt.Sprintf(": did you mean %q?", near[0])
	} else {
		msg += " (members: " + strings.Join(names, ", ") + ")"
	}
	return nil, &game.Error{Code: CodeUnknown, Message: msg}
}

// leaderOf returns the leader of a community.
func (w *world) leaderOf(community string) *member {
	for _, m := range w.s.Members {
		if m.Leader && m.Community == community {
			return m
		}
	}
	return nil
}

// membersOf returns the members of a community, the leader first.
func (w *world) membersOf(community string) []*member {
	var out []*member
	for _, m := range w.s.Members {
		if m.Community == community {
			if m.Leader {
				out = append([]*member{m}, out...)
				continue
			}
			out = append(out, m)
		}
	}
	return out
}

// remember adds a shared memory and moves trust; a member keeps their last 12 memories.
func (w *world) remember(m *member, trust int, text string) {
	m.Trust = clamp(m.Trust+trust, -100, 100)
	if text == "" {
		return
	}
	m.Memories = append(m.Memories, memory{Time: w.s.Now, Text: text, Good: trust >= 0})
	if n := len(m.Memories); n > 12 {
		m.Memories = append([]memory(nil), m.Memories[n-12:]...)
	}
}

func clamp(v, lo, hi int) int { return max(lo, min(hi, v)) }

// me is the name of the agent this world is played by: AgentName, or a league's seat.
func (w *world) me() string { return w.s.Agent.Name }
