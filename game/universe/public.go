package universe

import (
	"cmp"
	"github.com/coplayhq/coplay/game/spacetraders/wire"
	"slices"
	"strings"
	"time"
)

// This file serves the operations that need no agent token: status, register, factions,
// agents, systems and waypoints, markets, shipyards and jump gates.

type apiCreditsLeader struct {
	AgentSymbol string `json:"agentSymbol"`
	Credits     int64  `json:"credits"`
}

type apiChartsLeader struct {
	AgentSymbol string `json:"agentSymbol"`
	ChartCount  int    `json:"chartCount"`
}

type apiTitled struct {
	Title string `json:"title"`
	Body  string `json:"body"`
}

type apiLink struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

type apiStatus struct {
	Status      string `json:"status"`
	Version     string `json:"version"`
	ResetDate   string `json:"resetDate"`
	Description string `json:"description"`
	Stats       struct {
		Accounts  int `json:"accounts"`
		Agents    int `json:"agents"`
		Ships     int `json:"ships"`
		Systems   int `json:"systems"`
		Waypoints int `json:"waypoints"`
	} `json:"stats"`
	Leaderboards struct {
		MostCredits         []apiCreditsLeader `json:"mostCredits"`
		MostSubmittedCharts []apiChartsLeader  `json:"mostSubmittedCharts"`
	} `json:"leaderboards"`
	ServerResets struct {
		Next      string `json:"next"`
		Frequency string `json:"frequency"`
	} `json:"serverResets"`
	Announcements []apiTitled `json:"announcements"`
	Links         []apiLink   `json:"links"`
}

func (u *Universe) getStatus(c *call) (int, any, *apiError) {
	var s apiStatus
	s.Status = "SpaceTraders offline universe is online and available to play."
	s.Version = "v2.3.0"
	s.ResetDate = u.st.Created.Format(time.DateOnly)
	s.Description = "An offline SpaceTraders universe served by coplay, generated from a seed."
	s.Stats.Accounts = len(u.st.Agents)
	s.Stats.Agents = len(u.st.Agents)
	s.Stats.Ships = len(u.ships)
	s.Stats.Systems = len(u.st.Systems)
	s.Stats.Waypoints = len(u.waypoints)
	agents := slices.Clone(u.st.Agents)
	slices.SortStableFunc(agents, func(a, b *agent) int { return cmp.Compare(b.Credits, a.Credits) })
	s.Leaderboards.MostCredits = []apiCreditsLeader{}
	for _, a := range agents[:min(10, len(agents))] {
		s.Leaderboards.MostCredits = append(s.Leaderboards.MostCredits, apiCreditsLeader{a.Symbol, a.Credits})
	}
	charts := map[string]int{}
	for _, w := range u.waypoints {
		if w.ChartedBy != "" {
			charts[w.ChartedBy]++
		}
	}
	s.Leaderboards.MostSubmittedCharts = []apiChartsLeader{}
	for _, a := range u.st.Agents {
		if n := charts[a.Symbol]; n > 0 {
			s.Leaderboards.MostSubmittedCharts = append(s.Leaderboards.MostSubmittedCharts, apiChartsLeader{a.Symbol, n})
		}
	}
	s.ServerResets.Next = ts(u.st.Created.AddDate(1, 0, 0))
	s.ServerResets.Frequency = "never"
	s.Announcements = []apiTitled{{"Offline universe", "This universe runs on your machine; nothing you do here reaches the real SpaceTraders server."}}
	s.Links = []apiLink{{"SpaceTraders", "https://spacetraders.io"}}
	return ok200(s)
}

// ok200 answers with a body not wrapped in data, as get-status does.
func ok200(v any) (int, any, *apiError) { return 200, v, nil }

type registerRequest struct {
	Symbol  string `json:"symbol"`
	Faction string `json:"faction"`
	Email   string `json:"email"`
}

// apiRegistered lists the ships under both "ships" (what the server sends) and "ship" (what
// the spec's required list names), so clients of either reading work.
type apiRegistered struct {
	Agent    wire.Agent    `json:"agent"`
	Contract wire.Contract `json:"contract"`
	Faction  apiFaction    `json:"faction"`
	Ships    []wire.Ship   `json:"ships"`
	Ship     wire.Ship     `json:"ship"`
	Token    string        `json:"token"`
}

func (u *Universe) postRegister(c *call) (int, any, *apiError) {
	var req registerRequest
	if e := decode(c, &req, false); e != nil {
		return fail(e)
	}
	a, e := u.register(req.Symbol, req.Faction)
	if e != nil {
		return fail(e)
	}
	f, _ := factionByID(a.Faction)
	out := apiRegistered{Agent: renderAgent(a, true), Contract: renderContract(a.Contracts[0]),
		Faction: u.renderFaction(f), Token: a.Token}
	for _, s := range a.Ships {
		out.Ships = append(out.Ships, u.renderShip(s))
	}
	out.Ship = out.Ships[0]
	return created(out)
}

// startingCredits is what a new agent gets, as in the real game.
const startingCredits = 175_000

func (u *Universe) register(symbol, faction string) (*agent, *apiError) {
	symbol = strings.ToUpper(strings.TrimSpace(symbol))
	if n := len(symbol); n < 3 || n > 14 {
		return nil, invalid("symbol", "symbol must be 3 to 14 characters, got %q", symbol)
	}
	f, found := factionByID(strings.ToUpper(faction))
	if !found || !f.recruiting {
		var rec []string
		for _, f := range factions {
			if f.recruiting {
				rec = append(rec, f.symbol)
			}
		}
		return nil, invalid("faction", "faction must be one of the recruiting factions %s, got %q", strings.Join(rec, ", "), faction)
	}
	if u.bySymbol[symbol] != nil {
		return nil, &apiError{Status: 409, Code: codeSymbolTaken, Message: "Agent symbol " + symbol + " is already taken.",
			Data: map[string]any{"agentSymbol": symbol}}
	}
	home := u.homeSystem(f.symbol)
	hq := home.Waypoints[0]
	a := &agent{
		Symbol: symbol, Faction: f.symbol, HQ: hq.Symbol, Credits: startingCredits,
		AccountID: "acct" + strings.ToLower(u.derive("account", symbol))[:21],
		Token:     u.tokenFor(symbol, len(u.st.Agents)),
	}
	u.st.Agents = append(u.st.Agents, a)
	u.byToken[a.Token] = a
	u.bySymbol[a.Symbol] = a
	u.addShip(a, "SHIP_COMMAND_FRIGATE", hq)
	u.addShip(a, "SHIP_PROBE", u.waypoints[hq.Orbitals[len(hq.Orbitals)-1]])
	a.Contracts = append(a.Contracts, u.newContract(a, home))
	return a, nil
}

func (u *Universe) homeSystem(faction string) *system {
	for i, f := range factions {
		if f.symbol == faction {
			return u.st.Systems[i]
		}
	}
	return u.st.Systems[0]
}

func (u *Universe) factionHQ(faction string) string {
	return u.homeSystem(faction).Waypoints[0].Symbol
}

func (u *Universe) getFactions(c *call) (int, any, *apiError) {
	out := []apiFaction{}
	for _, f := range factions {
		out = append(out, u.renderFaction(f))
	}
	return page(c, out)
}

func (u *Universe) getFaction(c *call) (int, any, *apiError) {
	sym := strings.ToUpper(c.r.PathValue("faction"))
	f, found := factionByID(sym)
	if !found {
		return fail(notFound("Faction %s not found.", sym))
	}
	return ok(u.renderFaction(f))
}

func (u *Universe) getAgents(c *call) (int, any, *apiError) {
	out := []wire.Agent{}
	for _, a := range u.st.Agents {
		out = append(out, renderAgent(a, false))
	}
	return page(c, out)
}

func (u *Universe) getAgent(c *call) (int, any, *apiError) {
	a := u.bySymbol[strings.ToUpper(c.r.PathValue("agent"))]
	if a == nil {
		return fail(notFound("Agent %s not found.", c.r.PathValue("agent")))
	}
	return ok(renderAgent(a, false))
}

func (u *Universe) getMyAgent(c *call) (int, any, *apiError) {
	return ok(renderAgent(c.a, true))
}

func (u *Universe) getSystems(c *call) (int, any, *apiError) {
	out := []wire.System{}
	for _, s := range u.st.Systems {
		out = append(out, renderSystem(s))
	}
	return page(c, out)
}

func (u *Universe) lookupSystem(c *call) (*system, *apiError) {
	sym := strings.ToUpper(c.r.PathValue("system"))
	s := u.systems[sym]
	if s == nil {
		return nil, notFound("System %s not found.", sym)
	}
	return s, nil
}

func (u *Universe) getWaypoints(c *call) (int, any, *apiError) {
	s, e := u.lookupSystem(c)
	if e != nil {
		return fail(e)
	}
	q := c.r.URL.Query()
	typ := strings.ToUpper(q.Get("type"))
	var traits []string
	for _, t := range q["traits"] {
		for _, p := range strings.Split(t, ",") {
			if p = strings.TrimSpace(p); p != "" {
				traits = append(traits, strings.ToUpper(p))
			}
		}
	}
	out := []wire.Waypoint{}
	for _, w := range s.Waypoints {
		if typ != "" && w.Type != typ {
			continue
		}
		vis := visibleTraits(w)
		if !containsAll(vis, traits) {
			continue
		}
		out = append(out, u.renderWaypoint(w))
	}
	return page(c, out)
}

func containsAll(have, want []string) bool {
	for _, t := range want {
		if !slices.Contains(have, t) {
			return false
		}
	}
	return true
}

func (u *Universe) lookupWaypoint(c *call) (*waypoint, *apiError) {
	s, e := u.lookupSystem(c)
	if e != nil {
		return nil, e
	}
	sym := strings.ToUpper(c.r.PathValue("waypoint"))
	w := u.waypoints[sym]
	if w == nil || w.System != s.Symbol {
		return nil, notFound("Waypoint %s not found in system %s.", sym, s.Symbol)
	}
	return w, nil
}

// present says whether the calling agent has a ship at w (not passing through).
func (u *Universe) present(c *call, w *waypoint) bool {
	if c.a == nil {
		return false
	}
	for _, s := range c.a.Ships {
		u.settle(s)
		if s.Waypoint == w.Symbol && s.Status != "IN_TRANSIT" {
			return true
		}
	}
	return false
}

func (u *Universe) getMarket(c *call) (int, any, *apiError) {
	w, e := u.lookupWaypoint(c)
	if e != nil {
		return fail(e)
	}
	if w.Market == nil || (w.Uncharted && w.ChartedBy == "") {
		return fail(notFound("Waypoint %s has no marketplace.", w.Symbol).withCode(codeNoMarket))
	}
	return ok(u.renderMarket(w, u.present(c, w)))
}

func (u *Universe) getShipyard(c *call) (int, any, *apiError) {
	w, e := u.lookupWaypoint(c)
	if e != nil {
		return fail(e)
	}
	if len(w.Shipyard) == 0 {
		return fail(notFound("Waypoint %s has no shipyard.", w.Symbol))
	}
	return ok(renderShipyard(w, u.present(c, w)))
}

func (u *Universe) getJumpGate(c *call) (int, any, *apiError) {
	w, e := u.lookupWaypoint(c)
	if e != nil {
		return fail(e)
	}
	if !w.IsGate {
		return fail(notFound("Waypoint %s is not a jump gate.", w.Symbol))
	}
	return ok(wire.JumpGate{Symbol: w.Symbol, Connections: slices.Clone(w.Gate)})
}
