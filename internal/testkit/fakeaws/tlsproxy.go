package fakeaws

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Interceptor is an HTTPS proxy for programs that insist on a real AWS
// hostname over HTTPS with their own http.Client (aws-iam-authenticator's
// verifier does). It answers CONNECT for the hosts it was given itself: it
// terminates TLS with a certificate from its own test CA and serves handler
// on the tunnel. CONNECT to any other host is refused, so nothing leaves the
// machine. Run the program with HTTPS_PROXY=URL and SSL_CERT_FILE=CAFile;
// Go reads SSL_CERT_FILE once per process, so this is for a child process.
type Interceptor struct {
	// URL is the proxy's address, for HTTPS_PROXY.
	URL string
	// CAFile is a PEM file holding the CA that signed the hosts'
	// certificate, for SSL_CERT_FILE.
	CAFile string

	hosts   map[string]bool
	tlsConf *tls.Config
	conns   *connListener
}

// StartInterceptor runs an Interceptor answering for hosts with handler
// until the test ends.
func StartInterceptor(tb testing.TB, handler http.Handler, hosts ...string) *Interceptor {
	tb.Helper()
	caPEM, cert, err := issue(hosts)
	if err != nil {
		tb.Fatalf("issue test certificates: %v", err)
	}
	in := &Interceptor{
		CAFile:  filepath.Join(tb.TempDir(), "ca.pem"),
		hosts:   map[string]bool{},
		tlsConf: &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"http/1.1"}},
		conns:   newConnListener(),
	}
	for _, h := range hosts {
		in.hosts[h] = true
	}
	if err := os.WriteFile(in.CAFile, caPEM, 0o600); err != nil {
		tb.Fatalf("write test CA: %v", err)
	}
	// Handshake failures are expected (tests check untrusting clients fail).
	backend := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = backend.Serve(in.conns) }()
	proxy := httptest.NewServer(http.HandlerFunc(in.connect))
	in.URL = proxy.URL
	tb.Cleanup(func() {
		proxy.Close()
		_ = backend.Close()
	})
	return in
}

// connect answers a CONNECT by handing the tunnel, wrapped in TLS, to the
// backend server.
func (in *Interceptor) connect(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodConnect {
		http.Error(w, "this proxy only tunnels (CONNECT)", http.StatusMethodNotAllowed)
		return
	}
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil || !in.hosts[host] {
		http.Error(w, "this proxy only answers for its test hosts", http.StatusForbidden)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "cannot hijack", http.StatusInternalServerError)
		return
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		return
	}
	if buf.Reader.Buffered() > 0 { // a client must wait for the 200 first
		_ = conn.Close()
		return
	}
	if _, err := conn.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		_ = conn.Close()
		return
	}
	in.conns.push(tls.Server(conn, in.tlsConf))
}

// connListener is a net.Listener fed with connections by the proxy.
type connListener struct {
	ch     chan net.Conn
	once   sync.Once
	closed chan struct{}
}

func newConnListener() *connListener {
	return &connListener{ch: make(chan net.Conn), closed: make(chan struct{})}
}

func (l *connListener) push(c net.Conn) {
	select {
	case l.ch <- c:
	case <-l.closed:
		_ = c.Close()
	}
}

func (l *connListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *connListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *connListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

// issue makes a CA and a certificate for hosts signed by it.
func issue(hosts []string) (caPEM []byte, leaf tls.Certificate, err error) {
	if len(hosts) == 0 {
		return nil, tls.Certificate{}, errors.New("no hosts to issue a certificate for")
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "fakeaws test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: hosts[0]}, DNSNames: hosts,
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	return caPEM, tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
