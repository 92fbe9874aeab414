// Package metrics is the host's Prometheus metrics, served on a listener of
// their own (`host serve --metrics ADDR`, path /metrics) so that they are
// never exposed where the MCP endpoint is: calls by tool, action and
// outcome code, call latency, calls in flight, plugin launches and
// crashes, and HTTP answers by status.
package metrics

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/toolhost/toolhost/host/internal/dispatch"
	"github.com/toolhost/toolhost/sdk/wire"
)

// OK is the code label of a call that succeeded.
const OK = "ok"

// Unknown is the tool or action label of a call naming a tool or action
// the registry does not have: labels come only from the registry, never
// from what a client sent.
const Unknown = "unknown"

// Names reports whether the registry has the tool (or agent) and, when it
// does, the action. nil knows no name.
type Names func(tool, action string) (knownTool, knownAction bool)

// Metrics holds the host's collectors in a registry of its own (no global
// state: each Metrics starts from zero).
type Metrics struct {
	names    Names
	reg      *prometheus.Registry
	calls    *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	inFlight prometheus.Gauge
	launches *prometheus.CounterVec
	crashes  *prometheus.CounterVec
	http     *prometheus.CounterVec
}

// New builds the collectors, with the Go runtime's and the process's;
// names says which tool and action names may be labels.
func New(names Names) *Metrics {
	m := &Metrics{
		names: names,
		reg:   prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "toolhost_calls_total",
			Help: "Tool and agent calls answered, by tool, action and outcome code (ok, or the error code)."},
			[]string{"tool", "action", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "toolhost_call_duration_seconds",
			Help:    "Time from a call's arrival to its answer, by tool and action.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}},
			[]string{"tool", "action"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{Name: "toolhost_calls_in_flight",
			Help: "Tool and agent calls running now."}),
		launches: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "toolhost_plugin_launches_total",
			Help: "Plugin processes started, by tool."}, []string{"tool"}),
		crashes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "toolhost_plugin_crashes_total",
			Help: "Plugin processes that died under the host, by tool."}, []string{"tool"}),
		http: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "toolhost_http_requests_total",
			Help: "HTTP requests answered, by status (429: rate limited)."}, []string{"status"}),
	}
	m.reg.MustRegister(m.calls, m.latency, m.inFlight, m.launches, m.crashes, m.http,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Launched counts one plugin process started.
func (m *Metrics) Launched(tool string) { m.launches.WithLabelValues(tool).Inc() }

// Crashed counts one plugin process death.
func (m *Metrics) Crashed(tool string) { m.crashes.WithLabelValues(tool).Inc() }

// HTTPStatus counts one HTTP answer.
func (m *Metrics) HTTPStatus(status int) { m.http.WithLabelValues(strconv.Itoa(status)).Inc() }

// Measured wraps next so that every call it runs is counted, timed and
// seen in flight.
func (m *Metrics) Measured(next dispatch.CallRunner) dispatch.CallRunner {
	return measured{m: m, next: next}
}

type measured struct {
	m    *Metrics
	next dispatch.CallRunner
}

func (r measured) Run(ctx context.Context, call dispatch.Call, onProgress func(*wire.Progress)) dispatch.Outcome {
	r.m.inFlight.Inc()
	defer r.m.inFlight.Dec()
	start := time.Now()
	out := r.next.Run(ctx, call, onProgress)
	code := string(out.Code())
	if code == "" {
		code = OK
	}
	tool, action := r.m.labels(call)
	r.m.calls.WithLabelValues(tool, action, code).Inc()
	r.m.latency.WithLabelValues(tool, action).Observe(time.Since(start).Seconds())
	return out
}

// labels are the tool and action labels of call: its names when the
// registry has them, else Unknown.
func (m *Metrics) labels(call dispatch.Call) (tool, action string) {
	knownTool, knownAction := false, false
	if m.names != nil {
		knownTool, knownAction = m.names(call.Name, call.Action)
	}
	tool, action = Unknown, Unknown
	if knownTool {
		tool = call.Name
		if knownAction || call.Action == "" {
			action = call.Action
		}
	}
	return tool, action
}
