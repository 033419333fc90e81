package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/coplayhq/coplay/notes"
)

// A league's seats in `coplay sessions`: the table shows one row for the league (its
// totals) with its seats indented beneath; `rm LEAGUE` removes every seat's session.

// leagueRows replaces, in list (most recently active first), each league's seat
// sessions with one row for the league, where its most recently active seat was, and
// returns the seats of each league by its name, in seat order. A fork of a seat (or a
// league whose first seat is one) is given the seat's league as its parent, so that
// the table shows it under the league.
func leagueRows(list []notes.SessionInfo) ([]notes.SessionInfo, map[string][]notes.SessionInfo) {
	seats := map[string][]notes.SessionInfo{}
	leagueOf := map[string]string{} // a seat's session -> its league
	for _, l := range notes.LeaguesOf(list) {
		seats[l.Name] = l.Seats
		for _, s := range l.Seats {
			leagueOf[s.Name] = l.Name
		}
	}
	var out []notes.SessionInfo
	placed := map[string]bool{}
	for _, s := range list {
		switch {
		case s.League == "":
			out = append(out, s)
		case !placed[s.League]:
			placed[s.League] = true
			row := leagueTotals(s.League, seats[s.League])
			row.Parent = seats[s.League][0].Parent
			out = append(out, row)
		default:
			continue
		}
		row := &out[len(out)-1]
		if at, err := notes.ParseForkPoint(row.Parent); err == nil && leagueOf[at.Session] != "" && leagueOf[at.Session] != row.League {
			row.Parent = notes.ForkPoint{Session: leagueOf[at.Session], Step: at.Step}.String()
		}
	}
	return out, seats
}

// leagueTotals is the row of a league: its game, how many seats, and its seats'
// steps, tokens, cost and records added up.
func leagueTotals(name string, seats []notes.SessionInfo) notes.SessionInfo {
	row := notes.SessionInfo{Name: name, League: name, Game: seats[0].Game, Model: fmt.Sprintf("%d seats", len(seats))}
	for _, s := range seats {
		row.Steps += s.Steps
		row.Calls += s.Calls
		row.PromptTokens += s.PromptTokens
		row.CompletionTokens += s.CompletionTokens
		row.CachedTokens += s.CachedTokens
		row.Cost += s.Cost
		row.Records += s.Records
		if s.LastActive.After(row.LastActive) {
			row.LastActive = s.LastActive
		}
		if row.Created.IsZero() || s.Created.Before(row.Created) {
			row.Created = s.Created
		}
	}
	return row
}

// isLeagueRow tells a league's row (leagueRows) from a session's: a seat's session
// always has a seat.
func isLeagueRow(s notes.SessionInfo) bool { return s.League != "" && s.Seat == "" }

// anyPlaying reports whether a process plays one of seats now.
func anyPlaying(playing []string, seats []notes.SessionInfo) bool {
	return slices.ContainsFunc(seats, func(s notes.SessionInfo) bool { return slices.Contains(playing, s.Name) })
}

// removeSession deletes the session named name, or, when no session has that name,
// every seat's session of the league of that name; it says what it removed.
func removeSession(book *notes.Book, name string, stdout io.Writer) error {
	s, err := book.Session(name)
	if errors.Is(err, notes.ErrNotFound) {
		removed, lerr := book.DeleteLeague(name)
		if lerr != nil {
			return nameErr(lerr, name, book.Path())
		}
		fmt.Fprintf(stdout, "removed league %s: sessions %s\n", name, strings.Join(removed, ", "))
		return nil
	}
	if err != nil {
		return err
	}
	info, err := s.Info()
	if err != nil {
		return err
	}
	if err := book.Delete(name); err != nil {
		return sessionErr(err, name, book.Path())
	}
	if info.League != "" {
		fmt.Fprintf(stdout, "removed session %s (seat %s of league %s)\n", name, info.Seat, info.League)
		return nil
	}
	fmt.Fprintf(stdout, "removed session %s\n", name)
	return nil
}
