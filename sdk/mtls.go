package sdk

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/hashicorp/go-plugin"
)

// The connection between host and plugin is mutual TLS with two throwaway
// P-256 identities the host makes for each launch. go-plugin's own AutoMTLS
// makes P-521 keys on both sides; in a freshly started plugin those cost
// about 20ms of every launch (key generation, and the handshake's
// signatures and verifications at about 2ms each), against well under a
// millisecond for P-256.
//
// The host hands the plugin its certificate and key through a pipe the
// plugin inherits (its number in envPluginTLSFD), never in the environment,
// which /proc keeps for the process's life, and its own certificate in
// go-plugin's PLUGIN_CLIENT_CERT. The plugin reads the pipe and closes it as
// Serve starts, so no child it runs (terraform, its providers) inherits it.
// Either side falls back to AutoMTLS when the other does not know this: a
// plugin built with an older SDK ignores the pipe and answers AutoMTLS's way
// (go-plugin then trusts the certificate it sends back), and under an older
// host envPluginTLSFD is absent.
const envPluginTLSFD = "KUBEOPERA_PLUGIN_TLS_FD"

// identity is one throwaway TLS identity: a self-signed P-256 certificate
// for "localhost", valid for client and server authentication.
type identity struct {
	certPEM, keyPEM []byte
	cert            tls.Certificate
	leaf            *x509.Certificate
}

func newIdentity() (identity, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return identity{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return identity{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		Subject:               pkix.Name{CommonName: "localhost", Organization: []string{"KubeOpera plugin"}},
		DNSNames:              []string{"localhost"},
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true, // it is its own root: each side pins the other's
		SerialNumber:          serial,
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour), // lives as long as the plugin process
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return identity{}, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return identity{}, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return identity{}, err
	}
	return identity{
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
		cert:    tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf},
		leaf:    leaf,
	}, nil
}

// hostTLS makes the two identities of one launch, sets cfg's TLS
// configuration to present the host's and trust only the plugin's, and
// passes the plugin its identity. It reports false, leaving cfg on
// AutoMTLS, where that cannot be done. The pipe's read end is in
// cfg.Cmd.ExtraFiles: a host may close it once the process has started
// (Connect has returned); otherwise it is closed when garbage collected.
func hostTLS(cfg *plugin.ClientConfig) bool {
	if runtime.GOOS == "windows" { // no inherited descriptors there
		return false
	}
	host, err := newIdentity()
	if err != nil {
		return false
	}
	plug, err := newIdentity()
	if err != nil {
		return false
	}
	r, w, err := os.Pipe()
	if err != nil {
		return false
	}
	_, err = w.Write(append(append([]byte{}, plug.certPEM...), plug.keyPEM...)) // ~1 KB: within the pipe's buffer
	if cerr := w.Close(); err != nil || cerr != nil {
		r.Close()
		return false
	}
	cmd := cfg.Cmd
	cmd.ExtraFiles = append(cmd.ExtraFiles, r)
	fd := 2 + len(cmd.ExtraFiles) // ExtraFiles[i] is descriptor 3+i in the child
	cmd.Env = append(cmd.Env, envPluginTLSFD+"="+strconv.Itoa(fd), "PLUGIN_CLIENT_CERT="+string(host.certPEM))
	roots := x509.NewCertPool()
	roots.AddCert(plug.leaf)
	cfg.AutoMTLS = false
	cfg.TLSConfig = &tls.Config{
		Certificates: []tls.Certificate{host.cert},
		RootCAs:      roots,
		ServerName:   "localhost",
		MinVersion:   tls.VersionTLS12, // a plugin on AutoMTLS (an older SDK) allows 1.2
	}
	return true
}

// pluginTLS is the plugin's go-plugin TLSProvider: the server configuration
// from the identity the host made, requiring the host's certificate. Without
// envPluginTLSFD it returns nil, and go-plugin's AutoMTLS takes over.
func pluginTLS() (*tls.Config, error) {
	v, ok := os.LookupEnv(envPluginTLSFD)
	if !ok {
		return nil, nil
	}
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return nil, fmt.Errorf("%s=%q: want the number of an inherited descriptor", envPluginTLSFD, v)
	}
	_ = os.Unsetenv(envPluginTLSFD)
	f := os.NewFile(uintptr(fd), "kubeopera-plugin-tls")
	bundle, err := io.ReadAll(io.LimitReader(f, 64<<10))
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("read the TLS identity from the host (descriptor %d): %w", fd, err)
	}
	cert, err := tls.X509KeyPair(bundle, bundle)
	if err != nil {
		return nil, fmt.Errorf("the TLS identity from the host (descriptor %d): %w", fd, err)
	}
	hosts := x509.NewCertPool()
	if !hosts.AppendCertsFromPEM([]byte(os.Getenv("PLUGIN_CLIENT_CERT"))) {
		return nil, errors.New("the host passed " + envPluginTLSFD + " without its own certificate in PLUGIN_CLIENT_CERT")
	}
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    hosts,
		MinVersion:   tls.VersionTLS13,
	}, nil
}
