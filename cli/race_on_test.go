//go:build race

package cli

// raceDetector says the tests run with the race detector (go test -race): they compute
// several times more and wait the same, so widenParallel leaves -parallel at one test a
// CPU, and the tests' own time limits (a model request's 300 ms in the fault suite) hold.
const raceDetector = true
