package autopilot

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/coplayhq/coplay/agent/brain"
	st "github.com/coplayhq/coplay/game/spacetraders"
)

// errorSteps is how many steps a refused call stays blocked while nothing about its ship
// changed: long enough to try something else, short enough not to give up for good.
const errorSteps = 2

// invalidSteps is how long a call whose arguments the tool refused stays blocked,
// wherever the ship goes.
const invalidSteps = 10

// situation is what a block depends on: where a ship is (vetoes hold while it stays
// there) and its fuller state (failures hold while nothing changed).
type situation struct{ where, state string }

// block remembers a call not to propose again for now.
type block struct {
	veto    bool
	invalid bool // the arguments did not fit the tool: no change of situation fixes that
	at      situation
	step    int
	reason  string // for the person: "you vetoed buying IRON_ORE"
}

// issued is what the autopilot remembers of a call it proposed.
type issued struct {
	key, tool, ship string
	at              situation
}

// memory is what the autopilot keeps between steps. Everything else is read afresh.
type memory struct {
	step              int
	blocks            map[string]block
	issued            map[string]issued // by call id
	answered          map[string]bool   // call ids whose results were read
	surveys           map[string][]st.Survey
	surveyTries       map[string]int
	surveysUnreadable bool
	preferMine        bool
	advice            []string
	adviceNew         bool     // advice arrived this step
	modes             modeWish // the flight modes the person asked for or against (modes.go)
	modesNew          bool     // a wish about flight modes came this step
	t                 temper   // how much it risks on cargo (temper.go)
}

func newMemory() *memory {
	return &memory{
		blocks: map[string]block{}, issued: map[string]issued{}, answered: map[string]bool{},
		surveys: map[string][]st.Survey{}, surveyTries: map[string]int{}, t: tempers[""],
	}
}

// blocked returns why key must not be proposed in situation now, or "".
func (m *memory) blocked(key string, now situation) string {
	b, ok := m.blocks[key]
	switch {
	case !ok:
		return ""
	case b.veto && b.at.where == now.where:
		return b.reason
	case b.invalid && m.step-b.step <= invalidSteps:
		return b.reason
	case !b.veto && m.step-b.step <= errorSteps && b.at.state == now.state:
		return b.reason
	}
	delete(m.blocks, key)
	return ""
}

// absorb reads the results of the autopilot's earlier calls and any new advice out of
// the conversation. current gives a ship's situation for calls it did not issue itself
// (after a restart).
func (m *memory) absorb(msgs []brain.Message, current func(ship string) situation) {
	m.modesNew = false
	calls := map[string]brain.ToolCall{}
	for _, msg := range msgs {
		if msg.Role == brain.RoleAssistant {
			for _, c := range msg.ToolCalls {
				calls[c.ID] = c
			}
		}
	}
	for _, msg := range msgs {
		if msg.Role != brain.RoleTool || m.answered[msg.ToolCallID] {
			continue
		}
		m.answered[msg.ToolCallID] = true
		c, ok := calls[msg.ToolCallID]
		if !ok {
			continue
		}
		var args map[string]any
		_ = json.Unmarshal(c.Args, &args) // malformed arguments are not ours; nothing to learn
		is, mine := m.issued[msg.ToolCallID]
		if !mine {
			ship, key := keyOf(c.Tool, args)
			is = issued{key: key, tool: c.Tool, ship: ship, at: current(ship)}
		}
		delete(m.issued, msg.ToolCallID)
		m.result(is, args, msg.Content)
	}
	m.adviceNew = false
	for _, a := range newAdvice(msgs) {
		m.advice = append(m.advice, a)
		m.adviceNew = true
		if p, ok := preference(a); ok {
			m.preferMine = p
		}
		m.modesNew = m.learnModes(readModeWish(a)) || m.modesNew
	}
	if m.adviceNew {
		// The person may have explained what they vetoed: think again, but not of a
		// flight mode they vetoed (another mode always makes the trip, and the identical
		// call would be back where they said no), unless they now ask for it.
		for k, b := range m.blocks {
			tool, mode, _ := strings.Cut(k, "|")
			_, mode, _ = strings.Cut(mode, "|")
			if b.veto && (tool != st.ToolSetFlightMode || mode == m.modes.prefer) {
				delete(m.blocks, k)
			}
		}
	}
}

var gameErrorRe = regexp.MustCompile(`game error (\d+): ([^\n]*)`)

// result learns from one call's outcome, as the runner words it.
func (m *memory) result(is issued, args map[string]any, text string) {
	if _, after, edited := strings.Cut(text, "\nResult: "); edited && strings.HasPrefix(text, "The person edited") {
		text = after
	}
	what := describeCall(is.tool, args)
	switch {
	case strings.HasPrefix(text, "not executed: vetoed"):
		reason := "you vetoed " + what
		if r, ok := strings.CutPrefix(text, "not executed: vetoed by the person: "); ok {
			r, _, _ = strings.Cut(r, ". Do not repeat this call unchanged.")
			reason += " (" + r + ")"
			// "keep CRUISE to save fuel": the reason may ask for a flight mode. Naming the
			// very mode vetoed is speaking against it ("BURN wastes fuel").
			wish := readModeWish(r)
			if mode, _ := args["flightMode"].(string); is.tool == st.ToolSetFlightMode && wish.prefer == mode {
				wish = modeWish{avoid: []string{mode}}
			}
			m.modesNew = m.learnModes(wish) || m.modesNew
		}
		m.blocks[is.key] = block{veto: true, at: is.at, step: m.step, reason: reason}
	case strings.HasPrefix(text, "not executed"):
		m.blocks[is.key] = block{invalid: true, at: is.at, step: m.step, reason: what + " was not valid"}
	case strings.HasPrefix(text, "outcome unknown"), strings.Contains(text, "the response was lost"):
		// The world is read again next step; nothing to hold against the call.
	case gameErrorRe.MatchString(text):
		sm := gameErrorRe.FindStringSubmatch(text)
		code, _ := strconv.Atoi(sm[1])
		if is.tool == st.ToolExtractResources && code >= 4220 && code <= 4224 {
			m.dropSurvey(args) // the survey is spent or bad; mine without it
			return
		}
		if code == 4000 || code == 4214 { // cooldown, in transit: a wait, not a mistake
			return
		}
		m.blocks[is.key] = block{at: is.at, step: m.step, reason: fmt.Sprintf("the game refused %s (%d: %s)", what, code, sm[2])}
	case is.tool == st.ToolCreateSurvey:
		m.learnSurveys(text)
	case is.tool == st.ToolExtractResources && args["survey"] != nil:
		if sv, ok := args["survey"].(map[string]any); ok {
			wp, _ := sv["symbol"].(string)
			m.surveyTries[wp] = 0
		}
	}
}

// describeCall words a call for the person: "navigate_ship COPLAY-1 → X1-AB12-C3".
func describeCall(tool string, args map[string]any) string {
	var parts []string
	for _, k := range []string{"shipSymbol", "waypointSymbol", "flightMode", "symbol", "tradeSymbol", "units", "contractId"} {
		if v, ok := args[k]; ok {
			parts = append(parts, fmt.Sprint(v))
		}
	}
	if len(parts) == 0 {
		return tool
	}
	return tool + " " + strings.Join(parts, " ")
}

// learnSurveys keeps the surveys a create_survey result lists. The result is the tool's
// text; the surveys are the JSON values in it (one per line, or a list, or an object
// holding them under "surveys").
func (m *memory) learnSurveys(text string) {
	var found []st.Survey
	for i := 0; i < len(text); i++ {
		if text[i] != '{' && text[i] != '[' {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(text[i:]))
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			continue
		}
		found = append(found, surveysIn(v)...)
		i += int(dec.InputOffset()) - 1
	}
	if len(found) == 0 {
		m.surveysUnreadable = true
		return
	}
	wp := found[0].Symbol
	m.surveyTries[wp]++ // one try per survey call, however many surveys it made
	m.surveys[wp] = append(m.surveys[wp], found...)
}

// surveysIn finds surveys in a decoded JSON value: a list of them, or an object holding
// one under "surveys" (possibly inside "data").
func surveysIn(v json.RawMessage) []st.Survey {
	var list []st.Survey
	if json.Unmarshal(v, &list) == nil && len(list) > 0 && list[0].Signature != "" {
		return list
	}
	var one st.Survey
	if json.Unmarshal(v, &one) == nil && one.Signature != "" && len(one.Deposits) > 0 {
		return []st.Survey{one}
	}
	var obj struct {
		Surveys []st.Survey `json:"surveys"`
		Data    struct {
			Surveys []st.Survey `json:"surveys"`
		} `json:"data"`
	}
	if json.Unmarshal(v, &obj) != nil {
		return nil
	}
	if len(obj.Surveys) > 0 {
		return obj.Surveys
	}
	return obj.Data.Surveys
}

func (m *memory) dropSurvey(args map[string]any) {
	sv, _ := args["survey"].(map[string]any)
	sig, _ := sv["signature"].(string)
	wp, _ := sv["symbol"].(string)
	kept := m.surveys[wp][:0]
	for _, s := range m.surveys[wp] {
		if s.Signature != sig {
			kept = append(kept, s)
		}
	}
	m.surveys[wp] = kept
}

// bestSurvey returns the unexpired survey of waypoint richest in good, if at least a
// third of its deposits are the good (plain mining does about that well).
func (m *memory) bestSurvey(waypoint, good string, now time.Time) *st.Survey {
	var best *st.Survey
	bestShare := 0.34
	for i, sv := range m.surveys[waypoint] {
		if !sv.Expiration.IsZero() && !sv.Expiration.After(now.Add(5*time.Second)) {
			continue
		}
		if f := fraction(sv, good); f >= bestShare {
			best, bestShare = &m.surveys[waypoint][i], f
		}
	}
	return best
}

// surveyWorthIt says whether one more survey at waypoint is worth a cooldown: not when
// two surveys in a row brought nothing useful, nor when results cannot be read.
func (m *memory) surveyWorthIt(waypoint string) bool {
	return !m.surveysUnreadable && m.surveyTries[waypoint] < 2
}

func fraction(sv st.Survey, good string) float64 {
	if len(sv.Deposits) == 0 {
		return 0
	}
	n := 0
	for _, d := range sv.Deposits {
		if d.Symbol == good {
			n++
		}
	}
	return float64(n) / float64(len(sv.Deposits))
}

func share(sv st.Survey, good string) string {
	return fmt.Sprintf("%.0f%%", 100*fraction(sv, good))
}

// surveyArg is a survey as extract_resources takes it back: whole and unaltered.
func surveyArg(sv st.Survey) map[string]any {
	deps := make([]any, len(sv.Deposits))
	for i, d := range sv.Deposits {
		deps[i] = map[string]any{"symbol": d.Symbol}
	}
	return map[string]any{
		"signature": sv.Signature, "symbol": sv.Symbol, "deposits": deps,
		"expiration": sv.Expiration.UTC().Format(time.RFC3339), "size": sv.Size,
	}
}

// newAdvice returns the advice given for this step (brain.AdviceOf).
func newAdvice(msgs []brain.Message) []string { return brain.AdviceOf(msgs) }
