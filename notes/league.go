package notes

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
	"unicode"

	bolt "go.etcd.io/bbolt"
)

// A league is several seats played in one world at once, one session per seat. A
// league has no record of its own: it is the sessions whose info names it (SetLeague),
// so removing one seat's session leaves the others a league, and a notebook written
// before leagues has none (its sessions read League and Seat "").

// LeagueInfo summarises a league for listings: its name and its seats' sessions.
type LeagueInfo struct {
	Name string
	// Seats are the league's seat sessions in the order they were created (the order
	// the seats were given).
	Seats []SessionInfo
}

// LastActive is when a seat of the league was last active.
func (l LeagueInfo) LastActive() time.Time {
	var t time.Time
	for _, s := range l.Seats {
		if s.LastActive.After(t) {
			t = s.LastActive
		}
	}
	return t
}

// SetLeague records that the session is the seat named seat of the league named
// league. The league's name follows the rules of a session's name; a seat's name
// cannot be empty or hold '/' (a league's call ids are SEAT/ID) or spaces. A seat
// another session of the league already holds gives an error matching ErrExists.
func (s *Session) SetLeague(league, seat string) error {
	if err := checkName("league name", league); err != nil {
		return err
	}
	if err := checkSeat(seat); err != nil {
		return err
	}
	edit := s.inBucket(func(sb *bolt.Bucket) error {
		return s.editInfo(sb, func(i *SessionInfo) { i.League, i.Seat = league, seat })
	})
	return s.damaged(s.book.update(func(tx *bolt.Tx) error {
		all := tx.Bucket(bucketSessions)
		err := all.ForEachBucket(func(k []byte) error {
			if string(k) == s.name {
				return nil
			}
			info, err := readInfo(all.Bucket(k), string(k))
			if err == nil && info.League == league && info.Seat == seat {
				return fmt.Errorf("notes: seat %s of league %s %w (session %s)", seat, league, ErrExists, info.Name)
			}
			return nil // a damaged session elsewhere is not this one's business
		})
		if err != nil {
			return err
		}
		return edit(tx)
	}))
}

// checkSeat reports what is wrong with a seat's name, if anything.
func checkSeat(seat string) error {
	if seat == "" {
		return fmt.Errorf("notes: seat name is empty")
	}
	if len(seat) > maxName {
		return fmt.Errorf("notes: seat name %.20q... is longer than %d bytes", seat, maxName)
	}
	for _, r := range seat {
		if r == '/' || unicode.IsSpace(r) || unicode.IsControl(r) {
			return fmt.Errorf("notes: seat name %q contains %q; use letters, digits, '-', '_' or '.'", seat, r)
		}
	}
	return nil
}

// LeaguesOf groups the league seats among list by league: the leagues most recently
// active first, each one's seats in the order they were created. Sessions that are no
// league's seat are left out.
func LeaguesOf(list []SessionInfo) []LeagueInfo {
	var out []LeagueInfo
	at := map[string]int{}
	for _, s := range list {
		if s.League == "" {
			continue
		}
		i, ok := at[s.League]
		if !ok {
			i = len(out)
			at[s.League] = i
			out = append(out, LeagueInfo{Name: s.League})
		}
		out[i].Seats = append(out[i].Seats, s)
	}
	for i := range out {
		sort.SliceStable(out[i].Seats, func(a, b int) bool {
			sa, sb := out[i].Seats[a], out[i].Seats[b]
			if !sa.Created.Equal(sb.Created) {
				return sa.Created.Before(sb.Created)
			}
			return sa.Name < sb.Name
		})
	}
	sort.SliceStable(out, func(a, b int) bool {
		ta, tb := out[a].LastActive(), out[b].LastActive()
		if !ta.Equal(tb) {
			return ta.After(tb)
		}
		return out[a].Name < out[b].Name
	})
	return out
}

// Leagues returns every league in the book, the most recently active first.
func (b *Book) Leagues() ([]LeagueInfo, error) {
	list, err := b.List()
	if err != nil {
		return nil, err
	}
	return LeaguesOf(list), nil
}

// LeagueInfo returns the named league's summary; a name no session is a seat of gives
// an error matching ErrNotFound.
func (b *Book) LeagueInfo(name string) (LeagueInfo, error) {
	all, err := b.Leagues()
	if err != nil {
		return LeagueInfo{}, err
	}
	for _, l := range all {
		if l.Name == name {
			return l, nil
		}
	}
	return LeagueInfo{}, fmt.Errorf("notes: league %q in %s: %w", name, b.path, ErrNotFound)
}

// League returns the named league's seat sessions in the order they were created; a
// name no session is a seat of gives an error matching ErrNotFound.
func (b *Book) League(name string) ([]*Session, error) {
	l, err := b.LeagueInfo(name)
	if err != nil {
		return nil, err
	}
	out := make([]*Session, len(l.Seats))
	for i, s := range l.Seats {
		out[i] = &Session{book: b, name: s.Name}
	}
	return out, nil
}

// DeleteLeague removes every seat's session of the named league at once (one
// transaction: all of them or none) and returns their names in the order they were
// created. A name no session is a seat of gives an error matching ErrNotFound.
func (b *Book) DeleteLeague(name string) ([]string, error) {
	var removed []string
	err := b.update(func(tx *bolt.Tx) error {
		all := tx.Bucket(bucketSessions)
		var seats []SessionInfo
		err := all.ForEachBucket(func(k []byte) error {
			info, err := readInfo(all.Bucket(k), string(k))
			if err != nil {
				return err
			}
			if info.League == name {
				seats = append(seats, info)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if len(seats) == 0 {
			return fmt.Errorf("notes: league %q in %s: %w", name, b.path, ErrNotFound)
		}
		for _, s := range LeaguesOf(seats)[0].Seats {
			if err := all.DeleteBucket([]byte(s.Name)); err != nil {
				return err
			}
			removed = append(removed, s.Name)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return removed, nil
}

// ExportLeague writes one markdown document for the named league: a header with a
// table of its seats, then each seat's transcript (Session.Export) in seat order, its
// headings one level down so that they nest under the league's. Like Export it stops
// at the first damaged record with an error naming it.
func (b *Book) ExportLeague(name string, w io.Writer) error {
	l, err := b.LeagueInfo(name)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# League %s\n\n", l.Name)
	fmt.Fprintf(bw, "| Seat | Session | Game | Model | Steps | Calls | Tokens | Cost |\n|---|---|---|---|---|---|---|---|\n")
	for _, s := range l.Seats {
		fmt.Fprintf(bw, "| %s | %s | %s | %s | %d | %d | %s | $%.4f |\n", cell(s.Seat), cell(s.Name), cell(s.Game), cell(s.Model),
			s.Steps, s.Calls, tokensCell(s), s.Cost)
	}
	for _, s := range l.Seats {
		var one bytes.Buffer
		if err := (&Session{book: b, name: s.Name}).Export(&one); err != nil {
			return err
		}
		fmt.Fprintf(bw, "\n")
		bw.WriteString(strings.Replace(demote(one.String(), 1), "## Session "+s.Name, "## Seat "+s.Seat+": session "+s.Name, 1))
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("notes: export league %q: %w", name, err)
	}
	return nil
}
