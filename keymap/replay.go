package keymap

import "charm.land/bubbles/v2/key"

// ReplayKeys are the bindings of the replay screen (coplay sessions replay NAME), which
// shows a session read-only as it stood at a selected step. The panes keep their own
// bindings (scrolling, focus); deciding, advising and pausing do not apply.
type ReplayKeys struct {
	Back, Forward     key.Binding // one step back or forward
	First, Last       key.Binding // the first or the last step
	Goto              key.Binding // type a step number and jump to it
	PrevDecision      key.Binding // the previous step with a decision by the person or a rule
	NextDecision      key.Binding
	PrevVeto          key.Binding // the previous step with a veto
	NextVeto          key.Binding
	PrevAdvice        key.Binding // the previous step with advice
	NextAdvice        key.Binding
	PrevTrigger       key.Binding // the previous step with a trigger
	NextTrigger       key.Binding
	PrevError         key.Binding // the previous step with an error
	NextError         key.Binding
	Fork              key.Binding // fork at the selected step: ask for a first advice, then play
	Help, Quit, Close key.Binding
}

// DefaultReplay returns the replay screen's default bindings.
func DefaultReplay() *ReplayKeys {
	b := func(desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(helpKeys(keys), desc))
	}
	return &ReplayKeys{
		Back:         b("step back", "left", ","),
		Forward:      b("step forward", "right", "."),
		First:        b("first step", "home"),
		Last:         b("last step", "end"),
		Goto:         b("jump to step N", "g", ":"),
		PrevDecision: b("previous decision", "D"),
		NextDecision: b("next decision", "d"),
		PrevVeto:     b("previous veto", "V"),
		NextVeto:     b("next veto", "v"),
		PrevAdvice:   b("previous advice", "A"),
		NextAdvice:   b("next advice", "a"),
		PrevTrigger:  b("previous trigger", "T"),
		NextTrigger:  b("next trigger", "t"),
		PrevError:    b("previous error", "E"),
		NextError:    b("next error", "e"),
		Fork:         b("fork here, advise, play", "f"),
		Help:         b("help", "?"),
		Quit:         b("quit", "q", "ctrl+c"),
		Close:        b("close / cancel", "esc"),
	}
}

// FullHelp is every replay binding in groups: moving, jumping to marks, and the rest.
func (k *ReplayKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Back, k.Forward, k.First, k.Last, k.Goto},
		{k.NextDecision, k.PrevDecision, k.NextVeto, k.PrevVeto, k.NextAdvice, k.PrevAdvice, k.NextTrigger, k.PrevTrigger, k.NextError, k.PrevError},
		{k.Fork, k.Help, k.Close, k.Quit},
	}
}
