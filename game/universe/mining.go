package universe

import (
	"github.com/coplayhq/coplay/game/spacetraders/wire"
	"slices"
	"strings"
	"time"
)

// This file serves mining and exploration: surveys, extraction and charts.

const (
	extractCooldown = 80 * time.Second // game time
	surveyCooldown  = 60 * time.Second // game time
)

var surveyUses = map[string]int{"SMALL": 10, "MODERATE": 25, "LARGE": 50}

// waypointDeposits lists what can be mined at w, most common first.
func waypointDeposits(w *waypoint) []string {
	var out []string
	for _, t := range w.Traits {
		for _, d := range deposits[t] {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

// pickWeighted draws from list with earlier entries more likely (weights n, n-1, ..., 1).
func (u *Universe) pickWeighted(list []string) string {
	n := len(list)
	r := u.rng.IntN(n * (n + 1) / 2)
	for i := range n {
		r -= n - i
		if r < 0 {
			return list[i]
		}
	}
	return list[n-1]
}

func mountsStrength(s *ship, prefix string) int {
	n := 0
	for _, m := range s.Mounts {
		if strings.HasPrefix(m, prefix) {
			n += mounts[m].strength
		}
	}
	return n
}

func renderSurvey(s *survey) wire.Survey {
	out := wire.Survey{Signature: s.Signature, Symbol: s.Waypoint, Expiration: s.Expires.UTC(), Size: s.Size}
	for _, d := range s.Deposits {
		out.Deposits = append(out.Deposits, wire.SurveyDeposit{Symbol: d})
	}
	return out
}

func (u *Universe) createSurvey(c *call) (int, any, *apiError) {
	s, e := u.lookupShip(c)
	if e != nil {
		return fail(e)
	}
	strength := mountsStrength(s, "MOUNT_SURVEYOR")
	if strength == 0 {
		return fail(gameErr(codeMissingSurveyor, "Ship %s has no surveyor mount.", s.Symbol))
	}
	if e := u.inTransit(s); e != nil {
		return fail(e)
	}
	if s.Status != "IN_ORBIT" {
		return fail(gameErr(codeSurveyOrbit, "Ship %s must be in orbit to survey.", s.Symbol))
	}
	if e := u.coolingDown(s); e != nil {
		return fail(e)
	}
	w := u.waypoints[s.Waypoint]
	deps := waypointDeposits(w)
	if !minable[w.Type] || len(deps) == 0 {
		return fail(gameErr(codeSurveyWaypointType, "Waypoint %s (%s) has no deposits to survey.", w.Symbol, w.Type))
	}
	u.pruneSurveys()
	out := wire.SurveyResult{Surveys: []wire.Survey{}}
	for range strength {
		sv := &survey{
			Signature: w.Symbol + "-" + strings.ToUpper(u.randomID("", 5)),
			Waypoint:  w.Symbol,
			Size:      []string{"SMALL", "SMALL", "MODERATE", "MODERATE", "LARGE"}[u.rng.IntN(5)],
			Expires:   u.now.Add(u.game(time.Duration(15+u.rng.IntN(30)) * time.Minute)),
		}
		sv.UsesLeft = surveyUses[sv.Size]
		// A survey concentrates on a few goods, so mining with it yields them more often.
		focus := deps[u.rng.IntN(min(3, len(deps)))]
		for range 3 + u.rng.IntN(4) {
			if u.rng.IntN(2) == 0 {
				sv.Deposits = append(sv.Deposits, focus)
			} else {
				sv.Deposits = append(sv.Deposits, u.pickWeighted(deps))
			}
		}
		u.st.Surveys = append(u.st.Surveys, sv)
		u.surveys[sv.Signature] = sv
		out.Surveys = append(out.Surveys, renderSurvey(sv))
	}
	u.startCooldown(s, surveyCooldown)
	out.Cooldown = u.renderCooldown(s)
	return created(out)
}

// pruneSurveys forgets expired and exhausted surveys so saved state stays bounded.
func (u *Universe) pruneSurveys() {
	u.st.Surveys = slices.DeleteFunc(u.st.Surveys, func(s *survey) bool {
		if s.UsesLeft <= 0 || !u.now.Before(s.Expires) {
			delete(u.surveys, s.Signature)
			return true
		}
		return false
	})
}

type extractRequest struct {
	Survey *wire.Survey `json:"survey"`
}

func (u *Universe) extract(c *call) (int, any, *apiError) {
	var req extractRequest
	if e := decode(c, &req, true); e != nil {
		return fail(e)
	}
	return u.doExtract(c, req.Survey)
}

func (u *Universe) extractWithSurvey(c *call) (int, any, *apiError) {
	var sv wire.Survey
	if e := decode(c, &sv, false); e != nil {
		return fail(e)
	}
	return u.doExtract(c, &sv)
}

func (u *Universe) doExtract(c *call, given *wire.Survey) (int, any, *apiError) {
	s, e := u.lookupShip(c)
	if e != nil {
		return fail(e)
	}
	strength := mountsStrength(s, "MOUNT_MINING_LASER")
	if strength == 0 {
		return fail(gameErr(codeMissingLaser, "Ship %s has no mining laser.", s.Symbol))
	}
	if e := u.mustOrbit(s); e != nil {
		return fail(e)
	}
	if e := u.coolingDown(s); e != nil {
		return fail(e)
	}
	w := u.waypoints[s.Waypoint]
	deps := waypointDeposits(w)
	if !minable[w.Type] || len(deps) == 0 {
		return fail(gameErr(codeExtractInvalid, "Waypoint %s (%s) cannot be mined.", w.Symbol, w.Type))
	}
	var sv *survey
	if given != nil {
		var e *apiError
		if sv, e = u.checkSurvey(given, w); e != nil {
			return fail(e)
		}
	}
	free := cargoCapacity(s) - cargoUnits(s)
	if free <= 0 {
		return fail(gameErr(codeCargoFull, "Ship %s cannot extract: its cargo hold is full (%d units).", s.Symbol, cargoCapacity(s)))
	}
	good := u.pickWeighted(deps)
	if sv != nil {
		good = sv.Deposits[u.rng.IntN(len(sv.Deposits))]
		sv.UsesLeft--
	}
	units := min(free, strength+u.rng.IntN(strength/2+1))
	addCargo(s, good, units)
	u.startCooldown(s, extractCooldown)
	return created(wire.ExtractResult{Cooldown: u.renderCooldown(s), Extraction: wire.Extraction{ShipSymbol: s.Symbol, Yield: wire.ExtractionYield{Symbol: good, Units: units}},
		Cargo: renderCargo(s), Modifiers: []wire.WaypointModifier{}, Events: []wire.ShipConditionEvent{}})
}

// checkSurvey verifies a survey a client sends back is one this universe made, unaltered,
// for this waypoint, and still usable.
func (u *Universe) checkSurvey(given *wire.Survey, w *waypoint) (*survey, *apiError) {
	sv := u.surveys[given.Signature]
	if sv == nil || sv.Waypoint != given.Symbol || len(given.Deposits) != len(sv.Deposits) {
		return nil, gameErr(codeSurveyVerification, "Survey %q failed verification: it was not made by this universe or was altered.", given.Signature)
	}
	for i, d := range given.Deposits {
		if d.Symbol != sv.Deposits[i] {
			return nil, gameErr(codeSurveyVerification, "Survey %q failed verification: its deposits were altered.", given.Signature)
		}
	}
	if sv.Waypoint != w.Symbol {
		return nil, gameErr(codeSurveyVerification, "Survey %s is for %s, not %s where the ship is.", sv.Signature, sv.Waypoint, w.Symbol)
	}
	if !u.now.Before(sv.Expires) {
		return nil, gameErr(codeSurveyExpired, "Survey %s expired at %s.", sv.Signature, ts(sv.Expires))
	}
	if sv.UsesLeft <= 0 {
		return nil, gameErr(codeSurveyExhausted, "Survey %s is exhausted: its deposits have been mined out.", sv.Signature)
	}
	return sv, nil
}

func (u *Universe) chart(c *call) (int, any, *apiError) {
	s, e := u.readyShip(c, u.inTransit)
	if e != nil {
		return fail(e)
	}
	w := u.waypoints[s.Waypoint]
	if !w.Uncharted || w.ChartedBy != "" {
		return fail(gameErr(codeAlreadyCharted, "Waypoint %s is already charted.", w.Symbol))
	}
	w.ChartedBy, w.ChartedOn = c.a.Symbol, u.now
	out := u.renderWaypoint(w)
	a := renderAgent(c.a, true)
	return created(wire.ChartResult{Chart: *out.Chart, Waypoint: out, Agent: &a})
}
