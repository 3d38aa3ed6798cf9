package api

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/ochestra-tech/kubeopera/internal/testkit/testlog"
	"github.com/ochestra-tech/kubeopera/internal/testkit/testpg"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// tcpProxy forwards connections to target until closed, when it drops
// every connection too: the database "goes down" under a running server.
type tcpProxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func startProxy(t *testing.T, target string) *tcpProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(up, c); up.Close() }()
			go func() { _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
	t.Cleanup(p.close)
	return p
}

func (p *tcpProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
}

// With the database down, authenticated routes and /readyz answer 503 with
// a short reason; the driver's error goes to the log as a warning only.
func TestDatabaseDownAnswers503(t *testing.T) {
	u, err := url.Parse(testpg.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy := startProxy(t, u.Host)
	u.Host = proxy.ln.Addr().String()
	ctx := context.Background()
	st, err := store.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOpts{})
	e.st, e.logs = st, &testlog.Buffer{}
	e.app = New(Deps{Store: st, Keyring: e.keys, Providers: sharedHost(t), Logger: loggerTo(e.logs)})
	e.viewer = e.token(Viewer)
	code, body := e.do(http.MethodGet, "/api/v1/clusters", e.viewer, nil)
	mustStatus(t, "list while up", code, body, 200)

	proxy.close()
	for _, path := range []string{"/api/v1/clusters", "/readyz", "/api/v1/setup"} {
		code, body := e.do(http.MethodGet, path, e.viewer, nil)
		p := decode[Problem](t, body)
		if code != 503 || p.Detail != "the database is not reachable; try again shortly" {
			t.Errorf("%s with the database down: %d %s, want 503 with a short reason", path, code, body)
		}
		for _, leak := range []string{proxy.ln.Addr().String(), "dial", "EOF", "refused", "pgdriver"} {
			if strings.Contains(string(body), leak) {
				t.Errorf("%s shows the driver's error (%q): %s", path, leak, body)
			}
		}
	}
	logs := e.logs.String()
	if strings.Contains(logs, `"level":"ERROR"`) {
		t.Errorf("an expected 503 is logged as an error:\n%s", logs)
	}
	if !strings.Contains(logs, `"level":"WARN"`) {
		t.Errorf("the reason is not logged:\n%s", logs)
	}
}

func loggerTo(w io.Writer) *slog.Logger { return slog.New(slog.NewJSONHandler(w, nil)) }
