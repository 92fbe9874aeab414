package metrics

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/host/internal/dispatch"
	"github.com/toolhost/toolhost/sdk/wire"
)

// fakeRunner answers each call with the outcome named by its action, and
// reports what the in-flight gauge said while it ran.
type fakeRunner struct {
	m        *Metrics
	inFlight []string
}

func (f *fakeRunner) Run(_ context.Context, c dispatch.Call, _ func(*wire.Progress)) dispatch.Outcome {
	f.inFlight = append(f.inFlight, scrapeLine(f.m, "toolhost_calls_in_flight "))
	if c.Action == "fail" {
		return dispatch.Fail(&wire.Error{Code: wire.CodePluginCrashed, Message: "x"})
	}
	return dispatch.Outcome{JSON: json.RawMessage(`{}`)}
}

// scrapeLine is the first line of the /metrics text starting with prefix.
func scrapeLine(m *Metrics, prefix string) string {
	w := httptest.NewRecorder()
	m.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(w.Body)
	for _, l := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

func TestMeasured(t *testing.T) {
	m := New()
	f := &fakeRunner{m: m}
	r := m.Measured(f)
	for _, action := range []string{"read", "read", "fail"} {
		r.Run(context.Background(), dispatch.Call{Name: "xlsx", Action: action}, nil)
	}
	m.Launched("xlsx")
	m.Crashed("xlsx")
	m.HTTPStatus(429)
	for _, want := range []string{
		`toolhost_calls_total{action="read",code="ok",tool="xlsx"} 2`,
		`toolhost_calls_total{action="fail",code="plugin_crashed",tool="xlsx"} 1`,
		`toolhost_call_duration_seconds_count{action="read",tool="xlsx"} 2`,
		`toolhost_calls_in_flight 0`,
		`toolhost_plugin_launches_total{tool="xlsx"} 1`,
		`toolhost_plugin_crashes_total{tool="xlsx"} 1`,
		`toolhost_http_requests_total{status="429"} 1`,
	} {
		prefix := want[:strings.LastIndex(want, " ")+1]
		if got := scrapeLine(m, prefix); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	for i, g := range f.inFlight {
		if g != "toolhost_calls_in_flight 1" {
			t.Errorf("call %d saw %q while running, want in flight 1", i, g)
		}
	}
}
