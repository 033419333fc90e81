//go:build race

package live_test

// raceDetector says the tests run with the race detector (go test -race), which makes
// every SSH handshake of a flood many times dearer: figures measured then mean nothing,
// so a test that prints figures takes fewer samples (the behaviour is the same).
const raceDetector = true
