//go:build race

package workbook

// raceDetector is true in a -race build, where the detector makes reading
// a workbook several times slower: the tests that read every corpus file
// or stream a large sheet, through code that starts no goroutine, skip
// there (skipUnderRace) and make test runs them without -race.
const raceDetector = true
