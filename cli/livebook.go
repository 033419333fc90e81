package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/keymap"
	"github.com/coplayhq/coplay/live"
	"github.com/coplayhq/coplay/notes"
	"github.com/coplayhq/coplay/ui"
)

// serveLive opens the socket through which a second coplay (sessions, replay, export)
// reads the notebook this one holds open. Without it those commands wait for a lock
// they never get, so a failure is said once, and play goes on.
func (p *play) serveLive(path string) {
	srv, err := live.Listen(path)
	if err != nil {
		p.liveErr = fmt.Sprintf("other coplay commands cannot read %s while this one plays (%v)", path, err)
		return
	}
	srv.ServeSnapshots(p.book)
	p.live = srv
	p.closers = append(p.closers, srv.Close)
}

// liveSnapshotWait bounds how long a reader waits for the playing coplay's copy: a
// copy of even a large notebook takes a fraction of a second.
const liveSnapshotWait = 30 * time.Second

// openReader opens the notebook at path to read it. When another coplay plays in it
// (and so holds its lock), it reads a copy that coplay makes as of now, and returns
// the sessions played there; otherwise it opens the file itself, read-only.
func openReader(path string) (*notes.Book, []string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), liveSnapshotWait)
	defer cancel()
	copyPath, playing, err := live.Snapshot(ctx, path)
	if err != nil {
		book, oerr := openNotebookWith(path, true)
		if oerr != nil && !errors.Is(err, live.ErrNoOwner) {
			// The coplay that plays there was reached and failed: say both.
			oerr = fmt.Errorf("%w (asking that coplay for a copy: %v)", oerr, err)
		}
		return book, nil, oerr
	}
	book, err := notes.OpenReadOnly(copyPath, &notes.Options{Name: path})
	// Open or not, the copy is not needed on disk any more: on Unix the open book keeps
	// it mapped until it closes, and nothing else may read it.
	os.Remove(copyPath)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the copy of %s that the coplay playing in it sent: %v", path, err)
	}
	return book, playing, nil
}

// hello is what an attached screen is told of a lone run (of a league: table.hello,
// from its first seat's), and what this coplay's own screen shows (screenInfo).
func (p *play) hello(o options) live.Hello {
	return live.Hello{
		Game:      p.title,
		Brain:     p.brain.Name(),
		Session:   p.session.Name(),
		Banner:    strings.TrimSpace(p.banner + "\n" + p.resumeNote + "\n" + p.skipped),
		Tools:     p.runner.Tools(),
		Rules:     o.fixedRules(),
		MaxTokens: o.maxTokens,
		MaxCost:   o.maxCost,
		PriceFrom: p.priceFrom,
	}
}

// screenInfo is what a screen shows of the run hello describes.
func screenInfo(h live.Hello, keys *keymap.KeyMap, history []agent.Event) ui.Info {
	info := ui.Info{
		Game: h.Game, Brain: h.Brain, Session: h.Session, Banner: h.Banner,
		Tools: h.Tools, Keys: keys, History: history, Rules: h.Rules,
		MaxTokens: h.MaxTokens, MaxCost: h.MaxCost, PriceFrom: h.PriceFrom,
	}
	for _, s := range h.Seats {
		info.Seats = append(info.Seats, ui.SeatInfo{Name: s.Name, Model: s.Model})
	}
	return info
}
