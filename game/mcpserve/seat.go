package mcpserve

import (
	"context"
	"fmt"
	"sync"

	"github.com/coplayhq/coplay/game"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// seat is one seat of the world and the MCP server that plays it.
type seat struct {
	s      *Server
	name   string
	opened *game.Opened
	reg    *game.Registry
	srv    *sdk.Server

	// mu runs the seat's calls and reads one at a time, as one agent makes them: a
	// seat's sessions (two clients of one player) never race in its world, and the
	// state committed after an act is the world that act left.
	mu sync.Mutex

	trigMu   sync.Mutex
	triggers []game.Trigger // the latest, oldest first (at most keptTriggers)
}

// newSeat builds a seat's MCP server: its tools, their previews, its resources.
func newSeat(s *Server, ls game.Seat) (*seat, error) {
	if ls.Opened == nil || ls.Game == nil {
		return nil, fmt.Errorf("mcpserve: seat %s has no game", ls.Name)
	}
	st := &seat{s: s, name: ls.Name, opened: ls.Opened, reg: game.NewRegistry(ls.Game)}
	info := ls.Game.Info()
	title := ls.Title
	if title == "" {
		title = info.Title
	}
	st.srv = sdk.NewServer(&sdk.Implementation{Name: "coplay-" + s.cfg.Game, Title: title, Version: s.cfg.Version}, &sdk.ServerOptions{
		Instructions:              info.Rules,
		InitializedHandler:        st.joined,
		SubscribeHandler:          st.subscribe,
		UnsubscribeHandler:        func(context.Context, *sdk.UnsubscribeRequest) error { return nil },
		KeepAlive:                 keepAlive,
		KeepAliveFailureThreshold: 2,
		// No logging (the game logs nothing to its players), and lists that never change.
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}, Resources: &sdk.ResourceCapabilities{}},
	})
	if err := st.addTools(); err != nil {
		return nil, err
	}
	st.addResources()
	return st, nil
}

// commit saves the seat's state and hands it to Config.Commit with the act that
// changed it ("" for none). The caller holds mu.
func (st *seat) commit(act string) error {
	if st.s.cfg.Commit == nil || st.opened.Save == nil {
		return nil
	}
	state, err := st.opened.Save()
	if err == nil {
		err = st.s.cfg.Commit(Save{Seat: st.name, State: state, Act: game.CutBytes(act, maxAct)})
	}
	if err != nil {
		err = fmt.Errorf("keeping seat %s's world: %w", st.name, err)
		st.s.journal.add(Entry{Kind: KindError, Seat: st.name, Text: err.Error()})
	}
	return err
}

// joined journals a session that finished its handshake, and its leaving.
func (st *seat) joined(_ context.Context, req *sdk.InitializedRequest) {
	sess := req.Session
	from := st.s.joins.take(sess.ID())
	client := "a client"
	if p := sess.InitializeParams(); p != nil && p.ClientInfo != nil {
		client = p.ClientInfo.Name
		if p.ClientInfo.Version != "" {
			client += " " + p.ClientInfo.Version
		}
	}
	st.s.journal.add(Entry{Kind: KindJoin, Seat: st.name, Text: fmt.Sprintf("%s joined with %s from %s (session %s)", st.name, client, from, short(sess.ID()))})
	go func() {
		sess.Wait()
		st.s.journal.add(Entry{Kind: KindLeave, Seat: st.name, Text: fmt.Sprintf("%s left (session %s)", st.name, short(sess.ID()))})
	}()
}

// short is the start of a session id, enough to tell sessions apart in the journal.
func short(id string) string {
	if id == "" {
		return "stdio"
	}
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
