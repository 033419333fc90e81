package arena

import "hash/fnv"

// The world's randomness is a pure function of the seed and of what is being decided
// (a salt naming the decision, and numbers such as the game minute): there is no
// generator state to save, and the same seed and the same calls at the same game times
// give the same world.

// mix64 is SplitMix64's finaliser: a good scramble of 64 bits.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// roll returns 64 pseudo-random bits for the decision salt with the numbers parts.
func roll(seed int64, salt string, parts ...int64) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(salt)) // a hash's Write never fails
	x := mix64(uint64(seed) ^ h.Sum64())
	for _, p := range parts {
		x = mix64(x ^ uint64(p))
	}
	return x
}

// unit returns a number in [0, 1) for the decision.
func unit(seed int64, salt string, parts ...int64) float64 {
	return float64(roll(seed, salt, parts...)>>11) / (1 << 53)
}

// below returns a number in [0, n) for the decision; 0 when n <= 0.
func below(seed int64, n int, salt string, parts ...int64) int {
	if n <= 0 {
		return 0
	}
	return int(roll(seed, salt, parts...) % uint64(n))
}

// between returns a number in [lo, hi] for the decision.
func between(seed int64, lo, hi int, salt string, parts ...int64) int {
	if hi <= lo {
		return lo
	}
	return lo + below(seed, hi-lo+1, salt, parts...)
}
