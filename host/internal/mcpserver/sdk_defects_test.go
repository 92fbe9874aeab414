package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/rpctest"
)

// These tests pin the go-sdk v1.8.0 behaviours this package works around,
// on the SDK's own stdio transport and server: when one of them starts
// failing, the SDK has changed and the workaround may be dropped.

// rawSDK runs a bare SDK server on the SDK's IOTransport, feeds it lines,
// and returns every line it wrote and the error Run returned.
func rawSDK(t *testing.T, lines ...string) ([]string, error) {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "raw", Version: "1"}, nil)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- srv.Run(context.Background(), &mcp.IOTransport{Reader: inR, Writer: outW})
		outW.Close()
	}()
	var got []string
	out := rpctest.New(t, inW, outR).Lines()
	for _, l := range lines {
		if _, err := io.WriteString(inW, l+"\n"); err != nil {
			break // the server stopped reading
		}
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal([]byte(l), &m) != nil || len(m.ID) == 0 {
			continue
		}
		line, ok := <-out
		if !ok {
			break
		}
		got = append(got, line)
	}
	inW.Close()
	for line := range out {
		got = append(got, line)
	}
	return got, <-done
}

func TestSDKDefectMalformedLineEndsTheServer(t *testing.T) {
	_, err := rawSDK(t,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`,
		`this is not json`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if err == nil || !strings.Contains(err.Error(), "invalid character") {
		t.Errorf("go-sdk's stdio server survived a malformed line (err %v): StdioTransport's -32700 wrapper may no longer be needed", err)
	}
}

func TestSDKDefectInitializeAfterDiscoverIsRefused(t *testing.T) {
	got, _ := rawSDK(t,
		fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+modernMeta+`}}`, "2026-07-28"),
		`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
	if len(got) < 2 || !strings.Contains(got[1], `duplicate \"initialize\" received`) {
		t.Errorf("go-sdk answered initialize after discover with %v: the middleware's initialize may no longer be needed", got)
	}
}

func TestSDKDefectOldModernVersionIsTreatedAsLegacy(t *testing.T) {
	got, _ := rawSDK(t,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`,
		fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+modernMeta+`}}`, "1900-01-01"))
	if len(got) < 2 || strings.Contains(got[1], "-32022") {
		t.Errorf("go-sdk answered a 1900-01-01 _meta version with %v: the transport's -32022 check may no longer be needed", got)
	}
}

func TestSDKDefectEndOfInputDropsCallsInFlight(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "raw", Version: "1"}, nil)
	started := make(chan struct{})
	srv.AddTool(&mcp.Tool{Name: "wait", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			close(started)
			<-ctx.Done()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- srv.Run(context.Background(), &mcp.IOTransport{Reader: inR, Writer: outW})
		outW.Close()
	}()
	out := rpctest.New(t, inW, outR).Lines()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`+"\n")
	<-out
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{}}}`+"\n")
	<-started
	inW.Close() // stdin closes with the call in flight: the SDK cancels it
	var rest []string
	for line := range out {
		rest = append(rest, line)
	}
	<-done
	if len(rest) != 0 {
		t.Errorf("go-sdk answered the call in flight at end of input (%v): StdioTransport's drain may no longer be needed", rest)
	}
}

func TestSDKDefectCallBeforeInitializeHasCodeZero(t *testing.T) {
	got, _ := rawSDK(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if len(got) < 1 || !strings.Contains(got[0], `"code":0`) || !strings.Contains(got[0], "invalid during session initialization") {
		t.Errorf("go-sdk answered a call before initialize with %v: StdioTransport's codedError may no longer be needed (it matches this message)", got)
	}
}

func TestSDKDefectNumberIDsAreRewritten(t *testing.T) {
	got, _ := rawSDK(t,
		`{"jsonrpc":"2.0","id":1.5,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`,
		`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`)
	if len(got) < 2 || strings.Contains(got[0], `"id":1.5`) || strings.Contains(got[1], `"id":9007199254740993`) {
		t.Errorf("go-sdk kept number ids exactly (%v): the transports' id mapping may no longer be needed", got)
	}
}
