//go:build race

package secrets

// raceDetector is true in a -race build: the many-seed fixture test scans a
// tenth of its seeds there, as the detector makes each scan some twenty
// times slower.
const raceDetector = true
