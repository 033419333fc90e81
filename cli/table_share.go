package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/league"
	"github.com/coplayhq/coplay/live"
)

// What a run shows of itself, to this coplay's own screen or writer and to whoever
// attaches: the same for a lone run and a league, a lone run's words being its one
// session's.

// share puts a hub between the league and whoever watches it: this coplay's own reader
// first (via "screen" or "stdin"), then screens attached through the socket (coplay
// attach) and over SSH, which see every seat. Call it before Run: the own reader
// misses nothing.
func (t *table) share(o options, via string) (*live.Sub, error) {
	hub := live.NewHub(t.League)
	own := hub.Subscribe(via, false)
	if t.host.live != nil {
		t.host.live.ServeAttach(hub, t.hello(o))
	}
	var err error
	t.host.sshAddr, t.host.sshNote, err = serveSSH(o, hub, t.hello(o), t.notice, &t.host.closers)
	return own, err
}

// notice journals a word about who watches (an SSH connection and its key) in every
// seat's journal, as a notice every screen shows.
func (t *table) notice(text string) {
	for _, p := range t.seats {
		_ = p.runner.Notice(text)
	}
}

// hello is what a screen shows of the run, its own or an attached one: a lone run's
// session, brain and game; or the world's title, the league's name, every seat and what
// plays it.
func (t *table) hello(o options) live.Hello {
	first := t.seats[0]
	h := first.hello(o)
	if t.lone() {
		return h
	}
	seats := t.Seats()
	// The world's title, not the first seat's ("Arena (…) · Heron"): the status bar
	// shows it whichever seat is focused.
	h.Game = strings.TrimSuffix(first.title, " · "+seats[0].Name)
	h.Session, h.Brain = t.name, "league of "+t.describe()
	h.Banner = "league " + t.name + ": " + t.describe() + " on " + h.Game
	for _, s := range seats {
		h.Seats = append(h.Seats, live.Seat{Name: s.Name, Model: s.Model})
	}
	return h
}

// describe names the seats and what plays each: "Heron (autopilot), Lark (gpt-4o-mini)".
func (t *table) describe() string {
	var parts []string
	for _, s := range t.Seats() {
		parts = append(parts, s.Name+" ("+s.Model+")")
	}
	return strings.Join(parts, ", ")
}

// history is what each seat's journal holds of a resumed or forked run, for the
// screen's log: every seat's last events, stamped with its seat, on one timeline.
func (t *table) history(resume bool, stderr io.Writer) []agent.Event {
	var out []agent.Event
	seats := t.Seats()
	for i, p := range t.seats {
		for _, ev := range resumedHistory(resume, p.session, stderr) {
			out = append(out, league.Stamp(seats[i].Name, ev))
		}
	}
	slices.SortStableFunc(out, func(a, b agent.Event) int { return a.Time.Compare(b.Time) })
	return out
}

// introduce says on stderr, before a headless run's first event, what the person may
// not expect: a lone run's resume and what its game could not make a tool of; a
// league's name and seats.
func (t *table) introduce(stderr io.Writer) {
	if !t.lone() {
		fmt.Fprintf(stderr, "league %s: %s\n", t.name, t.describe())
		return
	}
	p := t.seats[0]
	for _, line := range []string{p.resumeNote, p.skipped} {
		if line != "" {
			fmt.Fprintln(stderr, line)
		}
	}
}

// sayHowToResume tells the person, once the screen is gone, what they played and the
// command that goes on with it: quitting must not leave them guessing a name. again is
// the command that resumes a lone run's session (resumeCommand); a league is resumed
// by its name, every seat with it.
func (t *table) sayHowToResume(w io.Writer, o options, again func(session string) string) {
	if t.lone() {
		sayHowToResume(w, t.seats[0], again(t.seats[0].session.Name()))
		return
	}
	cmd := "coplay --resume " + shellWord(t.name)
	if o.data != "" {
		cmd += " --data " + shellWord(o.data)
	}
	fmt.Fprintf(w, "League %s is saved (%s). To go on with every seat:\n  %s\n", t.name, t.describe(), cmd)
}
