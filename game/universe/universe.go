package universe

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coplayhq/coplay/game/ratelimit"
)

// DefaultSpeed is the game speed used when Config.Speed is zero: ten game seconds pass for
// every real second, so a short hop takes seconds and a mining cooldown well under a minute.
const DefaultSpeed = 10

// Config sets up a Universe.
type Config struct {
	Seed      int64
	Speed     float64 // 0 means DefaultSpeed
	Clock     Clock   // nil means SystemClock()
	RateLimit bool    // true: real limit 2 req/s, burst 30 per 60 s, 429 + Retry-After + x-ratelimit-* headers
	// Limit, with RateLimit, replaces the real budget (zero: the real one). Tests that
	// play under the limit set the same shape on a shorter clock (8/s, burst 30 per 15 s)
	// so they do not wait a real minute for the burst pool to fill again.
	Limit ratelimit.Budget
}

// Universe is an offline SpaceTraders universe. All its methods and its Handler are safe
// for concurrent use.
type Universe struct {
	mu    sync.Mutex
	speed float64
	clock Clock
	st    *state
	pcg   *rand.PCG
	rng   *rand.Rand
	now   time.Time // the time of the request being served, read once under mu

	systems   map[string]*system
	waypoints map[string]*waypoint
	byToken   map[string]*agent
	bySymbol  map[string]*agent
	ships     map[string]*ship
	surveys   map[string]*survey

	limiter *rateLimiter
	handler http.Handler
}

// New generates the universe for cfg.Seed. The same seed always gives the same galaxy.
func New(cfg Config) *Universe {
	u := newUniverse(cfg)
	u.pcg = rand.NewPCG(uint64(cfg.Seed), 0x9e3779b97f4a7c15)
	u.rng = rand.New(u.pcg)
	u.st = &state{Seed: cfg.Seed, Created: u.clock.Now().UTC().Truncate(time.Second)}
	u.now = u.st.Created
	generateGalaxy(u)
	u.index()
	return u
}

func newUniverse(cfg Config) *Universe {
	u := &Universe{speed: cfg.Speed, clock: cfg.Clock}
	if u.speed <= 0 {
		u.speed = DefaultSpeed
	}
	if u.clock == nil {
		u.clock = SystemClock()
	}
	if cfg.RateLimit {
		u.limiter = newRateLimiter(cfg.Limit)
	}
	u.handler = u.routes()
	return u
}

// index rebuilds the lookup maps from the saved state.
func (u *Universe) index() {
	u.systems = map[string]*system{}
	u.waypoints = map[string]*waypoint{}
	u.byToken = map[string]*agent{}
	u.bySymbol = map[string]*agent{}
	u.ships = map[string]*ship{}
	u.surveys = map[string]*survey{}
	for _, s := range u.st.Systems {
		u.systems[s.Symbol] = s
		for _, w := range s.Waypoints {
			u.waypoints[w.Symbol] = w
		}
	}
	for i, a := range u.st.Agents {
		a.Token = u.tokenFor(a.Symbol, i)
		u.byToken[a.Token] = a
		u.bySymbol[a.Symbol] = a
		for _, s := range a.Ships {
			u.ships[s.Symbol] = s
		}
	}
	for _, s := range u.st.Surveys {
		u.surveys[s.Signature] = s
	}
}

// Handler serves the SpaceTraders v2 API under /v2.
func (u *Universe) Handler() http.Handler { return u.handler }

// Register creates an agent as POST /v2/register does and returns its bearer token.
func (u *Universe) Register(symbol, faction string) (token string, err error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.now = u.clock.Now().UTC()
	a, apiErr := u.register(symbol, faction)
	if apiErr != nil {
		return "", fmt.Errorf("universe: register %q in faction %q: %s (code %d)", symbol, faction, apiErr.Message, apiErr.Code)
	}
	return a.Token, nil
}

// AgentToken returns the bearer token of the registered agent symbol, or false if there
// is no such agent. Tokens are not part of Save's bytes (secrets never reach disk); a
// restored universe derives the same tokens again.
func (u *Universe) AgentToken(symbol string) (string, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	a := u.bySymbol[strings.ToUpper(symbol)]
	if a == nil {
		return "", false
	}
	return a.Token, true
}

// tokenFor derives the token of the n-th registered agent from the seed, so it need not be
// saved and stays valid across Save and Restore.
func (u *Universe) tokenFor(symbol string, n int) string {
	return "offline." + u.derive("token", symbol, n)
}

// saved is the envelope of Save's bytes; Format guards against restoring something else.
type saved struct {
	Format string `json:"format"`
	State  *state `json:"state"`
}

const saveFormat = "coplay-universe/1"

// Save returns the universe's whole state. Restore brings it back exactly, tokens included.
func (u *Universe) Save() ([]byte, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	rng, err := u.pcg.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("universe: save random state: %w", err)
	}
	u.st.RNG = rng
	data, err := json.Marshal(saved{Format: saveFormat, State: u.st})
	if err != nil {
		return nil, fmt.Errorf("universe: save: %w", err)
	}
	return data, nil
}

// Restore rebuilds a universe from bytes made by Save. cfg gives the clock, speed and rate
// limit; its Seed is ignored in favour of the saved one.
func Restore(data []byte, cfg Config) (*Universe, error) {
	var s saved
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("universe: restore: not a saved universe: %w", err)
	}
	if s.Format != saveFormat {
		return nil, fmt.Errorf("universe: restore: unknown format %q, want %q", s.Format, saveFormat)
	}
	if s.State == nil || len(s.State.Systems) == 0 {
		return nil, errors.New("universe: restore: saved state has no galaxy")
	}
	u := newUniverse(cfg)
	u.st = s.State
	u.pcg = &rand.PCG{}
	if err := u.pcg.UnmarshalBinary(s.State.RNG); err != nil {
		return nil, fmt.Errorf("universe: restore random state: %w", err)
	}
	u.rng = rand.New(u.pcg)
	u.index()
	return u, nil
}

// derive makes a stable opaque string from the seed and parts, so identifiers survive
// Save/Restore and the same seed and history give the same identifiers.
func (u *Universe) derive(parts ...any) string {
	h := sha256.Sum256(fmt.Append(nil, u.st.Seed, parts))
	return base64.RawURLEncoding.EncodeToString(h[:])
}

// game converts a duration in game time to wall-clock time at the universe's speed.
func (u *Universe) game(d time.Duration) time.Duration {
	return time.Duration(float64(d) / u.speed)
}

const idAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

// randomID makes a cuid-like identifier from the universe's random source.
func (u *Universe) randomID(prefix string, n int) string {
	b := []byte(prefix)
	for range n {
		b = append(b, idAlphabet[u.rng.IntN(len(idAlphabet))])
	}
	return string(b)
}
