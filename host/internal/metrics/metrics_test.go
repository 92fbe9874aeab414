package metrics

import (
	"context"
	"encoding/json"
	"fmt"
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

// xlsxOnly knows the tool xlsx with the actions read and fail.
func xlsxOnly(tool, action string) (bool, bool) {
	return tool == "xlsx", tool == "xlsx" && (action == "read" || action == "fail")
}

func TestMeasured(t *testing.T) {
	m := New(xlsxOnly)
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

// TestLabelsOnlyFromRegistry: tool and action names the registry does not
// have are counted under "unknown", so a client cannot grow the metrics
// (and the host's memory) by sending made-up names.
func TestLabelsOnlyFromRegistry(t *testing.T) {
	m := New(xlsxOnly)
	r := m.Measured(&fakeRunner{m: m})
	long := strings.Repeat("a", 2<<10)
	for i := range 300 {
		r.Run(context.Background(), dispatch.Call{Name: fmt.Sprintf("made-up-%d", i), Action: long}, nil)
		r.Run(context.Background(), dispatch.Call{Name: "xlsx", Action: fmt.Sprintf("%s-%d", long, i)}, nil)
	}
	w := httptest.NewRecorder()
	m.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	body := w.Body.String()
	if strings.Contains(body, "made-up") || strings.Contains(body, "aaaaaaaa") {
		t.Fatalf("a client-sent name became a label (%d bytes of metrics)", len(body))
	}
	for _, want := range []string{
		`toolhost_calls_total{action="unknown",code="ok",tool="unknown"} 300`,
		`toolhost_calls_total{action="unknown",code="ok",tool="xlsx"} 300`,
	} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("want %q in the metrics", want)
		}
	}
	if len(body) > 64<<10 {
		t.Errorf("the metrics are %d bytes after 600 calls with made-up names, want a few KiB", len(body))
	}
}
