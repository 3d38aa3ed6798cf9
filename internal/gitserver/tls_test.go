package gitserver

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net"
	"net/http"
	"testing"
)

// With TLSAddresses the certificate also names those addresses, and a
// client that trusts CACert alone verifies the server at 127.0.0.1.
func TestTLSCertificateNamesTheRelayAddresses(t *testing.T) {
	relay := net.IPv4(10, 213, 7, 2)
	s := Start(t, Options{TLS: true, TLSAddresses: []net.IP{relay}})
	block, _ := pem.Decode(s.CACert())
	if block == nil {
		t.Fatal("CACert is not PEM")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if err := cert.VerifyHostname(relay.String()); err != nil {
		t.Errorf("the certificate does not name the relay address: %v", err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	resp, err := c.Get(s.RepoURL("none") + "/info/refs?service=git-upload-pack")
	if err != nil {
		t.Fatalf("HTTPS with CACert as the only root: %v", err)
	}
	resp.Body.Close()
}
