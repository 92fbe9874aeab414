// Package wire is the toolhost plugin protocol: plugin.proto and its
// generated code, the go-plugin handshake and plugin map shared by the host
// and the SDK.
package wire

import (
	"context"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
)

//go:generate protoc --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative plugin.proto

// PluginName is the key of the plugin in go-plugin's plugin map.
const PluginName = "tool"

// NestedCallKey is the gRPC metadata key of an agent's nested call (Host
// service) naming, in decimal, the host broker id of the agent's call it is
// made within: the Host service the host serves for one call refuses a
// nested call named for another call, and a confirmed one named for none,
// so a confirmation belongs to the call it was given to.
const NestedCallKey = "toolhost-nested-call"

// Handshake is the go-plugin handshake: a plugin started without this cookie
// in its environment runs as a command-line tool instead.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  1,
	MagicCookieKey:   "TOOLHOST_PLUGIN",
	MagicCookieValue: "6f1c2d0e-toolhost-plugin-v1",
}

// GRPCPlugin adapts a PluginServer to go-plugin. The plugin side sets Impl;
// the host side leaves it nil and gets a *Client from GRPCClient.
type GRPCPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	// Impl serves the Plugin service (plugin side only).
	Impl PluginServer
}

// GRPCServer registers Impl on the plugin's gRPC server.
func (p *GRPCPlugin) GRPCServer(broker *plugin.GRPCBroker, s *grpc.Server) error {
	if b, ok := p.Impl.(interface{ SetBroker(*plugin.GRPCBroker) }); ok {
		b.SetBroker(broker)
	}
	RegisterPluginServer(s, p.Impl)
	return nil
}

// GRPCClient returns the host's view of the plugin.
func (p *GRPCPlugin) GRPCClient(_ context.Context, broker *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &Client{PluginClient: NewPluginClient(c), Broker: broker}, nil
}

// Client is the host's handle on one running plugin.
type Client struct {
	PluginClient
	// Broker lets the host serve the Host service to agents.
	Broker *plugin.GRPCBroker
}

// PluginMap returns the go-plugin plugin map, with impl on the plugin side
// and nil on the host side.
func PluginMap(impl PluginServer) map[string]plugin.Plugin {
	return map[string]plugin.Plugin{PluginName: &GRPCPlugin{Impl: impl}}
}
