package arena

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"time"
)

// View is what a player of the arena can know at one moment, copied out of the world
// for a rule-based player (the autopilot) to read without calling tools. Reading it
// changes nothing (messages stay unread).
type View struct {
	Now      time.Time      // game time
	Agent    AgentView      // the player's agent
	Members  []MemberView   // everyone else
	Messages []MessageView  // the messages the agent can see, oldest first
	Battles  []BattleView   // battles announced, oldest first
	Prices   map[string]int // what the market charges
	Stock    map[string]int // what it holds
	Players  []string       // a league's other seats, in seat order; none alone
}

// AgentView is the agent's state.
type AgentView struct {
	Name       string
	Community  string // "" when in none
	Leader     string // its community's leader
	Standing   int
	Energy     int
	Gold       int
	Inventory  map[string]int
	BattlesWon int
	Working    bool
	WorkEnds   time.Time // game time, when Working
}

// MemberView is a member as the agent knows them (the member tool says the same).
type MemberView struct {
	Name        string
	Community   string
	Leader      bool
	Trust       int
	BadHistory  bool // some shared memory is bad
	BadMemories int  // how many shared memories are bad
}

// MessageView is one message.
type MessageView struct {
	ID       int
	Time     time.Time
	From, To string // a name, or a channel "#ember"
	ReplyTo  int
	Text     string
	Read     bool
	Answered bool   // the agent replied to it
	Mentions bool   // to the agent, naming it, or a leader's call to everyone
	Battle   string // the battle a leader's call or result is about
}

// BattleView is one battle.
type BattleView struct {
	ID         string
	Sides      []string
	Deadline   time.Time // last moment to join (game time)
	Start, End time.Time
	Committed  map[string]int
	Joinable   bool   // it can still be joined
	Called     bool   // the agent's leader called its community to fight
	Call       int    // the call's message id, when Called
	Side       string // the side the agent fights for, or ""
	Energy     int    // the energy the agent committed
	Reported   bool   // the agent told its leader it joined
	Over       bool
	Winner     string
}

// View returns what the agent can know now.
func (g *Game) View() View {
	var v View
	g.locked(func(w *world) { v = w.view() })
	return v
}

func (w *world) view() View {
	s := w.s
	v := View{Now: s.Now, Prices: maps.Clone(s.Prices), Stock: maps.Clone(s.Stock), Players: slices.Clone(s.Peers)}
	a := s.Agent
	v.Agent = AgentView{Name: a.Name, Community: a.Community, Standing: a.Standing, Energy: a.Energy, Gold: a.Gold,
		Inventory: maps.Clone(a.Inventory), BattlesWon: a.BattlesWon, Working: a.Work != nil}
	if a.Work != nil {
		v.Agent.WorkEnds = a.Work.End
	}
	if l := w.leaderOf(a.Community); l != nil {
		v.Agent.Leader = l.Name
	}
	for _, m := range s.Members {
		bad := 0
		for _, x := range m.Memories {
			if !x.Good {
				bad++
			}
		}
		v.Members = append(v.Members, MemberView{Name: m.Name, Community: m.Community, Leader: m.Leader, Trust: m.Trust, BadHistory: bad > 0, BadMemories: bad})
	}
	for _, m := range s.Messages {
		v.Messages = append(v.Messages, MessageView{ID: m.ID, Time: m.Time, From: m.From, To: m.To, ReplyTo: m.ReplyTo,
			Text: m.Text, Read: m.Read, Answered: w.answered(m.ID), Mentions: m.From != w.me() && w.mentionsAgent(m), Battle: m.Battle})
	}
	for _, b := range s.Battles {
		call, called := b.Calls[a.Community]
		v.Battles = append(v.Battles, BattleView{ID: b.ID, Sides: slices.Clone(b.Sides), Deadline: b.Deadline, Start: b.Start, End: b.End,
			Committed: maps.Clone(b.Committed), Joinable: w.joinable(b) == "", Called: called, Call: call,
			Side: w.agentSide(b), Energy: w.agentEnergy(b), Reported: b.Reported, Over: b.Over, Winner: b.Winner})
	}
	return v
}

// Member returns the member called name.
func (v View) Member(name string) (MemberView, bool) {
	for _, m := range v.Members {
		if m.Name == name {
			return m, true
		}
	}
	return MemberView{}, false
}

// ViewJSON is View as JSON (game.Viewer): how a served arena hands a seat's view to an
// autopilot on another machine.
func (g *Game) ViewJSON(context.Context) (json.RawMessage, error) { return json.Marshal(g.View()) }
