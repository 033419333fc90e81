package mcpserve

import (
	"fmt"
	"net"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Kind says what a journal entry is about.
type Kind string

// The kinds of journal entries.
const (
	KindJoin    Kind = "join"    // a seat's client finished its handshake
	KindLeave   Kind = "leave"   // a seat's session ended
	KindRefused Kind = "refused" // requests refused at the door (no or wrong token, another origin, over the limit)
	KindClosed  Kind = "closed"  // a seat's oldest session closed to make room for a new one
	KindError   Kind = "error"   // a seat's world could not be kept, or its game failed
)

// Entry is one line of the server's journal.
type Entry struct {
	Time time.Time `json:"time"`
	Kind Kind      `json:"kind"`
	Seat string    `json:"seat,omitempty"` // "" for a refusal: nobody was recognised
	Text string    `json:"text"`
}

// String is the entry as the server's log prints it.
func (e Entry) String() string {
	return e.Time.Format("15:04:05") + " " + string(e.Kind) + ": " + e.Text
}

// journalSize is how many entries Server.Journal keeps.
const journalSize = 256

// refusalWindow is how often refusals are journaled: the first of a window at once,
// the rest as one count at its end, so that a client hammering the door with a wrong
// token cannot flood the journal.
const refusalWindow = time.Minute

// maxRefusalKinds bounds the distinct (why, address) pairs a window's count names.
const maxRefusalKinds = 8

// journal keeps the latest entries and passes each to the sink.
type journal struct {
	sink func(Entry)

	mu      sync.Mutex
	ring    []Entry
	window  *time.Timer    // set while refusals are being counted
	counts  map[string]int // "why from address" -> refusals counted this window
	uncount int            // refusals past maxRefusalKinds
}

func newJournal(sink func(Entry)) *journal { return &journal{sink: sink, counts: map[string]int{}} }

// add journals e.
func (j *journal) add(e Entry) {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	j.mu.Lock()
	j.ring = keepLast(j.ring, e, journalSize)
	j.mu.Unlock()
	if j.sink != nil {
		j.sink(e)
	}
}

// refuse journals a refused request: the first of a window at once, the rest counted.
func (j *journal) refuse(why, remote string) {
	from := hostOf(remote)
	j.mu.Lock()
	if j.window == nil {
		j.window = time.AfterFunc(refusalWindow, j.flush)
		j.mu.Unlock()
		j.add(Entry{Kind: KindRefused, Text: fmt.Sprintf("refused a request from %s: %s (more in the next minute are counted)", from, why)})
		return
	}
	key := why + " from " + from
	if _, ok := j.counts[key]; ok || len(j.counts) < maxRefusalKinds {
		j.counts[key]++
	} else {
		j.uncount++
	}
	j.mu.Unlock()
}

// flush ends the refusals' window: what it counted is one entry.
func (j *journal) flush() {
	j.mu.Lock()
	if j.window != nil {
		j.window.Stop()
		j.window = nil
	}
	total := j.uncount
	var parts []string
	for k, n := range j.counts {
		total += n
		parts = append(parts, fmt.Sprintf("%s ×%d", k, n))
	}
	if j.uncount > 0 {
		parts = append(parts, fmt.Sprintf("others ×%d", j.uncount))
	}
	j.counts, j.uncount = map[string]int{}, 0
	j.mu.Unlock()
	if total == 0 {
		return
	}
	sort.Strings(parts)
	j.add(Entry{Kind: KindRefused, Text: fmt.Sprintf("refused %d more requests in the last minute: %s", total, strings.Join(parts, ", "))})
}

// entries returns the kept entries, oldest first.
func (j *journal) entries() []Entry {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.ring)
}

// hostOf is a remote address without its port: refusals from one machine are one.
func hostOf(remote string) string {
	if h, _, err := net.SplitHostPort(remote); err == nil {
		return h
	}
	return remote
}
