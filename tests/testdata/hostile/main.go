// Command hostile is a plugin that speaks the wire protocol directly, past
// the SDK's checks, and answers with results no honest plugin sends: the
// host must turn each into an error naming the plugin, never pass it on
// or drop the answer.
package main

import (
	"context"
	"sort"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/toolhost/toolhost/sdk/wire"
)

// results are the raw result bodies, by action.
var results = map[string][]byte{
	"not-json":  []byte(`{"rows": [1, 2`),
	"array":     []byte(`[1,2,3]`),
	"bad-utf8":  []byte("{\"text\":\"caf\xe9 \xff\xfe\"}"),
	"two-value": []byte(`{"a":1}{"b":2}`),
	"ok":        []byte(`{"ok":true}`),
}

type server struct {
	wire.UnimplementedPluginServer
}

func (server) Describe(context.Context, *wire.DescribeRequest) (*wire.DescribeResponse, error) {
	names := make([]string, 0, len(results))
	for n := range results {
		names = append(names, n)
	}
	sort.Strings(names)
	return &wire.DescribeResponse{Actions: names, Sdk: "hostile/1"}, nil
}

func (server) Call(in *wire.CallRequest, stream grpc.ServerStreamingServer[wire.CallEvent]) error {
	return stream.Send(&wire.CallEvent{Event: &wire.CallEvent_Result{Result: &wire.Result{Json: results[in.GetAction()]}}})
}

func main() {
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: wire.Handshake,
		Plugins:         wire.PluginMap(server{}),
		GRPCServer:      plugin.DefaultGRPCServer,
	})
}
