package brain

import "fmt"

// Temper looks up the temperament name picks among a rule-based brain's (the
// autopilots': "" is the balanced one, "bold" and "careful" the others), so that every
// autopilot takes the same names and refuses an unknown one in the same words.
func Temper[T any](tempers map[string]T, name string) (T, error) {
	t, ok := tempers[name]
	if !ok {
		return t, fmt.Errorf("no temperament %q (want bold or careful)", name)
	}
	return t, nil
}
