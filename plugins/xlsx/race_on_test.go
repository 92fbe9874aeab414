//go:build race

package main

// raceDetector is true in a -race build, where the detector makes reading
// a workbook several times slower: the corpus comparisons, which read
// every file of a corpus through code that starts no goroutine, skip there
// (skipUnderRace) and make test runs them without -race.
const raceDetector = true
