package mcpproto

import (
	"context"
	"log/slog"

	"github.com/hashicorp/go-hclog"
)

// newSlogLogger adapts an hclog.Logger to the *slog.Logger the SDK takes,
// so the SDK's logs go where the host's go (stderr), never to stdout. The
// SDK's Info chatter (sessions connecting) is logged at Debug.
func newSlogLogger(l hclog.Logger) *slog.Logger {
	return slog.New(&slogHandler{l: l})
}

type slogHandler struct {
	l     hclog.Logger
	attrs []any
}

func level(l slog.Level) hclog.Level {
	switch {
	case l >= slog.LevelError:
		return hclog.Error
	case l >= slog.LevelWarn:
		return hclog.Warn
	case l >= slog.LevelInfo:
		return hclog.Debug
	default:
		return hclog.Trace
	}
}

func (h *slogHandler) Enabled(_ context.Context, l slog.Level) bool {
	return h.l.GetLevel() <= level(l)
}

func (h *slogHandler) Handle(_ context.Context, r slog.Record) error {
	args := append([]any(nil), h.attrs...)
	r.Attrs(func(a slog.Attr) bool {
		args = append(args, a.Key, a.Value.Any())
		return true
	})
	h.l.Log(level(r.Level), r.Message, args...)
	return nil
}

func (h *slogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	n := &slogHandler{l: h.l, attrs: append([]any(nil), h.attrs...)}
	for _, a := range attrs {
		n.attrs = append(n.attrs, a.Key, a.Value.Any())
	}
	return n
}

func (h *slogHandler) WithGroup(name string) slog.Handler {
	return &slogHandler{l: h.l.Named(name), attrs: h.attrs}
}
