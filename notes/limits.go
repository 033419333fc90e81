package notes

import "fmt"

// Limits on what the notebook keeps. Everything in the notes and the plan is sent to
// the model with every request, so an unbounded note would grow every prompt after it
// (and brick a session with a provider that refuses large prompts). Over a limit the
// edit is refused with an error that states the limit, for the model to act on.
const (
	// MaxSection is the most bytes one section's text may have.
	MaxSection = 4_000
	// MaxNotes is the most bytes the whole notes may have.
	MaxNotes = 16_000
	// MaxPlanSteps is the most steps a plan may have.
	MaxPlanSteps = 30
	// MaxPlanStepText is the most bytes one plan step's text may have.
	MaxPlanStepText = 300
)

// checkSection refuses a section text over MaxSection.
func checkSection(section, text string) error {
	if len(text) > MaxSection {
		return fmt.Errorf("notes: section %q would be %d bytes; a section holds at most %d bytes: "+
			"keep what matters and summarise the rest", section, len(text), MaxSection)
	}
	return nil
}

// checkNotes refuses notes over MaxNotes, unless they shrink (notes written before the
// limit may be over it and must stay editable).
func checkNotes(old, text string) error {
	if len(text) > MaxNotes && len(text) > len(old) {
		return fmt.Errorf("notes: the notes would be %d bytes; they hold at most %d bytes: "+
			"shorten or summarise a section", len(text), MaxNotes)
	}
	return nil
}
