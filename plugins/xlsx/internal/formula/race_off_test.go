//go:build !race

package formula

const raceDetector = false
