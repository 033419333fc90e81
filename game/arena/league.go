package arena

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
)

// A league (game.League) seats several agents in one arena. Each seat is a member named
// after the seat, in a community given round-robin by seat order, starting from the
// community a lone agent of the same seed would have: with seats Heron, Finch, Lark and
// seed 1, Heron has the lone agent's community and Finch and Lark the next two in
// Communities order (so a shuffled seat order shuffles communities). The scripted
// members stay.
//
// Each seat plays its own copy of the world, made from the same seed and kept in step:
//
//   - one clock: every seat's game time is the same function of the wall clock, so
//     prices, announcements and battle times are the same for all;
//   - messages: a message a seat sends another seat (send_message to "Finch") arrives in
//     Finch's world as a message from Heron and a message.received trigger; a post on a
//     community's channel reaches every seat in that community (a trigger when it
//     mentions them);
//   - battles: a seat that joins a battle joins it in every seat's world, so the sides'
//     energy, and the outcome, are the same for all;
//   - what stays a seat's own: its energy, gold, inventory, work, standing, the members'
//     trust in it and their shared history, and the market's stock (prices are shared:
//     they are a function of the seed and the time).
//
// Decision: copies in step rather than one world with several agents, because every rule
// of the arena (trust, calls for help, rewards) is written for one agent, and a copy per
// seat keeps each of them as tested; what seats do to each other goes through letters.

// letter is what one seat's agent did that the league's other seats see: a message (To
// a seat's name or a channel "#tide") or a battle joined (Battle, Side, Energy).
type letter struct {
	From   string
	To     string
	Text   string
	Battle string
	Side   string
	Energy int
	// N numbers the sender's letters from 1 (League.post), so a world knows which of a
	// seat's letters it has had (state.Received).
	N int64 `json:",omitempty"`
}

// peerNamed returns the name of the league seat called name (any case), or "".
func (w *world) peerNamed(name string) string {
	for _, p := range w.s.Peers {
		if strings.EqualFold(p, name) {
			return p
		}
	}
	return ""
}

// tellPeers queues l for the league's other seats; alone, there is nobody to tell.
func (w *world) tellPeers(l letter) {
	if len(w.s.Peers) > 0 {
		w.outbox = append(w.outbox, l)
	}
}

// receive is what another seat did, arriving in this seat's world: a message to this
// seat or its channel, or a commitment to a battle still open.
func (w *world) receive(l letter) {
	if l.N > 0 {
		if w.s.Received == nil {
			w.s.Received = map[string]int64{}
		}
		w.s.Received[l.From] = max(w.s.Received[l.From], l.N)
	}
	switch {
	case l.Battle != "":
		for _, b := range w.s.Battles {
			if b.ID == l.Battle && !b.Closed && !b.Over && slices.Contains(b.Sides, l.Side) {
				b.Fighters = append(b.Fighters, fighter{Name: l.From, Side: l.Side, Energy: l.Energy, At: w.s.Now})
				b.Committed[l.Side] += l.Energy
			}
		}
	case l.To == w.me() || (l.To != "" && l.To == channelOf(w.s.Agent.Community)):
		w.post(&message{From: l.From, To: l.To, Text: l.Text, Kind: kindPlayer}, false)
	}
}

// peerLines names the other seats, for the model to know whom it can write to.
func (w *world) peerLines(b *strings.Builder) {
	if len(w.s.Peers) > 0 {
		fmt.Fprintf(b, "- players: %s (send_message reaches them)\n", strings.Join(w.s.Peers, ", "))
	}
}

// League is several seats in one arena (see above). It is safe for concurrent use.
type League struct {
	names []string
	seats []*Game
	mu    sync.Mutex // one save at a time

	// What each seat sent that a seat it reached has not saved yet (SavePart): kept in
	// the sender's part, so that a resumed league delivers it again to a world saved
	// before it arrived.
	logMu sync.Mutex
	sent  []int64            // per seat: its letters so far
	log   [][]letter         // per seat: its letters some other seat has not saved
	saved []map[string]int64 // per seat: Received as of its last SavePart
}

// leagueSave is a league's saved state: every seat's world.
type leagueSave struct {
	Version int         `json:"version"`
	Seats   []seatWorld `json:"seats"`
}

type seatWorld struct {
	Name  string          `json:"name"`
	World json.RawMessage `json:"world"`
	// Pending are the seat's letters that other seats' worlds may not have had when
	// they were saved (a league saved in parts: SavePart).
	Pending []letter `json:"pending,omitempty"`
}

// NewLeague makes an arena for seats from cfg.Seed, or restores one League.Save made
// (cfg.State). Scenarios are for a lone agent: cfg.Scenario is refused.
func NewLeague(cfg Config, seats []string) (*League, error) {
	if cfg.Scenario != "" {
		return nil, fmt.Errorf("arena: a scenario is for one agent, not a league")
	}
	if !(cfg.Speed >= 0) || math.IsInf(cfg.Speed, 0) {
		return nil, fmt.Errorf("arena: speed must be a positive factor, or 0 for the default, not %v", cfg.Speed)
	}
	if err := checkSeatNames(seats); err != nil {
		return nil, err
	}
	states, pending, err := leagueStates(cfg, seats)
	if err != nil {
		return nil, err
	}
	if cfg.Clock == nil {
		cfg.Clock = SystemClock()
	}
	// One clock for all: it starts at the latest seat's time, and the others catch up
	// on their first look at it.
	at := Epoch
	for _, s := range states {
		if s.Now.After(at) {
			at = s.Now
		}
	}
	clk := newGameClock(cfg.Clock, cfg.Speed, at)
	l := &League{names: seats, sent: make([]int64, len(seats)), log: make([][]letter, len(seats)), saved: make([]map[string]int64, len(seats))}
	for i, s := range states {
		l.saved[i] = maps.Clone(s.Received)
		for j, name := range seats {
			l.sent[j] = max(l.sent[j], s.Received[name]) // numbering goes on after what arrived
		}
	}
	for i, s := range states {
		l.seats = append(l.seats, start(cfg, s, clk))
		l.log[i] = pending[i]
		for _, lt := range pending[i] {
			l.sent[i] = max(l.sent[i], lt.N)
		}
	}
	// A world saved before a letter reached it gets it now.
	for i, g := range l.seats {
		for s, letters := range pending {
			for _, lt := range letters {
				if s != i && lt.N > states[i].Received[seats[s]] {
					g.locked(func(w *world) { w.receive(lt) })
				}
			}
		}
	}
	for i, g := range l.seats {
		g.mu.Lock()
		g.relay, g.seatRules = l.post, seatRules(seats[i], states[i].Peers)
		g.mu.Unlock()
	}
	return l, nil
}

// seatRules are the rules as a seat reads them: its own name, and who else plays.
func seatRules(name string, peers []string) string {
	r := strings.Replace(rules, "You are "+AgentName, "You are "+name, 1)
	return r + "\n- **Players**: " + strings.Join(peers, ", ") + " are agents like you, each a member of a community; write to them with send_message (they answer for themselves), and what they commit to a battle counts for all."
}

// checkSeatNames refuses a seat named as a member or as a channel.
func checkSeatNames(seats []string) error {
	if len(seats) == 0 {
		return fmt.Errorf("arena: a league needs at least one seat")
	}
	for _, s := range seats {
		switch {
		case slices.ContainsFunc(memberNames, func(m string) bool { return strings.EqualFold(m, s) }):
			return fmt.Errorf("arena: seat %q has a member's name: choose another (members: %s)", s, strings.Join(memberNames, ", "))
		case strings.EqualFold(s, "channel") || strings.EqualFold(s, "community") || strings.ContainsAny(s, "# \t"):
			return fmt.Errorf("arena: seat %q cannot be a member's name (no #, no spaces, not channel)", s)
		}
	}
	return nil
}

// joinSeats makes a League.Save of every seat's part (SavePart), by seat name.
func joinSeats(parts map[string][]byte, seats []string) ([]byte, error) {
	saved := leagueSave{Version: stateVersion}
	for _, name := range seats {
		var part seatWorld
		if err := json.Unmarshal(parts[name], &part); err != nil || part.Name != name || len(part.World) == 0 {
			return nil, fmt.Errorf("arena: seat %s's saved part cannot be read (%v)", name, err)
		}
		saved.Seats = append(saved.Seats, part)
	}
	return json.Marshal(saved)
}

// leagueStates returns every seat's world (new ones, or the saved ones) and the
// letters each seat's saved part still carried (joinSeats), in seat order.
func leagueStates(cfg Config, seats []string) ([]*state, [][]letter, error) {
	var out []*state
	if len(cfg.State) == 0 {
		home := below(cfg.Seed, len(Communities), "home")
		for i, name := range seats {
			s := newState(cfg.Seed)
			s.Agent.Name, s.Agent.Community = name, Communities[(home+i)%len(Communities)]
			s.Peers = slices.Delete(slices.Clone(seats), i, i+1)
			out = append(out, s)
		}
		return out, make([][]letter, len(seats)), nil
	}
	var saved leagueSave
	if err := json.Unmarshal(cfg.State, &saved); err != nil || saved.Version != stateVersion {
		return nil, nil, fmt.Errorf("arena: the saved league cannot be read (version %d): %v", saved.Version, err)
	}
	var pending [][]letter
	for _, name := range seats {
		i := slices.IndexFunc(saved.Seats, func(w seatWorld) bool { return w.Name == name })
		if i < 0 {
			return nil, nil, fmt.Errorf("arena: the saved league has no seat %q", name)
		}
		s, err := loadState(saved.Seats[i].World)
		if err != nil {
			return nil, nil, fmt.Errorf("seat %s: %w", name, err)
		}
		out, pending = append(out, s), append(pending, saved.Seats[i].Pending)
	}
	return out, pending, nil
}

// post numbers a letter and delivers it to every other seat; each keeps what is for it.
func (l *League) post(lt letter) {
	if from := slices.Index(l.names, lt.From); from >= 0 {
		l.logMu.Lock()
		l.sent[from]++
		lt.N = l.sent[from]
		l.log[from] = append(l.log[from], lt)
		l.logMu.Unlock()
	}
	for i, g := range l.seats {
		if l.names[i] != lt.From {
			g.locked(func(w *world) { w.receive(lt) })
		}
	}
}

// Seats returns the seats' games, in seat order.
func (l *League) Seats() []*Game { return slices.Clone(l.seats) }

// Save returns every seat's world, to restore with Config.State. Each is read at the
// moment its turn comes; NewLeague restores all on one clock from the latest of them.
func (l *League) Save() ([]byte, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	saved := leagueSave{Version: stateVersion}
	for i, g := range l.seats {
		var b []byte
		var err error
		g.locked(func(w *world) { b, err = json.Marshal(w.s) })
		if err != nil {
			return nil, err
		}
		saved.Seats = append(saved.Seats, seatWorld{Name: l.names[i], World: b})
	}
	return json.Marshal(saved)
}

// SavePart returns seat i's part of the league: its own world (Game.Save), and its
// letters that another seat had not yet saved. A save costs one seat's world, not every
// seat's; joinSeats makes a League.Save of every seat's latest part, in which each
// world gets again the letters it had not saved.
func (l *League) SavePart(i int) ([]byte, error) {
	g := l.seats[i]
	var own []byte
	var received map[string]int64
	var err error
	g.locked(func(w *world) {
		own, err = json.Marshal(w.s)
		received = maps.Clone(w.s.Received)
	})
	if err != nil {
		return nil, err
	}
	l.logMu.Lock()
	l.saved[i] = received
	for s := range l.log { // drop what every other seat has saved
		low := int64(math.MaxInt64)
		for j := range l.seats {
			if j != s {
				low = min(low, l.saved[j][l.names[s]])
			}
		}
		l.log[s] = slices.DeleteFunc(l.log[s], func(lt letter) bool { return lt.N <= low })
	}
	part := seatWorld{Name: l.names[i], World: own, Pending: slices.Clone(l.log[i])}
	l.logMu.Unlock()
	return json.Marshal(part)
}

// Close stops every seat's clock.
func (l *League) Close() error {
	for _, g := range l.seats {
		g.Close()
	}
	return nil
}
