//go:build race

package inflate

// underRace: the race detector slows inflating about tenfold; the tests
// then read smaller streams and fewer of them.
const underRace = true
