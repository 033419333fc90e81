package mcpserve

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/ratelimit"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Path is where the streamable HTTP endpoint is served.
const Path = "/mcp"

// Defaults of the Config's limits.
const (
	// DefaultMaxSessions is how many sessions a seat keeps at once: a client that
	// reconnects without closing its old session (it crashed) must not be locked out,
	// so a new session closes the seat's oldest rather than being refused.
	DefaultMaxSessions = 4
	// DefaultMaxBody caps a request's body: a call's arguments are small (an arena
	// message is at most a few hundred characters).
	DefaultMaxBody = 1 << 20
	// DefaultCallTimeout is how long one call may run, as a local agent's default.
	DefaultCallTimeout = 60 * time.Second
	// keepAlive is how often the server pings a session; one that fails to answer
	// twice in a row is closed, so a client gone without a word frees its place.
	keepAlive = 30 * time.Second
)

// Config says what to serve and how.
type Config struct {
	// Game is the driver's name ("arena"), for the servers' names.
	Game string
	// Version is coplay's, for the servers' serverInfo.
	Version string
	// League is the opened world; every one of its seats is served.
	League *game.League
	// Tokens are the seats' bearer tokens by seat name: every seat needs one to be
	// reached over HTTP (ServeStdio needs none), and no two seats the same.
	Tokens map[string]string
	// Commit keeps a seat's saved state; it is called after each of the seat's Act
	// calls, before the call is answered, and by SaveAll. nil: nothing is kept.
	Commit func(Save) error
	// Journal hears joins, leaves, refusals and failures to commit; refusals come as
	// a count a minute (journal.go). nil: they are only kept in Server.Journal.
	Journal func(Entry)
	// Limit is each seat's call budget (tools/call, resources/read, new sessions);
	// a zero PerSecond turns the limit off.
	Limit ratelimit.Budget
	// MaxSessions is how many sessions a seat keeps (DefaultMaxSessions when 0).
	MaxSessions int
	// MaxBody caps a request's body in bytes (DefaultMaxBody when 0).
	MaxBody int64
	// AllowOrigins are browser origins ("http://localhost:6274") allowed besides the
	// server's own; a request with any other Origin is refused (403).
	AllowOrigins []string
	// CallTimeout bounds one call (DefaultCallTimeout when 0).
	CallTimeout time.Duration
}

// Save is one seat's state to keep, and the act that brought it.
type Save struct {
	Seat  string
	State []byte // the seat's Opened.Save
	// Act says what changed it, for a journal: `send_message {"to":"Finch",…} → Sent
	// to Finch.` (at most maxAct bytes); "" for SaveAll's.
	Act string
}

// maxAct caps Save.Act.
const maxAct = 300

// Server serves a league's seats over MCP. It is safe for concurrent use.
type Server struct {
	cfg     Config
	seats   []*seat
	byName  map[string]*seat
	tokens  []tokenHash // sha256 of each seat's token, compared in constant time
	limiter *ratelimit.Keyed
	journal *journal
	http    *sdk.StreamableHTTPHandler
	joins   joinBook // who opened which HTTP session, for the journal

	pumps  sync.WaitGroup
	closed sync.Once
}

type tokenHash struct {
	sum  [sha256.Size]byte
	seat *seat
}

// New builds the seats' servers and starts passing each seat's triggers on. It
// refuses a league without seats, a seat without a token (when any seat has one), and
// a token two seats share.
func New(cfg Config) (*Server, error) {
	if cfg.League == nil || len(cfg.League.Seats) == 0 {
		return nil, errors.New("mcpserve: a world with no seats to serve")
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = DefaultCallTimeout
	}
	s := &Server{cfg: cfg, byName: map[string]*seat{}, journal: newJournal(cfg.Journal)}
	if cfg.Limit.PerSecond > 0 {
		s.limiter = ratelimit.New(cfg.Limit)
	}
	owner := map[[sha256.Size]byte]string{}
	for _, ls := range cfg.League.Seats {
		st, err := newSeat(s, ls)
		if err != nil {
			return nil, err
		}
		s.seats = append(s.seats, st)
		s.byName[ls.Name] = st
		tok, ok := cfg.Tokens[ls.Name]
		if !ok {
			continue
		}
		sum := sha256.Sum256([]byte(tok))
		if other, dup := owner[sum]; dup {
			return nil, fmt.Errorf("mcpserve: seats %s and %s have the same token: the token picks the seat, so each needs its own", other, ls.Name)
		}
		owner[sum] = ls.Name
		s.tokens = append(s.tokens, tokenHash{sum: sum, seat: st})
	}
	if len(s.tokens) > 0 && len(s.tokens) != len(s.seats) {
		var missing []string
		for _, st := range s.seats {
			if _, ok := cfg.Tokens[st.name]; !ok {
				missing = append(missing, st.name)
			}
		}
		return nil, fmt.Errorf("mcpserve: seats %s have no token", strings.Join(missing, ", "))
	}
	s.http = sdk.NewStreamableHTTPHandler(s.serverFor, &sdk.StreamableHTTPOptions{MaxRequestBodyBytes: cfg.MaxBody})
	for _, st := range s.seats {
		st.pumpTriggers(&s.pumps)
	}
	return s, nil
}

// Seats returns the served seats' names, in the league's order.
func (s *Server) Seats() []string {
	out := make([]string, len(s.seats))
	for i, st := range s.seats {
		out[i] = st.name
	}
	return out
}

// Handler returns the HTTP handler: the MCP endpoint at Path behind the door's checks
// (guard.go). Every seat must have a token.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle(Path, s.guard(s.http))
	return mux
}

// ServeStdio serves the named seat to one client on in and out until the client
// leaves or ctx ends. The process's owner is the seat: no token is asked.
func (s *Server) ServeStdio(ctx context.Context, seatName string, in io.ReadCloser, out io.WriteCloser) error {
	st := s.byName[seatName]
	if st == nil {
		return fmt.Errorf("mcpserve: no seat %q (seats: %s)", seatName, strings.Join(s.Seats(), ", "))
	}
	s.joins.expect("", "stdin and stdout")
	sess, err := st.srv.Connect(ctx, &sdk.IOTransport{Reader: in, Writer: out}, nil)
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { sess.Close() })
	defer stop()
	return sess.Wait()
}

// SaveAll commits every seat's state (Config.Commit): at the start, so that a world
// restarted before anyone acted has every seat's part, and at the end.
func (s *Server) SaveAll() error {
	var errs []error
	for _, st := range s.seats {
		st.mu.Lock()
		errs = append(errs, st.commit(""))
		st.mu.Unlock()
	}
	return errors.Join(errs...)
}

// Journal returns the latest journal entries, oldest first (at most journalSize).
func (s *Server) Journal() []Entry { return s.journal.entries() }

// Close closes every session and waits for the seats' trigger pumps, which end when
// the league's games close their trigger channels (League.Close, the caller's).
func (s *Server) Close() error {
	s.closed.Do(func() {
		for _, st := range s.seats {
			for sess := range st.srv.Sessions() {
				sess.Close()
			}
		}
		s.journal.flush()
	})
	return nil
}

// Wait waits for the trigger pumps to end (after League.Close).
func (s *Server) Wait() { s.pumps.Wait() }

// serverFor is the SDK's getServer: the server of the seat the request's token
// picked (guard.go put it in the context), or nil (the SDK answers 400).
func (s *Server) serverFor(r *http.Request) *sdk.Server {
	if st := seatOf(r.Context()); st != nil {
		return st.srv
	}
	return nil
}

// take spends one of the seat's calls; refused, it says how long to wait.
func (s *Server) take(st *seat) (time.Duration, bool) {
	if s.limiter == nil {
		return 0, true
	}
	d := s.limiter.Take(st.name, time.Now())
	return d.RetryAfter, d.Allowed
}

// limitText words the rate limit for a refusal.
func (s *Server) limitText() string {
	b := s.cfg.Limit
	return fmt.Sprintf("%d calls a second, and bursts of %d a %s", b.PerSecond, b.Burst, b.BurstWindow)
}
