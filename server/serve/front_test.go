package serve

import (
	"bufio"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
)

// frontEnv serves a fiber app that reports the protocol it saw and a
// net/http handler for /k8s/ that streams, on one listener.
type frontEnv struct {
	addr    string
	release chan struct{}
	client  *http.Client
	scheme  string
}

func startFront(t *testing.T, useTLS bool) *frontEnv {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := &frontEnv{addr: ln.Addr().String(), release: make(chan struct{}), client: &http.Client{}, scheme: "http"}
	if useTLS {
		dir := t.TempDir()
		certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
		pool := writeCert(t, certFile, keyFile, "front", time.Now())
		if ln, err = tlsListener(ln, certFile, keyFile); err != nil {
			t.Fatal(err)
		}
		e.client.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
		e.scheme = "https"
	}
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/api/v1/who", func(c *fiber.Ctx) error { return c.SendString("fiber " + c.Protocol()) })
	k8s := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "k8s first\n")
		w.(http.Flusher).Flush()
		<-e.release
		_, _ = io.WriteString(w, "k8s last\n")
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveFront(ctx, ln, app, k8s, func() {}) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serveFront: %v", err)
		}
	})
	return e
}

// Each connection goes to the server of its first request's path: /k8s/
// to net/http, which streams before the handler returns, the rest to
// fiber, which still sees TLS (Secure cookies depend on it).
func TestFrontRoutesByPathAndKeepsStreamingAndTLS(t *testing.T) {
	for _, useTLS := range []bool{false, true} {
		e := startFront(t, useTLS)
		resp, err := e.client.Get(e.scheme + "://" + e.addr + "/api/v1/who")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := "fiber " + e.scheme; string(body) != want {
			t.Errorf("tls=%v: /api/v1/who answered %q, want %q", useTLS, body, want)
		}
		resp, err = e.client.Get(e.scheme + "://" + e.addr + "/k8s/clusters/c1/api/v1/pods?watch=1")
		if err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(resp.Body).ReadString('\n')
		if err != nil || line != "k8s first\n" {
			t.Errorf("tls=%v: first streamed line %q (%v), want it before the handler ends", useTLS, line, err)
		}
		close(e.release)
		resp.Body.Close()
	}
}

// Requests for both servers on one keep-alive connection (as a browser
// sends them) are each answered by their own server: the connection is
// handed over both ways.
func TestFrontHandsAConnectionOverBothWays(t *testing.T) {
	e := startFront(t, true)
	close(e.release)
	var local []string
	trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { local = append(local, i.Conn.LocalAddr().String()) }}
	for _, tc := range []struct{ path, want string }{
		{"/api/v1/who", "fiber https"}, {"/k8s/clusters/c1/api", "k8s first\nk8s last\n"},
		{"/api/v1/who", "fiber https"}, {"/k8s/clusters/c1/api", "k8s first\nk8s last\n"},
	} {
		req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), http.MethodGet,
			"https://"+e.addr+tc.path, nil)
		resp, err := e.client.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", tc.path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != tc.want {
			t.Errorf("GET %s answered %q, want %q", tc.path, body, tc.want)
		}
	}
	for _, l := range local[1:] {
		if l != local[0] {
			t.Errorf("the client used connections %v, want one reused", local)
			break
		}
	}
}

// A request line that arrives a few bytes at a time is still routed by
// its path.
func TestFrontRoutesARequestLineSentInPieces(t *testing.T) {
	e := startFront(t, false)
	close(e.release)
	conn, err := net.Dial("tcp", e.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, part := range []string{"GE", "T /k", "8s/clusters/c1/api HTTP/1.1\r\nHost: x\r\n", "\r\n"} {
		if _, err := io.WriteString(conn, part); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond) // separate segments: this test is about pieces
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if !strings.HasPrefix(string(body), "k8s first") {
		t.Errorf("answered %q, want the /k8s/ handler", body)
	}
}
