package sdk

import (
	"fmt"
	"io"
)

// runCLI is a placeholder until the manifest parser lands.
func runCLI(_ Plugin, _ []string, _, stderr io.Writer) int {
	fmt.Fprintln(stderr, "CLI mode is not available yet")
	return 2
}
