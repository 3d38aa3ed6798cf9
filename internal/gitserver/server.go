// Package gitserver runs a real git smart-HTTP server on loopback for tests:
// the git binary's own `git http-backend` behind net/http/cgi, serving bare
// repositories from a temporary directory. Clients (the git CLI, go-git,
// Flux's source-controller) speak the real wire protocol to it, v0 and v2.
package gitserver

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/cgi" //nolint:gosec // G504: httpoxy (CVE-2016-5386) is fixed since Go 1.6.3; git-http-backend runs as CGI
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Options configures a Server.
type Options struct {
	// Username and Password, when either is set, make every request require
	// HTTP basic auth with exactly these values; anything else gets a 401 with
	// a WWW-Authenticate challenge. A token is checked as a password.
	Username, Password string
	// TLS serves HTTPS with a certificate for 127.0.0.1 signed by a
	// throwaway CA (CACert), for clients that accept only https:// URLs.
	TLS bool
	// TLSAddresses are more addresses the certificate names, where clients
	// reach the server through a relay (a node's address for its pods).
	TLSAddresses []net.IP
}

// Server is a git smart-HTTP server on 127.0.0.1 serving the bare
// repositories under its root directory.
type Server struct {
	t       testing.TB // nil when made by New
	opts    Options
	root    string // GIT_PROJECT_ROOT: <root>/<name>.git are the repos
	backend string // path of git-http-backend
	http    *httptest.Server

	mu        sync.Mutex
	requests  []string
	onReceive func()
}

// Start starts a server on a free loopback port; it stops on t.Cleanup.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	s, err := New(t.TempDir(), o)
	if err != nil {
		t.Fatal(err)
	}
	s.t = t
	t.Cleanup(s.Close)
	return s
}

// New starts a server on a free loopback port keeping its repositories in
// root, for callers that are not tests (`kubeopera dev`); Close stops it.
func New(root string, o Options) (*Server, error) {
	execPath, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		return nil, fmt.Errorf("gitserver: find git's exec path (is git installed?): %w", err)
	}
	backend := filepath.Join(strings.TrimSpace(string(execPath)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		return nil, fmt.Errorf("gitserver: git-http-backend not found: %w", err)
	}
	s := &Server{opts: o, root: root, backend: backend}
	switch {
	case o.TLS && len(o.TLSAddresses) > 0:
		cert, err := selfSigned(append([]net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}, o.TLSAddresses...))
		if err != nil {
			return nil, fmt.Errorf("gitserver: certificate: %w", err)
		}
		s.http = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
		s.http.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		s.http.StartTLS()
	case o.TLS:
		s.http = httptest.NewTLSServer(http.HandlerFunc(s.serve))
	default:
		s.http = httptest.NewServer(http.HandlerFunc(s.serve))
	}
	return s, nil
}

// selfSigned makes a throwaway certificate for ips that is its own CA.
func selfSigned(ips []net.IP) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kubeopera test git server"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), IPAddresses: ips,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// Close stops the server.
func (s *Server) Close() { s.http.Close() }

// CACert is the PEM certificate clients trust for a TLS server (nil
// without TLS).
func (s *Server) CACert() []byte {
	if s.http.Certificate() == nil {
		return nil
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.http.Certificate().Raw})
}

// URL returns the server's base URL, http://127.0.0.1:PORT.
func (s *Server) URL() string { return s.http.URL }

// RepoURL returns the clone URL of the repository name (which need not exist).
func (s *Server) RepoURL(name string) string { return s.http.URL + "/" + name + ".git" }

// OnReceivePack sets fn to be called each time a push (the git-receive-pack
// POST) arrives, after authentication and before it is served. A test can
// commit concurrently from fn (CommitDirect) to force a non-fast-forward
// rejection. nil removes it.
func (s *Server) OnReceivePack(fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onReceive = fn
}

// RejectPushes makes every repository's pre-receive hook print reason and
// exit 1, so receive-pack refuses all pushes with the hook's message relayed
// to the client ("remote: <reason>"). An empty reason lets pushes through
// again. CommitDirect is not affected.
func (s *Server) RejectPushes(reason string) {
	s.t.Helper()
	path := s.rejectFile()
	if reason == "" {
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			s.t.Fatalf("gitserver: lift push rejection: %v", err)
		}
		return
	}
	if err := os.WriteFile(path, []byte(reason+"\n"), 0o600); err != nil {
		s.t.Fatalf("gitserver: reject pushes: %v", err)
	}
}

// Requests returns the requests served so far, each "METHOD path user" with
// the path including its query and user "-" when none was given. Passwords
// are never recorded.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

func (s *Server) rejectFile() string { return filepath.Join(s.root, ".reject-pushes") }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	user, pass, hasAuth := r.BasicAuth()
	logUser := user
	if !hasAuth {
		logUser = "-"
	}
	s.mu.Lock()
	s.requests = append(s.requests, fmt.Sprintf("%s %s %s", r.Method, r.URL.RequestURI(), logUser))
	onReceive := s.onReceive
	s.mu.Unlock()

	if s.opts.Username != "" || s.opts.Password != "" {
		if !hasAuth || user != s.opts.Username || pass != s.opts.Password {
			w.Header().Set("WWW-Authenticate", `Basic realm="gitserver"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
	}
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-receive-pack") && onReceive != nil {
		onReceive()
	}
	s.backendHandler(r, user).ServeHTTP(w, r)
}

// backendHandler is built per request because the protocol version the
// client asks for (Git-Protocol header) must reach http-backend as the
// GIT_PROTOCOL environment variable, which net/http/cgi does not map.
func (s *Server) backendHandler(r *http.Request, user string) *cgi.Handler {
	env := append(isolatedEnv(),
		"GIT_PROJECT_ROOT="+s.root,
		"GIT_HTTP_EXPORT_ALL=1",
	)
	if p := r.Header.Get("Git-Protocol"); p != "" {
		env = append(env, "GIT_PROTOCOL="+p)
	}
	if user != "" {
		env = append(env, "REMOTE_USER="+user)
	}
	return &cgi.Handler{
		Path:   s.backend,
		Root:   "/",
		Env:    env,
		Stderr: logWriter{s.t},
	}
}

// isolatedEnv keeps the machine's and user's git configuration out of the
// server and of the helpers' git commands.
func isolatedEnv() []string {
	return []string{
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_TERMINAL_PROMPT=0",
	}
}

// logWriter sends http-backend's stderr to the test log (to stderr for a
// server made by New).
type logWriter struct{ t testing.TB }

func (w logWriter) Write(p []byte) (int, error) {
	if w.t == nil {
		return fmt.Fprintf(os.Stderr, "git http-backend: %s", p)
	}
	w.t.Logf("git http-backend: %s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
