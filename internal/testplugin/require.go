package testplugin

import (
	"os"
	"os/exec"
	"testing"
)

// RequireEnv is the variable `make test` sets to 1: every external tool
// the tests use (git, node and the npm clients) must then be installed, and
// a missing one fails the test that needs it instead of skipping it. A
// plain `go test` outside make skips such a test, saying why.
const RequireEnv = "TOOLHOST_REQUIRE_TOOLS"

// Required reports whether RequireEnv is set to 1.
func Required() bool { return os.Getenv(RequireEnv) == "1" }

// Missing fails t when RequireEnv is set, else skips it, with what is
// missing and how to install it.
func Missing(t testing.TB, what, install string) {
	t.Helper()
	if Required() {
		t.Fatalf("%s is missing and %s=1 requires it: %s", what, RequireEnv, install)
	}
	t.Skipf("%s is missing (%s=1 makes this a failure): %s", what, RequireEnv, install)
}

// NeedGit returns the path of git, or fails or skips t (Missing) when it
// is not installed.
func NeedGit(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("git")
	if err != nil {
		Missing(t, "git", "install git (Debian: apt-get install git; `make deps` installs it)")
	}
	return path
}
