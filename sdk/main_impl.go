package sdk

import "os"

// mainImpl is replaced by the real go-plugin server and CLI.
func mainImpl(p Plugin) {
	_ = p
	os.Exit(3)
}
