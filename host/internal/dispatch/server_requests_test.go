package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/toolhost/toolhost/host/internal/audit"
	"github.com/toolhost/toolhost/sdk/wire"
)

// fakeClient answers a hosted server's requests as an MCP client would.
type fakeClient struct {
	elicit, sample string
	err            error
}

func (c fakeClient) Elicit(context.Context, json.RawMessage) (json.RawMessage, error) {
	return json.RawMessage(c.elicit), c.err
}

func (c fakeClient) Sample(context.Context, json.RawMessage) (json.RawMessage, error) {
	return json.RawMessage(c.sample), c.err
}

// TestServerRequestsAudited: a hosted MCP server's elicitation and sampling
// go to the client of the call the plugin runs, and come back; with no
// client, or one that cannot serve them, they are refused with the reason
// as a FailedPrecondition. Each is one audit entry naming the call, the
// request and its outcome — the person's own answer for an elicitation.
func TestServerRequestsAudited(t *testing.T) {
	tests := []struct {
		name        string
		client      Client
		sample      bool
		wantResult  string
		wantReason  string
		wantOutcome string
	}{
		{"answered", fakeClient{elicit: `{"action":"decline"}`}, false, `{"action":"decline"}`, "", "decline"},
		{"sampled", fakeClient{sample: `{"model":"m"}`}, true, `{"model":"m"}`, "", "ok"},
		{"client cannot", fakeClient{err: errors.New("the MCP client (x) did not declare the elicitation capability")}, false, "", "did not declare the elicitation capability", "refused"},
		{"no client", nil, true, "", "did not come from an MCP client that takes requests", "refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []audit.Entry
			d := &Dispatcher{Audit: func(e audit.Entry) { got = append(got, e) }}
			ctx := withCall(context.Background(), Call{Client: tt.client, Subject: "ada"}, "trigger")
			h := d.HostServer(ctx, "everything", &wire.Caller{ClientName: "go-e2e"}).(*hostServer)
			in := &wire.ClientRequest{ParamsJson: []byte(`{}`)}
			var res *wire.ClientResponse
			var err error
			method := MethodElicit
			if tt.sample {
				method = MethodSample
				res, err = h.Sample(ctx, in)
			} else {
				res, err = h.Elicit(ctx, in)
			}
			if tt.wantReason == "" {
				if err != nil || string(res.GetResultJson()) != tt.wantResult {
					t.Fatalf("got %s, %v; want %s", res.GetResultJson(), err, tt.wantResult)
				}
			} else if st, _ := status.FromError(err); st.Code() != codes.FailedPrecondition || !strings.Contains(st.Message(), tt.wantReason) {
				t.Fatalf("got %v, want FailedPrecondition saying %q", err, tt.wantReason)
			}
			if len(got) != 1 {
				t.Fatalf("audited %d entries, want 1", len(got))
			}
			e := got[0]
			if e.Tool != "everything" || e.Action != "trigger" || e.Request != method || e.Outcome != tt.wantOutcome ||
				e.Client != "go-e2e" || e.Subject != "ada" || !strings.Contains(e.Reason, tt.wantReason) {
				t.Errorf("audit entry %+v, want everything trigger %s %s", e, method, tt.wantOutcome)
			}
		})
	}
}
