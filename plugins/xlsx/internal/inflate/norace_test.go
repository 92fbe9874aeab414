//go:build !race

package inflate

// underRace: see race_test.go.
const underRace = false
