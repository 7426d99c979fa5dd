//go:build !race

package e2e

// raceEnabled reports that the tests run with -race, so the binary under
// test is built with it too.
const raceEnabled = false
