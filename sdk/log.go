package sdk

import (
	"log/slog"
	"os"
)

// Logger returns the plugin's logger. It writes to stderr, never stdout:
// stdout belongs to the protocol. The host forwards these lines with the
// plugin's name.
func Logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
}
