package plugin_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

var rawBuild struct {
	once sync.Once
	bin  string
	err  error
}

// rawGRPC is the baseline of the plugin-call benchmarks: a plain gRPC
// health server in a separate process (testdata/rawgrpc), reached over a
// unix socket with mutual TLS set up as the SDK sets up a plugin's
// (self-signed P-256 certificates, client certificate required). What the host adds on top is the go-plugin and SDK layers.
func rawGRPC(b *testing.B) healthpb.HealthClient {
	rawBuild.once.Do(func() {
		rawBuild.bin = filepath.Join(built.dir, "rawgrpc")
		rawBuild.err = goBuild(rawBuild.bin, "./testdata/rawgrpc", "")
	})
	if rawBuild.err != nil {
		b.Fatal(rawBuild.err)
	}
	serverCert, serverKey := selfSigned(b)
	clientCert, clientKey := selfSigned(b)
	sock := filepath.Join(b.TempDir(), "raw.sock")
	cmd := exec.Command(rawBuild.bin)
	cmd.Env = []string{"RAWGRPC_SOCKET=" + sock, "RAWGRPC_SERVER_CERT=" + string(serverCert),
		"RAWGRPC_SERVER_KEY=" + string(serverKey), "RAWGRPC_CLIENT_CERT=" + string(clientCert)}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
		b.Fatalf("rawgrpc did not start: %q %v %s", line, err, stderr.String())
	}
	pair, err := tls.X509KeyPair(clientCert, clientKey)
	if err != nil {
		b.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(serverCert)
	tlsCfg := &tls.Config{Certificates: []tls.Certificate{pair}, RootCAs: roots, MinVersion: tls.VersionTLS12, ServerName: "localhost"}
	conn, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(credentials.NewTLS(tlsCfg)))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() })
	client := healthpb.NewHealthClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := client.Check(ctx, &healthpb.HealthCheckRequest{}, grpc.WaitForReady(true)); err != nil {
		b.Fatalf("rawgrpc: first call: %v", err)
	}
	return client
}

// selfSigned returns a certificate and key made as the SDK makes the
// identities of a launch (P-256, self-signed for localhost).
func selfSigned(b *testing.B) (certPEM, keyPEM []byte) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	tmpl := &x509.Certificate{Subject: pkix.Name{CommonName: "localhost"}, DNSNames: []string{"localhost"},
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment | x509.KeyUsageKeyAgreement | x509.KeyUsageCertSign,
		BasicConstraintsValid: true, IsCA: true, SerialNumber: big.NewInt(time.Now().UnixNano()),
		NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		b.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		b.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
}
