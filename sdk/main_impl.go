package sdk

import "os"

// mainImpl serves the host or runs the CLI, then exits.
func mainImpl(p Plugin) {
	if servedByHost() {
		serve(p)
		os.Exit(0)
	}
	os.Exit(runCLI(p, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
