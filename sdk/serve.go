package sdk

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"regexp"
	"runtime/debug"
	"strconv"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
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
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			return grpc.NewServer(append(opts, grpc.ChainUnaryInterceptor(recoverPanics))...)
		},
		TLSProvider: pluginTLS,
		Logger:      logger,
	})
}

// recoverPanics turns a panic in a call into an internal error for that
// call, with the stack in the plugin's log, so one bad request does not take
// down every other call in flight. The host counts such failures and backs
// off a plugin that keeps failing.
func recoverPanics(ctx context.Context, req any, info *grpc.UnaryServerInfo, next grpc.UnaryHandler) (resp any, err error) {
	defer func() {
		if r := recover(); r != nil {
			method := path.Base(info.FullMethod)
			logger.Error("panic in "+method, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			err = withOrigin(status.New(codes.Internal,
				fmt.Sprintf("plugin panicked in %s: %v (the stack is in the plugin's log)", method, r)), nil)
		}
	}()
	return next(ctx, req)
}

// ClientConfig returns the go-plugin client configuration a host uses to
// launch the plugin binary cmd: the KubeOpera handshake, the protocol
// versions this SDK speaks, gRPC only, and mutual TLS with identities made
// for this launch (see envPluginTLS). Set cmd.Env before calling it: it adds
// the plugin's identity there. Callers add SecureConfig, Logger and timeouts.
func ClientConfig(cmd *exec.Cmd) *plugin.ClientConfig {
	cfg := &plugin.ClientConfig{
		HandshakeConfig: Handshake,
		VersionedPlugins: map[int]plugin.PluginSet{
			ProtocolVersion: {pluginName: &providerPlugin{}},
		},
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         true,
	}
	hostTLS(cfg)
	return cfg
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
