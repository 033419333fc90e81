package eval

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseSeeds reads "1,2,3", "1-5" or a mix.
func ParseSeeds(s string) ([]int64, error) {
	var out []int64
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.ParseInt(lo, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a seed (want numbers such as 1,2,3 or a range 1-5)", part)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseInt(hi, 10, 64); err != nil || b < a {
				return nil, fmt.Errorf("%q is not a range of seeds (want LOW-HIGH)", part)
			}
			if b-a >= 10000 {
				return nil, fmt.Errorf("%q: more than 10000 seeds", part)
			}
		}
		for x := a; x <= b; x++ {
			out = append(out, x)
		}
	}
	return out, nil
}
