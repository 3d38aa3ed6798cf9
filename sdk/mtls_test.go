//go:build unix

package sdk

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/hashicorp/go-plugin"
)

// asPlugin puts into this process what a plugin launched with cfg finds:
// its environment and, at a descriptor of its own, the pipe's read end.
// It returns that descriptor.
func asPlugin(t *testing.T, cfg *plugin.ClientConfig) int {
	t.Helper()
	r := cfg.Cmd.ExtraFiles[len(cfg.Cmd.ExtraFiles)-1]
	fd, err := syscall.Dup(int(r.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	for _, kv := range cfg.Cmd.Env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	t.Setenv(envPluginTLSFD, strconv.Itoa(fd))
	return fd
}

// The plugin takes the identity the host made from the pipe, closes it so
// no child inherits it, and each side trusts exactly the other's
// certificate.
func TestPluginTLSTakesTheHostsIdentityAndClosesThePipe(t *testing.T) {
	cfg := ClientConfig(exec.Command("plugin"))
	for _, kv := range cfg.Cmd.Env {
		if strings.Contains(kv, "PRIVATE KEY") {
			t.Fatalf("a private key is in the plugin's environment: %.40s…", kv)
		}
	}
	fd := asPlugin(t, cfg)
	srv, err := pluginTLS()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := unixFcntl(fd); err != syscall.EBADF {
		t.Errorf("descriptor %d is still open after pluginTLS (fcntl: %v); a child would inherit it", fd, err)
	}
	if _, ok := os.LookupEnv(envPluginTLSFD); ok {
		t.Errorf("%s is still in the plugin's environment", envPluginTLSFD)
	}
	if srv.ClientAuth != tls.RequireAndVerifyClientCert || len(srv.Certificates) != 1 {
		t.Fatalf("server config: client auth %v, %d certificates; want the host's certificate required", srv.ClientAuth, len(srv.Certificates))
	}
	host := cfg.TLSConfig.Certificates[0].Leaf
	if _, err := host.Verify(x509.VerifyOptions{Roots: srv.ClientCAs, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("the plugin does not trust the host's certificate: %v", err)
	}
	plug := srv.Certificates[0].Leaf
	if _, err := plug.Verify(x509.VerifyOptions{Roots: cfg.TLSConfig.RootCAs, DNSName: "localhost"}); err != nil {
		t.Errorf("the host does not trust the plugin's certificate: %v", err)
	}
	other := ClientConfig(exec.Command("plugin")).TLSConfig.Certificates[0].Leaf
	if _, err := other.Verify(x509.VerifyOptions{Roots: srv.ClientCAs, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err == nil {
		t.Errorf("the plugin trusts another launch's host certificate")
	}
}

func TestPluginTLSWithoutTheHostsCertificateSaysSo(t *testing.T) {
	asPlugin(t, ClientConfig(exec.Command("plugin")))
	t.Setenv("PLUGIN_CLIENT_CERT", "")
	if _, err := pluginTLS(); err == nil || !strings.Contains(err.Error(), "PLUGIN_CLIENT_CERT") {
		t.Errorf("pluginTLS = %v; want an error naming PLUGIN_CLIENT_CERT", err)
	}
}

func TestPluginTLSUnderAnAutoMTLSHostIsNil(t *testing.T) {
	t.Setenv(envPluginTLSFD, "")
	os.Unsetenv(envPluginTLSFD)
	if srv, err := pluginTLS(); srv != nil || err != nil {
		t.Errorf("pluginTLS = %v, %v; want nil, nil so go-plugin's AutoMTLS takes over", srv, err)
	}
}

func unixFcntl(fd int) (uintptr, error) {
	r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
	if errno != 0 {
		return r, errno
	}
	return r, nil
}
