package sdk

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
)

// Handshake is the go-plugin handshake every KubeOpera plugin and host share.
// The cookie only keeps a user from running a plugin binary by hand by
// mistake; it is not a security measure (the host verifies checksums and the
// connection uses mutual TLS).
var Handshake = plugin.HandshakeConfig{
	MagicCookieKey:   "KUBEOPERA_PROVIDER_PLUGIN",
	MagicCookieValue: "f3c1d0e4-kubeopera-provider-7b2a",
}

// pluginName is the key of the provider plugin in a go-plugin PluginSet.
const pluginName = "provider"

// logger writes hclog JSON to stderr, which the host parses and forwards with
// the plugin's name. Plugins must never write to stdout.
var logger = hclog.New(&hclog.LoggerOptions{
	Name:       "provider",
	Level:      hclog.LevelFromString(envOr("KUBEOPERA_LOG_LEVEL", "info")),
	Output:     os.Stderr,
	JSONFormat: true,
})

// Logger returns the plugin's structured logger. Never log credentials or
// kubeconfigs.
func Logger() hclog.Logger { return logger }

// Serve runs p as a plugin until the host stops it. It is all a plugin's main
// function needs to call.
func Serve(p Provider) {
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: Handshake,
		VersionedPlugins: map[int]plugin.PluginSet{
			ProtocolVersion: {pluginName: &providerPlugin{impl: p}},
		},
		GRPCServer: plugin.DefaultGRPCServer,
		Logger:     logger,
	})
}

// ClientConfig returns the go-plugin client configuration a host uses to
// launch the plugin binary cmd: the KubeOpera handshake, the protocol
// versions this SDK speaks, gRPC only, and automatic mutual TLS. Callers add
// SecureConfig, Logger and timeouts.
func ClientConfig(cmd *exec.Cmd) *plugin.ClientConfig {
	return &plugin.ClientConfig{
		HandshakeConfig: Handshake,
		VersionedPlugins: map[int]plugin.PluginSet{
			ProtocolVersion: {pluginName: &providerPlugin{}},
		},
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         true,
	}
}

// Connect starts the plugin process of c (when not started yet), completes
// the handshake and returns its Provider. A protocol mismatch is reported as
// a *ProtocolMismatchError.
func Connect(c *plugin.Client) (Provider, error) {
	rpc, err := c.Client()
	if err != nil {
		if m := mismatchRE.FindStringSubmatch(err.Error()); m != nil {
			v, _ := strconv.Atoi(m[1])
			return nil, &ProtocolMismatchError{Plugin: v, Host: ProtocolVersion}
		}
		return nil, err
	}
	raw, err := rpc.Dispense(pluginName)
	if err != nil {
		return nil, fmt.Errorf("dispense provider: %w", err)
	}
	return raw.(Provider), nil
}

// go-plugin reports a version mismatch only as text.
var mismatchRE = regexp.MustCompile(`incompatible API version with plugin\. Plugin version: (\d+)`)

// ProtocolMismatchError says a plugin and the host share no protocol version.
type ProtocolMismatchError struct {
	Plugin, Host int
}

func (e *ProtocolMismatchError) Error() string {
	if e.Plugin > e.Host {
		return fmt.Sprintf("protocol mismatch: plugin speaks kubeopera.provider.v%d, this host speaks v%d; "+
			"upgrade KubeOpera to a release that supports v%d, or install a plugin built with an SDK for v%d",
			e.Plugin, e.Host, e.Plugin, e.Host)
	}
	return fmt.Sprintf("protocol mismatch: plugin speaks kubeopera.provider.v%d, this host speaks v%d; "+
		"rebuild the plugin against KubeOpera SDK %s (protocol v%d)", e.Plugin, e.Host, Version, e.Host)
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
