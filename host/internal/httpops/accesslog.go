package httpops

import (
	"net/http"
	"time"

	"github.com/hashicorp/go-hclog"
)

// accessLog logs one structured line per request to opts.AccessLog (on
// stderr, with the host's other logs: JSON under HOST_LOG_FORMAT=json) and
// tells opts.Observe its status.
func accessLog(next http.Handler, opts Options) http.Handler {
	log := opts.AccessLog
	if log == nil {
		log = hclog.NewNullLogger()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		if opts.Observe != nil {
			opts.Observe(rec.status)
		}
		log.Info("request", "method", r.Method, "path", r.URL.Path, "status", rec.status, "bytes", rec.bytes,
			"duration_ms", float64(time.Since(start).Microseconds())/1000, "client", opts.Proxies.ClientAddr(r),
			"rpc", r.Header.Get("Mcp-Method"), "user_agent", r.UserAgent())
	})
}

// statusWriter records the status and size of an answer.
type statusWriter struct {
	http.ResponseWriter
	status      int
	bytes       int64
	wroteHeader bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wroteHeader {
		w.status, w.wroteHeader = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	w.wroteHeader = true
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

// Flush passes streaming answers (SSE) through at once.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
