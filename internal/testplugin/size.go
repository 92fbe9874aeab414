package testplugin

import "os"

// FullEnv is the variable `make check` sets to 1: the tests that sweep or
// storm (many generated inputs, many tries of a race) then run at their
// full size; `make test` runs them small.
const FullEnv = "TOOLHOST_TEST_FULL"

// Size is full when FullEnv is 1, else small.
func Size(small, full int) int {
	if os.Getenv(FullEnv) == "1" {
		return full
	}
	return small
}
