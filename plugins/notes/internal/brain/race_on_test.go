//go:build race

package brain

// raceDetector is true in a -race build: the retrieval evaluation runs
// without it (make test runs it on its own), as the detector makes its
// 3,828-note import and 136 searches take over ten minutes.
const raceDetector = true
