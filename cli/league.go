package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/notes"
)

// seatLeague seats a league: a new one's seats from --seat, or a resumed or forked
// league's (resumed names the league to go on with, "" for a new league or a fork),
// each with its options (seats.go) and its session, LEAGUE-SEAT, all waiting in one
// approval queue.
func (t *table) seatLeague(o *options, resumed, _ string, beforeCreate func() error, created *[]string) ([]seatPlan, error) {
	seats, err := t.seatsOf(o, resumed, beforeCreate, created)
	if err != nil {
		return nil, err
	}
	t.gate = agent.NewGate()
	var plans []seatPlan
	for _, ls := range seats {
		so, err := o.seatOptions(ls.spec)
		if err != nil {
			return nil, err
		}
		p := t.seat()
		if p.session = ls.session; p.session == nil {
			if err := p.newSeatSession(so, t.name, created); err != nil {
				return nil, err
			}
		}
		plans = append(plans, seatPlan{spec: ls.spec, opts: so, resumed: ls.session != nil})
	}
	return plans, nil
}

// seatsOf names the league and says its seats: a resumed league's, read from its
// sessions, or a new league's from --seat (their sessions not made yet). Either way
// o.seats ends as the seats in order, checked.
func (t *table) seatsOf(o *options, resumed string, beforeCreate func() error, created *[]string) ([]leagueSeat, error) {
	var seats []leagueSeat
	var err error
	switch {
	case o.fork != "":
		seats, err = t.forkSeats(o, created)
		o.resume, o.fork = true, ""
	case resumed != "":
		seats, err = o.resumeSeats(t.host.book, resumed)
		t.name = resumed
	default:
		for _, s := range o.seats {
			seats = append(seats, leagueSeat{spec: s})
		}
		t.name = leagueName(t.host.book, o.game)
	}
	if err != nil {
		return nil, err
	}
	if o.resume {
		// A resumed or forked league's seats are its sessions': they are checked as
		// --seat's are.
		o.seats = nil
		for _, s := range seats {
			o.seats = append(o.seats, s.spec)
		}
		if err := o.checkSeats(); err != nil {
			if resumed != "" {
				err = fmt.Errorf("league %s: %w", resumed, err)
			}
			return nil, err
		}
	}
	if beforeCreate != nil {
		if err := beforeCreate(); err != nil {
			return nil, err
		}
	}
	return seats, nil
}

// newSeatSession makes a new league seat's session, LEAGUE-SEAT, recording its league,
// seat and profile.
func (p *play) newSeatSession(so options, leagueName string, created *[]string) error {
	kind, _ := so.brainKind()
	var err error
	if p.session, err = p.book.Create(leagueName+"-"+so.seat, so.game, so.sessionModel(kind)); err != nil {
		return err
	}
	*created = append(*created, p.session.Name())
	if err := p.session.SetLeague(leagueName, so.seat); err != nil {
		return err
	}
	return so.recordProfile(p.session)
}

// leagueName is a name for a new league, like a session's ("arena-2026-11-27-0231"), that
// no session of the notebook uses, alone or as a seat's ("NAME-SEAT").
func leagueName(book *notes.Book, gameName string) string {
	base := gameName + "-" + time.Now().Format("2006-01-02-1504")
	infos, _ := book.List()
	taken := func(name string) bool {
		for _, info := range infos {
			if info.Name == name || strings.HasPrefix(info.Name, name+"-") {
				return true
			}
		}
		return false
	}
	name := base
	for i := 2; taken(name); i++ {
		name = fmt.Sprintf("%s-%d", base, i)
	}
	return name
}

// seatPlayer says what plays a seat, for the seat bar: the brain, after the profile that
// chose it when that says more ("calm (autopilot)", "lark (gpt-4o-mini)"); a built-in
// temperament by its name ("autopilot/bold"), which says both.
func seatPlayer(spec seatSpec, brain string) string {
	if strings.HasPrefix(spec.profile, brain+"/") {
		return spec.profile
	}
	name, _, _ := strings.Cut(spec.profile, "/")
	if name == "" || name == "autopilot" || name == brain || strings.HasPrefix(spec.profile, "script:") {
		return brain
	}
	return name + " (" + brain + ")"
}
