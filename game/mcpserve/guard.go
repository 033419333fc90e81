package mcpserve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The door: every HTTP request passes these checks before the SDK sees it.
//
//  1. Origin: a browser's request from a page of another origin is refused (403), so a
//     page cannot reach a server on this machine by DNS rebinding; the SDK itself
//     refuses a non-loopback Host on a loopback listener.
//  2. Token: the bearer token picks the seat; none or a wrong one is refused (401)
//     before anything reads the body.
//  3. New sessions: one spends a call of the seat's rate limit (else 429), and when
//     the seat has MaxSessions already, its oldest is closed to make room: a client
//     that crashed and reconnects must find its seat open.
//  4. The SDK's own RequireBearerToken puts the seat in the request as auth.TokenInfo,
//     so the SDK refuses a session used with another seat's token (403).

type seatKey struct{}

// seatOf returns the seat a request's token picked.
func seatOf(ctx context.Context) *seat {
	st, _ := ctx.Value(seatKey{}).(*seat)
	return st
}

// sessionHeader is the streamable HTTP transport's session header.
const sessionHeader = "Mcp-Session-Id"

// guard wraps next (the SDK's handler) in the door's checks.
func (s *Server) guard(next http.Handler) http.Handler {
	tokenInfo := auth.RequireBearerToken(func(ctx context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{UserID: seatOf(r.Context()).name}, nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && !s.originAllowed(origin, r.Host) {
			s.journal.refuse("an Origin of another site ("+game.CutBytes(origin, 60)+")", r.RemoteAddr)
			http.Error(w, "Forbidden: requests from the origin "+strconv.Quote(origin)+" are not allowed", http.StatusForbidden)
			return
		}
		st, why := s.seatFor(r)
		if st == nil {
			s.journal.refuse(why, r.RemoteAddr)
			w.Header().Set("WWW-Authenticate", `Bearer realm="coplay", error="invalid_token"`)
			http.Error(w, "Unauthorized: "+why+": send your seat's token as Authorization: Bearer TOKEN", http.StatusUnauthorized)
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), seatKey{}, st))
		if r.Method == http.MethodPost && r.Header.Get(sessionHeader) == "" && initializes(w, r, s.cfg.MaxBody) {
			if wait, ok := s.take(st); !ok {
				s.journal.refuse("seat "+st.name+" opening sessions over its rate limit", r.RemoteAddr)
				w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
				http.Error(w, fmt.Sprintf("Too Many Requests: seat %s is over its limit (%s)", st.name, s.limitText()), http.StatusTooManyRequests)
				return
			}
			s.makeRoom(st)
			w = &joinWriter{ResponseWriter: w, joins: &s.joins, from: r.RemoteAddr}
		}
		tokenInfo.ServeHTTP(w, r)
	})
}

// initializes reports whether a request opens a session: a POST whose JSON-RPC
// message (or one in its batch) is initialize. Other POSTs without a session (a newer
// client's server/discover probe) open none that lasts: they must neither spend the
// seat's sessions nor close one. The body is read (at most max bytes, as the SDK would)
// and put back.
func initializes(w http.ResponseWriter, r *http.Request, max int64) bool {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return false // the SDK reads the same and refuses it
	}
	var msgs []rpcMethod
	if body = bytes.TrimSpace(body); len(body) > 0 && body[0] != '[' {
		body = append(append([]byte{'['}, body...), ']')
	}
	if json.Unmarshal(body, &msgs) != nil {
		return false
	}
	return slices.ContainsFunc(msgs, func(m rpcMethod) bool { return m.Method == "initialize" })
}

// rpcMethod is the method of a JSON-RPC message.
type rpcMethod struct {
	Method string `json:"method"`
}

// seatFor returns the seat whose token the request carries, or why there is none. The
// token is compared, as a hash, with every seat's in constant time.
func (s *Server) seatFor(r *http.Request) (*seat, string) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return nil, "no token"
	}
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
		return nil, "not a bearer token"
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	var found *seat
	for _, t := range s.tokens {
		if subtle.ConstantTimeCompare(sum[:], t.sum[:]) == 1 {
			found = t.seat
		}
	}
	if found == nil {
		return nil, "a wrong token"
	}
	return found, ""
}

// originAllowed reports whether a browser page of origin may use the server reached as
// host: the server's own origin, or one of Config.AllowOrigins.
func (s *Server) originAllowed(origin, host string) bool {
	if slices.ContainsFunc(s.cfg.AllowOrigins, func(o string) bool { return strings.EqualFold(strings.TrimSuffix(o, "/"), origin) }) {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && strings.EqualFold(u.Host, host)
}

// makeRoom closes the seat's oldest sessions until a new one fits in MaxSessions.
func (s *Server) makeRoom(st *seat) {
	var open []*sdk.ServerSession
	for sess := range st.srv.Sessions() {
		open = append(open, sess)
	}
	if len(open) < s.cfg.MaxSessions {
		return
	}
	// The SDK lists sessions in the order they connected.
	for _, sess := range open[:len(open)-s.cfg.MaxSessions+1] {
		s.journal.add(Entry{Kind: KindClosed, Seat: st.name, Text: fmt.Sprintf("%s's oldest session %s closed: a seat keeps at most %d", st.name, short(sess.ID()), s.cfg.MaxSessions)})
		sess.Close()
	}
}

// joinWriter notes, when the SDK answers a new session's first request, which session
// it opened for whom, so that the journal can say where a seat joined from.
type joinWriter struct {
	http.ResponseWriter
	joins *joinBook
	from  string
	done  bool
}

func (w *joinWriter) WriteHeader(code int) {
	if !w.done {
		w.done = true
		if id := w.Header().Get(sessionHeader); id != "" && code < 300 {
			w.joins.expect(id, w.from)
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *joinWriter) Write(p []byte) (int, error) {
	if !w.done {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(p)
}

// Flush passes on the SDK's flushes of its event streams.
func (w *joinWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *joinWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// joinBook holds where each new session came from until its handshake ends (a session
// that never finishes it is forgotten after a minute).
type joinBook struct {
	mu   sync.Mutex
	from map[string]joinNote
}

type joinNote struct {
	from string
	at   time.Time
}

func (b *joinBook) expect(id, from string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.from == nil {
		b.from = map[string]joinNote{}
	}
	now := time.Now()
	for k, n := range b.from {
		if now.Sub(n.at) > time.Minute {
			delete(b.from, k)
		}
	}
	b.from[id] = joinNote{from: from, at: now}
}

func (b *joinBook) take(id string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, ok := b.from[id]
	if !ok {
		return "an unknown address"
	}
	delete(b.from, id)
	return n.from
}
