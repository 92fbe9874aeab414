//go:build race

package embed

const raceDetector = true
