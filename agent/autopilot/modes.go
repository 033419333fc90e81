package autopilot

import (
	"slices"
	"strings"
)

// The autopilot understands a second thing in what the person says, in advice and in a
// veto's reason alike: a flight mode. "keep CRUISE to save fuel" asks for CRUISE; "don't
// burn" (or "no BURN") asks to avoid BURN. The wish holds from then on, wherever the
// ship goes, as far as the fuel allows: a trip that only DRIFT can make is still flown
// in DRIFT.

// flightModeNames are the modes a wish can name.
var flightModeNames = []string{"BURN", "CRUISE", "DRIFT", "STEALTH"}

// modeWish is what the person said about flight modes: one to prefer, and ones to avoid.
type modeWish struct {
	prefer string
	avoid  []string
}

func (w modeWish) any() bool { return w.prefer != "" || len(w.avoid) > 0 }

// readModeWish finds flight modes named in text, each for (the last one named wins) or
// against (negated: "don't burn", "no BURN").
func readModeWish(text string) modeWish {
	toks := adviceTokenRe.FindAllString(strings.NewReplacer("’", "'", "‘", "'").Replace(strings.ToLower(text)), -1)
	var w modeWish
	for i, t := range toks {
		mode := strings.ToUpper(t)
		if !slices.Contains(flightModeNames, mode) {
			continue
		}
		if adviceNegated(toks, i) {
			w.avoid = append(w.avoid, mode)
			if w.prefer == mode {
				w.prefer = ""
			}
			continue
		}
		w.prefer = mode
		w.avoid = slices.DeleteFunc(w.avoid, func(a string) bool { return a == mode })
	}
	return w
}

// says words the wish for the person.
func (w modeWish) says() string {
	var parts []string
	if w.prefer != "" {
		parts = append(parts, "fly "+w.prefer+" where the fuel allows")
	}
	if len(w.avoid) > 0 {
		parts = append(parts, "avoid "+strings.Join(w.avoid, " and "))
	}
	return strings.Join(parts, ", ")
}

// learnModes takes a wish into memory: it holds until another one changes it. It says
// whether the wish was new.
func (m *memory) learnModes(w modeWish) bool {
	if !w.any() {
		return false
	}
	before := m.modes.says()
	if w.prefer != "" {
		m.modes.prefer = w.prefer
		m.modes.avoid = slices.DeleteFunc(m.modes.avoid, func(a string) bool { return a == w.prefer })
	}
	for _, a := range w.avoid {
		if !slices.Contains(m.modes.avoid, a) {
			m.modes.avoid = append(m.modes.avoid, a)
		}
		if m.modes.prefer == a {
			m.modes.prefer = ""
		}
	}
	return m.modes.says() != before
}

// orderModes puts the person's wish on the modes a trip can be flown in (best first):
// the preferred mode first, the avoided ones left out, unless nothing else can make it.
func (m *memory) orderModes(modes []string) []string {
	out := slices.DeleteFunc(slices.Clone(modes), func(mode string) bool { return slices.Contains(m.modes.avoid, mode) })
	if len(out) == 0 {
		out = slices.Clone(modes)
	}
	if i := slices.Index(out, m.modes.prefer); i > 0 {
		out = append([]string{out[i]}, append(out[:i:i], out[i+1:]...)...)
	}
	return out
}
