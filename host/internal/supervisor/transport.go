package supervisor

import (
	"context"
	"errors"
	"net"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/toolhost/toolhost/host/internal/rawio"
)

// pluginWindow is the gRPC flow-control window, per stream and per
// connection, of the host's connection to a plugin. A window set at dial
// turns off gRPC's bandwidth-delay estimation, which otherwise sends a
// PING (and reads its ACK) after nearly every call's answer: on a local
// socket carrying small answers that is pure cost on every warm call.
// 1 MiB holds the largest answer the host
// accepts (twice HOST_MAX_RESULT_BYTES plus 64 KiB by default) many times.
const pluginWindow = 1 << 20

// pluginDialOptions are the gRPC options of the host's connection to the
// plugin cfg starts (compression stays off, gRPC's default).
func pluginDialOptions(cfg *plugin.ClientConfig) []grpc.DialOption {
	return []grpc.DialOption{grpc.WithInitialWindowSize(pluginWindow), grpc.WithInitialConnWindowSize(pluginWindow),
		grpc.WithTransportCredentials(socketCredentials{cfg})}
}

// socketCredentials are the credentials go-plugin gives the connection
// (mutual TLS with the certificate it made for this launch, AutoMTLS),
// over the socket read and written by rawio: the host waits on its
// plugins thousands of times a second with calls in flight, and each read
// or write through package net would wake the Go runtime's monitor thread
// (rawio's package comment). go-plugin fills cfg.TLSConfig when the plugin
// starts, before it dials, so the TLS credentials are made at the
// handshake.
type socketCredentials struct{ cfg *plugin.ClientConfig }

// creds are the credentials go-plugin itself would use.
func (s socketCredentials) creds() credentials.TransportCredentials {
	if s.cfg.TLSConfig == nil {
		return insecure.NewCredentials()
	}
	return credentials.NewTLS(s.cfg.TLSConfig)
}

// ClientHandshake implements credentials.TransportCredentials.
func (s socketCredentials) ClientHandshake(ctx context.Context, authority string, c net.Conn) (net.Conn, credentials.AuthInfo, error) {
	return s.creds().ClientHandshake(ctx, authority, rawio.Conn(c))
}

// ServerHandshake implements credentials.TransportCredentials: the host
// serves no plugin connection.
func (s socketCredentials) ServerHandshake(net.Conn) (net.Conn, credentials.AuthInfo, error) {
	return nil, nil, errors.New("supervisor: plugin credentials are for the client side only")
}

// Info implements credentials.TransportCredentials.
func (s socketCredentials) Info() credentials.ProtocolInfo { return s.creds().Info() }

// Clone implements credentials.TransportCredentials.
func (s socketCredentials) Clone() credentials.TransportCredentials { return s }

// OverrideServerName implements credentials.TransportCredentials (deprecated
// in gRPC, and never called by it).
func (s socketCredentials) OverrideServerName(string) error { return nil }
