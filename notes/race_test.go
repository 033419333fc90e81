//go:build race

package notes

// raceEnabled is set under the race detector, which also turns on checkptr: bbolt's
// unsafe reads of a deliberately mangled page header then end the process instead of
// failing, so damage tests aim at stored bytes rather than bbolt's own structures.
const raceEnabled = true
