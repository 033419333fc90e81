package agent

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/coplayhq/coplay/game"
)

// Progress is how far a running call has come (event progress). Total 0 means the
// game does not know how much there is: a counter rather than a bar.
type Progress struct {
	CallID   string  `json:"call_id,omitempty"` // "" when no call of the model's runs (an observation, a dry run)
	Server   string  `json:"server,omitempty"`
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// progressEvery is how often a call's progress is journaled and shown at most; a
// report that finishes (progress = total) or says something new always is.
const progressEvery = 250 * time.Millisecond

// MaxProgressExtension is the most a call's deadline is moved on by progress reports:
// each report moves it to a full call timeout after the report, up to this much past the
// first deadline. Time spent asking the person is added besides, without a limit.
const MaxProgressExtension = 10 * time.Minute

// onProgress shows a call's progress (Run goroutine).
func (st *askState) onProgress(v *deskView, p Progress) {
	now := time.Now()
	st.progress = now
	// Progress sent just before a call's answer may come just after it: it is the last
	// call's that ran.
	if p.CallID = v.call; p.CallID != "" {
		st.lastCall = p.CallID
	} else {
		p.CallID = st.lastCall
	}
	p.Message = v.scrub.text(p.Message)
	if st.progLast == nil {
		st.progLast = map[string]time.Time{}
	}
	last, seen := st.progLast[p.CallID]
	done := p.Total > 0 && p.Progress >= p.Total
	if seen && now.Sub(last) < progressEvery && !done && p.Message == "" {
		return
	}
	st.progLast[p.CallID] = now
	st.emit(Event{Type: EventProgress, Progress: &p, Text: progressText(p)})
}

// progressText writes progress as the log shows it: "3/10 (30%) loading" or "3 loading".
func progressText(p Progress) string {
	s := strconv.FormatFloat(p.Progress, 'f', -1, 64)
	if p.Total > 0 {
		s = fmt.Sprintf("%s/%s (%d%%)", s, strconv.FormatFloat(p.Total, 'f', -1, 64), int(100*p.Progress/p.Total))
	}
	if p.Message != "" {
		s += " " + p.Message
	}
	return s
}

// onServerLog shows a server's log line (Run goroutine).
func (st *askState) onServerLog(v *deskView, l game.LogLine) {
	st.mu.Lock()
	dropped := st.logDrops
	st.logDrops = 0
	st.mu.Unlock()
	l.Data = v.scrub.json(l.Data)
	text := logText(l)
	if dropped > 0 {
		text += fmt.Sprintf(" (%d earlier lines dropped: coplay was busy)", dropped)
	}
	st.emit(Event{Type: EventServerLog, ServerLog: &l, Text: text})
}

// logText writes a log line as the log shows it: "[warning] server/logger: text".
func logText(l game.LogLine) string {
	who := l.Server
	if l.Logger != "" {
		who += "/" + l.Logger
	}
	var s string
	if json.Unmarshal(l.Data, &s) != nil {
		s = string(l.Data)
	}
	return fmt.Sprintf("[%s] %s: %s", l.Level, who, s)
}

// callBegins is told that a game call begins under a new deadline: the time asked and
// the progress of the call before are forgotten.
func (st *askState) callBegins() {
	st.credit, st.extended, st.progress = 0, 0, time.Time{}
	st.callAt = time.Now()
	if st.openN > 0 {
		st.since = st.callAt
	}
}

// deadlineMore is asked when a game call's deadline passes: how much longer the call
// may run, 0 for none. The time the person was asked comes back whole (a question open
// now keeps the call waiting as long as it stays open); a progress report since the
// deadline was set moves it to a full timeout after the report, up to
// MaxProgressExtension in all.
func (st *askState) deadlineMore(timeout time.Duration) time.Duration {
	now := time.Now()
	if st.openN > 0 {
		st.credit += now.Sub(st.since)
		st.since = now
	}
	if st.credit > 0 {
		more := max(st.credit, time.Second)
		st.credit = 0
		return more
	}
	if !st.progress.IsZero() && st.extended < MaxProgressExtension {
		more := min(st.progress.Add(timeout).Sub(now), MaxProgressExtension-st.extended)
		st.progress = time.Time{}
		if more > 0 {
			st.extended += more
			return more
		}
	}
	return 0
}
