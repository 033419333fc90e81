package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/coplayhq/coplay/notes"
)

// leagueSeat is one seat of a league being set up: what plays it, and its session
// (nil until it is made, for a new league).
type leagueSeat struct {
	spec    seatSpec
	session *notes.Session
}

// isLeague says whether the run plays a league, and which one it goes on with
// ("" = a new league, or a fork of one): --seat, a --resume of a league or of one of
// its seats, or a --fork of a league.
func (o *options) isLeague(resume string) (resumed string, ok bool) {
	if resumed = o.resumedLeague(resume); resumed != "" {
		return resumed, true
	}
	return "", len(o.seats) > 0 || o.forkedLeague() != ""
}

// resumedLeague says which league a --resume goes on with: the league named name, the
// league of the session named name, or (no name) the league of the newest session that
// played a step. "" when it is not a league's; a notebook that cannot be read is left for
// setup to report.
func (o *options) resumedLeague(name string) string {
	if !o.resume {
		return ""
	}
	book, err := o.readBook()
	if err != nil {
		return ""
	}
	defer book.Close()
	if name == "" {
		name, _ = newestPlayed(book)
	}
	if _, err := book.LeagueInfo(name); err == nil {
		return name
	}
	s, err := book.Session(name)
	if err != nil {
		return ""
	}
	info, err := s.Info()
	if err != nil {
		return ""
	}
	return info.League
}

// readBook opens the notebook --data names (else the default) to read it, through the
// live socket when another coplay plays in it.
func (o *options) readBook() (*notes.Book, error) {
	path := o.data
	if path == "" {
		var err error
		if path, err = notes.DefaultPath(); err != nil {
			return nil, err
		}
	}
	book, _, err := openReader(path)
	return book, err
}

// resumeSeats reads the seats of the league named name from its sessions: what played
// each (its profile, else its cassette, else the autopilot), unless --seat names the seat
// again with another PROFILE. The game is the seats'.
func (o *options) resumeSeats(book *notes.Book, name string) ([]leagueSeat, error) {
	sessions, err := book.League(name)
	if errors.Is(err, notes.ErrNotFound) {
		return nil, fmt.Errorf("no league %q to resume in %s (`coplay sessions --data %s` lists them)", name, book.Path(), book.Path())
	}
	if err != nil {
		return nil, err
	}
	given := map[string]string{}
	for _, s := range o.seats {
		given[strings.ToLower(s.name)] = s.profile
	}
	var out []leagueSeat
	for _, s := range sessions {
		info, err := s.Info()
		if err != nil {
			return nil, err
		}
		o.game = info.Game
		spec := seatSpec{name: info.Seat, profile: seatProfile(info)}
		if p, ok := given[strings.ToLower(info.Seat)]; ok {
			spec.profile = p
			delete(given, strings.ToLower(info.Seat))
		}
		out = append(out, leagueSeat{spec: spec, session: s})
	}
	for seat := range given {
		return nil, usagef("--seat %s: league %s has no seat %s (its seats: %s); a resumed league keeps its seats", seat, name, seat, strings.Join(seatNames(out), ", "))
	}
	return out, nil
}

// seatProfile is what played a seat's session, as --seat's PROFILE: its profile
// (NAME/EXPERIMENT, its version left to the file as it is now), else the cassette it
// recorded, else the person's own, else the autopilot.
func seatProfile(info notes.SessionInfo) string {
	if info.Profile != "" {
		p, _, _ := strings.Cut(info.Profile, "@")
		return p
	}
	if strings.HasPrefix(info.Model, "script:") || info.Model == personSeat {
		return info.Model // a cassette, or the person's own seat: still theirs
	}
	return "autopilot"
}

// seatNames lists the seats' names.
func seatNames(seats []leagueSeat) []string {
	out := make([]string, len(seats))
	for i, s := range seats {
		out[i] = s.spec.name
	}
	return out
}
