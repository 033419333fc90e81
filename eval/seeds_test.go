package eval

import "testing"

func TestParseSeeds(t *testing.T) {
	got, err := ParseSeeds("1, 3-5,9")
	if err != nil || len(got) != 5 || got[0] != 1 || got[1] != 3 || got[3] != 5 || got[4] != 9 {
		t.Errorf("ParseSeeds = %v, %v", got, err)
	}
}
