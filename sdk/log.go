package sdk

import (
	"log/slog"
	"os"
	"strings"
)

// Logger returns the plugin's logger. It writes to stderr, never stdout:
// stdout belongs to the protocol. Under the host it writes hclog's JSON
// line format, which go-plugin parses so the host logs each line at its
// level with the plugin's name; in CLI mode it writes plain text.
func Logger() *slog.Logger {
	if !servedByHost() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug, ReplaceAttr: hclogKeys}))
}

// hclogKeys renames slog's built-in keys to hclog's JSON keys.
func hclogKeys(groups []string, a slog.Attr) slog.Attr {
	if len(groups) > 0 {
		return a
	}
	switch a.Key {
	case slog.TimeKey:
		a.Key = "@timestamp"
	case slog.LevelKey:
		a.Key = "@level"
		a.Value = slog.StringValue(strings.ToLower(a.Value.String()))
	case slog.MessageKey:
		a.Key = "@message"
	}
	return a
}
