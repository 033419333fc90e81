package ui

import (
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

var finalTimeout = teatest.WithFinalTimeout(10 * time.Second)

// program is a running teatest program whose latest frame can be read safely.
type program struct {
	*teatest.TestModel
	mu   *sync.Mutex
	last *string
}

// newProgram runs m in a teatest program at 80×24 without colour; its frames are
// captured through a filter, so a test can wait on what the screen shows.
func newProgram(t *testing.T, m *Model) *program {
	var mu sync.Mutex
	last := new(string)
	filter := func(model tea.Model, msg tea.Msg) tea.Msg {
		mu.Lock()
		*last = model.(*Model).render()
		mu.Unlock()
		return msg
	}
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii), tea.WithFilter(filter)))
	return &program{TestModel: tm, mu: &mu, last: last}
}

func (p *program) view() string {
	p.Send(probeMsg{}) // runs the filter after the latest update
	time.Sleep(5 * time.Millisecond)
	p.mu.Lock()
	defer p.mu.Unlock()
	return *p.last
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met in 5s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// probeMsg does nothing; sending it makes the filter capture the current frame.
type probeMsg struct{}
