//go:build !race

package cli

// raceDetector says the tests run with the race detector (race_on_test.go).
const raceDetector = false
