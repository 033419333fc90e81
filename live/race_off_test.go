//go:build !race

package live_test

// raceDetector says the tests run with the race detector (race_on_test.go).
const raceDetector = false
