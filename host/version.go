package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

// commit and date are the commit a release was built from and that
// commit's time (RFC 3339, UTC), set with -ldflags -X by `make release`
// (internal/release); a build from source leaves them "unknown".
var (
	commit = "unknown"
	date   = "unknown"
)

// versionLine is what `version` and `--version` print: the version, the
// commit and date it was built from, and the platform.
func versionLine() string {
	return fmt.Sprintf("toolhost %s commit %s date %s %s/%s", version, commit, date, runtime.GOOS, runtime.GOARCH)
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, the commit and date it was built from, and the platform",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), versionLine())
			return err
		},
	}
}
