package testplugin

import (
	"os/exec"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/toolhost/toolhost/sdk/wire"
)

// Raw starts the plugin binary bin under a bare go-plugin client, with no
// host between, for the benchmarks' raw baseline. It returns the gRPC
// client, the plugin's process id, and the function that kills the plugin
// (also called when tb ends). A plugin that does not start fails tb.
func Raw(tb testing.TB, bin string) (c *wire.Client, pid int, kill func()) {
	tb.Helper()
	cmd := exec.Command(bin)
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  wire.Handshake,
		Plugins:          wire.PluginMap(nil),
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		Cmd:              cmd,
		AutoMTLS:         true,
		Logger:           hclog.NewNullLogger(),
	})
	tb.Cleanup(client.Kill)
	rpc, err := client.Client()
	if err != nil {
		tb.Fatalf("start %s: %v", bin, err)
	}
	raw, err := rpc.Dispense(wire.PluginName)
	if err != nil {
		tb.Fatalf("dispense %s: %v", bin, err)
	}
	return raw.(*wire.Client), cmd.Process.Pid, client.Kill
}
