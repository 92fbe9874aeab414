package supervisor

import "google.golang.org/grpc"

// pluginWindow is the gRPC flow-control window, per stream and per
// connection, of the host's connection to a plugin. A window set at dial
// turns off gRPC's bandwidth-delay estimation, which otherwise sends a
// PING (and reads its ACK) after nearly every call's answer: on a local
// socket carrying small answers that is pure cost on every warm call. The
// window holds the largest answer the host accepts many times over.
const pluginWindow = 1 << 20

// pluginDialOptions are the gRPC options of the host's connection to a
// plugin, added to go-plugin's own (its mutual TLS; compression stays off,
// gRPC's default).
func pluginDialOptions() []grpc.DialOption {
	return []grpc.DialOption{grpc.WithInitialWindowSize(pluginWindow), grpc.WithInitialConnWindowSize(pluginWindow)}
}
