//go:build race

package secrets

// raceDetector is true in a -race build, where the detector makes each scan
// some twenty times slower: the tests that scan thousands of texts skip
// there (skipUnderRace) and make test runs them without -race.
const raceDetector = true
