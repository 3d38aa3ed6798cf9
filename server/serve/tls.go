package serve

import (
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"sync"
)

// certReloader serves the certificate in certFile/keyFile and loads them
// again when either file changes (a renewed certificate needs no restart).
// A pair that fails to load keeps the previous one in use.
type certReloader struct {
	certFile, keyFile string
	mu                sync.Mutex
	cert              *tls.Certificate
	stamp             string
}

func newCertReloader(certFile, keyFile string) (*certReloader, error) {
	r := &certReloader{certFile: certFile, keyFile: keyFile}
	if err := r.reload(); err != nil {
		return nil, err
	}
	return r, nil
}

// fileStamp identifies the files' current versions.
func (r *certReloader) fileStamp() string {
	var s string
	for _, p := range []string{r.certFile, r.keyFile} {
		if fi, err := os.Stat(p); err == nil {
			s += fmt.Sprintf("%d/%d;", fi.ModTime().UnixNano(), fi.Size())
		}
	}
	return s
}

func (r *certReloader) reload() error {
	stamp := r.fileStamp()
	cert, err := tls.LoadX509KeyPair(r.certFile, r.keyFile)
	if err != nil {
		return fmt.Errorf("TLS certificate %s and key %s: %w", r.certFile, r.keyFile, err)
	}
	r.cert, r.stamp = &cert, stamp
	return nil
}

// getCertificate is tls.Config.GetCertificate: it checks the files' stamps
// (two stats) and reloads when they moved on.
func (r *certReloader) getCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fileStamp() != r.stamp {
		_ = r.reload() // on failure the previous certificate stays in use
	}
	return r.cert, nil
}

// tlsListener wraps ln in TLS with the reloading certificate.
func tlsListener(ln net.Listener, certFile, keyFile string) (net.Listener, error) {
	r, err := newCertReloader(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: r.getCertificate}
	return tls.NewListener(ln, cfg), nil
}
