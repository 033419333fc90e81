package universe

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// call is one API request being served, under the universe's lock.
type call struct {
	r *http.Request
	a *agent // the authenticated agent, nil for public operations
}

// op serves one operation: it returns the HTTP status and body, or an API error.
type op func(c *call) (int, any, *apiError)

type envelope struct {
	Data any `json:"data"`
}

type meta struct {
	Total int `json:"total"`
	Page  int `json:"page"`
	Limit int `json:"limit"`
}

type pagedEnvelope struct {
	Data any  `json:"data"`
	Meta meta `json:"meta"`
}

func ok(data any) (int, any, *apiError)      { return http.StatusOK, envelope{data}, nil }
func created(data any) (int, any, *apiError) { return http.StatusCreated, envelope{data}, nil }
func fail(e *apiError) (int, any, *apiError) { return 0, nil, e }

// unsupported lists real operations the offline universe does not play.
var unsupported = []string{
	"GET /v2/systems/{s}/waypoints/{w}/construction",
	"POST /v2/systems/{s}/waypoints/{w}/construction/supply",
	"POST /v2/my/ships/{ship}/refine",
	"POST /v2/my/ships/{ship}/siphon",
	"POST /v2/my/ships/{ship}/warp",
	"POST /v2/my/ships/{ship}/scan/systems",
	"POST /v2/my/ships/{ship}/scan/waypoints",
	"POST /v2/my/ships/{ship}/scan/ships",
	"GET /v2/my/ships/{ship}/mounts",
	"POST /v2/my/ships/{ship}/mounts/install",
	"POST /v2/my/ships/{ship}/mounts/remove",
	"GET /v2/my/ships/{ship}/modules",
	"POST /v2/my/ships/{ship}/modules/install",
	"POST /v2/my/ships/{ship}/modules/remove",
	"GET /v2/my/ships/{ship}/scrap",
	"POST /v2/my/ships/{ship}/scrap",
	"GET /v2/my/ships/{ship}/repair",
	"POST /v2/my/ships/{ship}/repair",
	"GET /v2/market/supply-chain",
}

func (u *Universe) routes() http.Handler {
	mux := http.NewServeMux()
	pub := func(pattern string, f op) { mux.Handle(pattern, u.serve(false, f)) }
	my := func(pattern string, f op) { mux.Handle(pattern, u.serve(true, f)) }

	pub("GET /v2", u.getStatus)
	pub("GET /v2/{$}", u.getStatus)
	pub("POST /v2/register", u.postRegister)
	pub("GET /v2/factions", u.getFactions)
	pub("GET /v2/factions/{faction}", u.getFaction)
	pub("GET /v2/agents", u.getAgents)
	pub("GET /v2/agents/{agent}", u.getAgent)
	pub("GET /v2/systems", u.getSystems)
	pub("GET /v2/systems/{system}", view(u.lookupSystem, renderSystem))
	pub("GET /v2/systems/{system}/waypoints", u.getWaypoints)
	pub("GET /v2/systems/{system}/waypoints/{waypoint}", view(u.lookupWaypoint, u.renderWaypoint))
	// Market and shipyard show prices only to an agent with a ship there, so they read
	// the token when one is given but do not require it.
	pub("GET /v2/systems/{system}/waypoints/{waypoint}/market", u.getMarket)
	pub("GET /v2/systems/{system}/waypoints/{waypoint}/shipyard", u.getShipyard)
	pub("GET /v2/systems/{system}/waypoints/{waypoint}/jump-gate", u.getJumpGate)

	my("GET /v2/my/agent", u.getMyAgent)
	my("GET /v2/my/contracts", u.getContracts)
	my("GET /v2/my/contracts/{id}", view(u.lookupContract, renderContract))
	my("POST /v2/my/contracts/{id}/accept", u.acceptContract)
	my("POST /v2/my/contracts/{id}/deliver", u.deliverContract)
	my("POST /v2/my/contracts/{id}/fulfill", u.fulfillContract)

	my("GET /v2/my/ships", u.getShips)
	my("POST /v2/my/ships", u.purchaseShip)
	my("GET /v2/my/ships/{ship}", view(u.lookupShip, u.renderShip))
	my("GET /v2/my/ships/{ship}/cargo", view(u.lookupShip, renderCargo))
	my("GET /v2/my/ships/{ship}/nav", view(u.lookupShip, u.renderNav))
	my("PATCH /v2/my/ships/{ship}/nav", u.patchNav)
	my("GET /v2/my/ships/{ship}/cooldown", u.getCooldown)
	my("POST /v2/my/ships/{ship}/orbit", u.setStatus("IN_ORBIT"))
	my("POST /v2/my/ships/{ship}/dock", u.setStatus("DOCKED"))
	my("POST /v2/my/ships/{ship}/navigate", u.navigate)
	my("POST /v2/my/ships/{ship}/jump", u.jump)
	my("POST /v2/my/ships/{ship}/refuel", u.refuel)
	my("POST /v2/my/ships/{ship}/purchase", u.purchaseCargo)
	my("POST /v2/my/ships/{ship}/sell", u.sellCargo)
	my("POST /v2/my/ships/{ship}/jettison", u.jettison)
	my("POST /v2/my/ships/{ship}/transfer", u.transfer)
	my("POST /v2/my/ships/{ship}/survey", u.createSurvey)
	my("POST /v2/my/ships/{ship}/extract", u.extract)
	my("POST /v2/my/ships/{ship}/extract/survey", u.extractWithSurvey)
	my("POST /v2/my/ships/{ship}/chart", u.chart)
	my("POST /v2/my/ships/{ship}/negotiate/contract", u.negotiate)

	for _, p := range unsupported {
		mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusNotImplemented, errorBody(&apiError{Code: http.StatusNotImplemented,
				Message: r.Method + " " + r.URL.Path + " is not available in the offline universe."}))
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, errorBody(notFound(
			"%s %s is not an operation of the offline universe (it serves SpaceTraders v2 under /v2).", r.Method, r.URL.Path)))
	})
	if u.limiter != nil {
		return u.limiter.wrap(u.clock, mux)
	}
	return mux
}

type errorEnvelope struct {
	Error *apiError `json:"error"`
}

func errorBody(e *apiError) errorEnvelope { return errorEnvelope{e} }

// serve runs an op under the lock, with the request's time read once, and writes its answer.
func (u *Universe) serve(auth bool, f op) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		u.now = u.clock.Now().UTC()
		c := &call{r: r}
		status, body, apiErr := u.authenticate(c, auth)
		if apiErr == nil {
			status, body, apiErr = f(c)
		}
		var data []byte
		var err error
		if apiErr != nil {
			status = apiErr.Status
			if status == 0 {
				status = http.StatusBadRequest
			}
			data, err = json.Marshal(errorBody(apiErr))
		} else if body != nil {
			data, err = json.Marshal(body)
		}
		u.mu.Unlock()
		if err != nil {
			http.Error(w, `{"error":{"message":"internal error encoding the response","code":500}}`, http.StatusInternalServerError)
			return
		}
		if data == nil {
			w.WriteHeader(status)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		w.Write(data)
	})
}

func (u *Universe) authenticate(c *call, required bool) (int, any, *apiError) {
	h := c.r.Header.Get("Authorization")
	if h == "" {
		if required {
			return fail(&apiError{Status: http.StatusUnauthorized, Code: codeMissingToken,
				Message: "Missing access token. Send the agent token in the Authorization header as 'Bearer <token>'."})
		}
		return 0, nil, nil
	}
	token, found := strings.CutPrefix(h, "Bearer ")
	a := u.byToken[strings.TrimSpace(token)]
	if !found || a == nil {
		if !required {
			return 0, nil, nil
		}
		return fail(&apiError{Status: http.StatusUnauthorized, Code: codeInvalidToken,
			Message: "Invalid access token: it does not belong to an agent of this universe."})
	}
	c.a = a
	return 0, nil, nil
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	data, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(data)
}

// page applies the page and limit query parameters as the real server does (limit 1..20,
// default 10; page from 1).
func page[T any](c *call, items []T) (int, any, *apiError) {
	q := c.r.URL.Query()
	p, l := 1, 10
	if s := q.Get("page"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return fail(invalid("page", "page must be an integer of at least 1, got %q", s))
		}
		p = n
	}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 20 {
			return fail(invalid("limit", "limit must be an integer from 1 to 20, got %q", s))
		}
		l = n
	}
	start := min(len(items), (p-1)*l)
	end := min(len(items), start+l)
	out := items[start:end]
	if out == nil {
		out = []T{}
	}
	return http.StatusOK, pagedEnvelope{Data: out, Meta: meta{len(items), p, l}}, nil
}

// decode reads a JSON request body into v. An empty body is allowed when optional.
func decode(c *call, v any, optional bool) *apiError {
	data, err := io.ReadAll(io.LimitReader(c.r.Body, 1<<20))
	if err != nil {
		return invalid("body", "could not read the request body: %v", err)
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		if optional {
			return nil
		}
		return invalid("body", "a JSON request body is required")
	}
	if err := json.Unmarshal(data, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return invalid(te.Field, "field %q must be %s, got %s", te.Field, te.Type, te.Value)
		}
		return invalid("body", "the request body is not valid JSON: %v", err)
	}
	return nil
}
