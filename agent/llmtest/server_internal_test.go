package llmtest

import "testing"

func TestKeepLastBoundsMemory(t *testing.T) {
	var xs []int
	for i := range Kept + 250 {
		xs = keepLast(append(xs, i), Kept)
	}
	if len(xs) != Kept || xs[0] != 250 || xs[len(xs)-1] != Kept+249 {
		t.Fatalf("kept %d, first %d, last %d; want the last %d in order", len(xs), xs[0], xs[len(xs)-1], Kept)
	}
}
