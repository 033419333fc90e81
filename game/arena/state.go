package arena

import "time"

// state is the whole world, as saved with the session. Everything that happens is
// decided from it, the seed and the game time, so the same state gives the same future.
type state struct {
	Version int       `json:"version"`
	Seed    int64     `json:"seed"`
	Now     time.Time `json:"now"`  // game time of the world
	Tick    int64     `json:"tick"` // the last game minute processed (minutes since Epoch)

	Agent       agentState     `json:"agent"`
	Members     []*member      `json:"members"`
	Messages    []*message     `json:"messages"`
	NextMessage int            `json:"next_message"`
	Battles     []*battle      `json:"battles"`
	NextBattle  int64          `json:"next_battle"` // the game minute the next battle is announced
	BattleNum   int            `json:"battle_num"`  // the number of the last battle announced
	Prices      map[string]int `json:"prices"`      // this market period's prices
	Stock       map[string]int `json:"stock"`
	Period      int64          `json:"period"` // the market period of Prices
	Pending     []pending      `json:"pending,omitempty"`
	LastWake    int64          `json:"last_wake"`        // the game minute of the last trigger
	Script      *scriptState   `json:"script,omitempty"` // a scenario's quiet time and what is still to happen
	Peers       []string       `json:"peers,omitempty"`  // the league's other seats, in seat order; none alone
	// Received is, per other seat, the number of the last letter from it that reached
	// this world (league.go); none alone.
	Received map[string]int64 `json:"received,omitempty"`
}

// stateVersion is the version of the saved state this code reads and writes.
const stateVersion = 1

// agentState is the player's agent.
type agentState struct {
	Name        string         `json:"name"`
	Community   string         `json:"community,omitempty"`
	Standing    int            `json:"standing"`
	Energy      int            `json:"energy"`
	Gold        int            `json:"gold"`
	Inventory   map[string]int `json:"inventory"`
	BattlesWon  int            `json:"battles_won"`
	BattlesLost int            `json:"battles_lost"`
	Work        *shift         `json:"work,omitempty"`
	LastPost    time.Time      `json:"last_post,omitzero"` // last message on the channel that earned standing
}

// shift is work under way.
type shift struct {
	Job    string    `json:"job"`
	Shifts int       `json:"shifts"`
	Start  time.Time `json:"start"`
	End    time.Time `json:"end"`
}

// member is an NPC.
type member struct {
	Name      string    `json:"name"`
	Community string    `json:"community"`
	Leader    bool      `json:"leader,omitempty"`
	Trust     int       `json:"trust"`   // toward the agent, -100..100
	Loyalty   int       `json:"loyalty"` // to their community, 0..100
	Memories  []memory  `json:"memories,omitempty"`
	LastReply time.Time `json:"last_reply,omitzero"` // when they last answered the agent
}

// memory is one piece of shared history between a member and the agent.
type memory struct {
	Time time.Time `json:"time"`
	Text string    `json:"text"`
	Good bool      `json:"good"`
}

// message kinds; the agent's own messages are kindAgent.
const (
	kindAgent     = "agent"
	kindHi        = "hi"
	kindChat      = "chat"
	kindMention   = "mention"
	kindHelp      = "help"
	kindCall      = "call"
	kindReply     = "reply"
	kindComplaint = "complaint"
	kindResult    = "result"
	kindPlayer    = "player" // from another seat of a league
)

// message is one message the agent can see: to it, from it, or on the channel of its
// community when it was posted.
type message struct {
	ID      int       `json:"id"`
	Time    time.Time `json:"time"`
	From    string    `json:"from"`
	To      string    `json:"to"` // a name, or a channel "#ember"
	ReplyTo int       `json:"reply_to,omitempty"`
	Text    string    `json:"text"`
	Kind    string    `json:"kind"`
	Battle  string    `json:"battle,omitempty"` // what a call or result is about
	Read    bool      `json:"read,omitempty"`
	Due     time.Time `json:"due,omitzero"` // a help request's deadline for an answer
	Settled bool      `json:"settled,omitempty"`
}

// battle is a fight between two communities.
type battle struct {
	ID        string         `json:"id"`
	Num       int            `json:"num"`
	Sides     []string       `json:"sides"`
	Announced time.Time      `json:"announced"`
	Deadline  time.Time      `json:"deadline"` // the last moment to join
	Start     time.Time      `json:"start"`
	End       time.Time      `json:"end"`
	Committed map[string]int `json:"committed"` // side → energy
	Fighters  []fighter      `json:"fighters,omitempty"`
	Plan      []fighter      `json:"plan,omitempty"`   // NPCs' commitments to come
	Closed    bool           `json:"closed,omitempty"` // the join deadline passed
	Started   bool           `json:"started,omitempty"`
	Over      bool           `json:"over,omitempty"`
	Winner    string         `json:"winner,omitempty"`
	Power     map[string]int `json:"power,omitempty"`
	Calls     map[string]int `json:"calls,omitempty"`    // side → the leader's call message
	Reward    int            `json:"reward,omitempty"`   // gold the agent won
	Reported  bool           `json:"reported,omitempty"` // the agent told its leader it joined
}

// fighter is who committed how much energy to which side, and when.
type fighter struct {
	Name   string    `json:"name"`
	Side   string    `json:"side"`
	Energy int       `json:"energy"`
	At     time.Time `json:"at"`
}

// pending is something the world will do later: an NPC's answer to the agent.
type pending struct {
	At      time.Time `json:"at"`
	Member  string    `json:"member"`
	ReplyTo int       `json:"reply_to"`
	Text    string    `json:"text"`
}
