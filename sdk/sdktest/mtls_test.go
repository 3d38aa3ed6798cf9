package sdktest_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/tls"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"

	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/sdktest"
)

// peer is what the host saw of the plugin's end of the connection.
type peer struct {
	curve   string
	version uint16
}

// launch starts bin with sdk.ClientConfig, changed by adjust, and calls
// GetInfo. It returns what the host's TLS configuration saw of the plugin,
// when the host still uses its own.
func launch(t *testing.T, bin string, adjust func(*goplugin.ClientConfig)) *peer {
	t.Helper()
	cfg := sdk.ClientConfig(exec.Command(bin))
	cfg.Logger = hclog.NewNullLogger()
	seen := new(peer)
	if cfg.TLSConfig != nil {
		cfg.TLSConfig.VerifyConnection = func(cs tls.ConnectionState) error {
			if key, ok := cs.PeerCertificates[0].PublicKey.(*ecdsa.PublicKey); ok {
				seen.curve = key.Curve.Params().Name
			}
			seen.version = cs.Version
			return nil
		}
	}
	adjust(cfg)
	client := goplugin.NewClient(cfg)
	t.Cleanup(client.Kill)
	prov, err := sdk.Connect(client)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := prov.GetInfo(ctx); err != nil {
		t.Fatalf("GetInfo over the connection: %v", err)
	}
	return seen
}

// The host and the plugin speak TLS 1.3 with the P-256 identities the host
// made for the launch; either falls back to go-plugin's AutoMTLS (P-521) when
// the other side is older and does not know them.
func TestLaunchUsesTheHostsP256Identities(t *testing.T) {
	bin := sdktest.Build(t, "../examples/minimal", "minimal")

	got := launch(t, bin, func(*goplugin.ClientConfig) {})
	if got.curve != "P-256" || got.version != tls.VersionTLS13 {
		t.Errorf("the plugin presented a %q key over TLS %x; want the host-made P-256 identity over TLS 1.3", got.curve, got.version)
	}

	t.Run("plugin from an older SDK", func(t *testing.T) {
		// Such a plugin ignores KUBEOPERA_PLUGIN_TLS_FD: without it the plugin
		// answers AutoMTLS's way and go-plugin trusts the certificate it sends.
		got := launch(t, bin, func(cfg *goplugin.ClientConfig) {
			var env []string
			for _, kv := range cfg.Cmd.Env {
				if !strings.HasPrefix(kv, "KUBEOPERA_PLUGIN_TLS_FD=") {
					env = append(env, kv)
				}
			}
			cfg.Cmd.Env = env
		})
		if got.curve != "P-521" {
			t.Errorf("the plugin presented a %q key; want AutoMTLS's own P-521 certificate", got.curve)
		}
	})

	t.Run("host from an older SDK", func(t *testing.T) {
		launch(t, bin, func(cfg *goplugin.ClientConfig) {
			cfg.AutoMTLS, cfg.TLSConfig, cfg.Cmd.Env = true, nil, nil
		})
	})
}
