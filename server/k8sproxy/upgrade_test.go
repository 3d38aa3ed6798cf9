package k8sproxy_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/transport/spdy"
	"k8s.io/streaming/pkg/httpstream"
	httpstreamspdy "k8s.io/streaming/pkg/httpstream/spdy"

	"github.com/ochestra-tech/kubeopera/server/api"
	"github.com/ochestra-tech/kubeopera/server/k8sproxy"
)

// echoUpstream is an API server stand-in that speaks SPDY/3.1 as the
// kubelet's exec and port-forward do: it upgrades, and echoes every stream
// back. It records the headers each request arrived with.
type echoUpstream struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen []http.Header
}

const upstreamToken = "kubeopera-own-credential"

func newEchoUpstream(t *testing.T) *echoUpstream {
	u := &echoUpstream{}
	u.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		u.seen = append(u.seen, r.Header.Clone())
		u.mu.Unlock()
		if !httpstream.IsUpgradeRequest(r) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Success"}`)
			return
		}
		if _, err := httpstream.Handshake(r, w, []string{"echo.kubeopera.test"}); err != nil {
			return
		}
		conn := httpstreamspdy.NewResponseUpgrader().UpgradeResponse(w, r, func(s httpstream.Stream, replySent <-chan struct{}) error {
			go func() { <-replySent; _, _ = io.Copy(s, s); s.Close() }()
			return nil
		})
		if conn != nil {
			<-conn.CloseChan()
		}
	}))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *echoUpstream) target() k8sproxy.Target {
	cert := u.srv.Certificate()
	cfg := &rest.Config{Host: u.srv.URL, BearerToken: upstreamToken}
	cfg.CAData = pemOf(cert.Raw)
	return k8sproxy.Target{Name: "echo", Config: cfg}
}

func (u *echoUpstream) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.seen)
}

func (u *echoUpstream) last() http.Header {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.seen[len(u.seen)-1]
}

// An upgrade (SPDY, as exec and port-forward use) passes through the proxy
// both ways, arriving with KubeOpera's credential and the caller's
// impersonation only.
func TestUpgradeStreamsBytesBothWays(t *testing.T) {
	up := newEchoUpstream(t)
	e := startProxy(t, clusters{"c1": up.target()}, time.Second)
	tok, _ := e.token(t, "alice", api.PlatformAdmin)
	cfg := e.config("c1", tok)
	rt, upgrader, err := spdy.RoundTripperFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(cfg.Host + "/api/v1/namespaces/default/pods/web/portforward")
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, u.String(), nil)
	req.Header.Set("Impersonate-User", "system:admin")
	req.Header.Set("Impersonate-Group", "system:masters")
	req.Header.Set("Impersonate-Extra-Scopes", "everything")
	conn, proto, err := spdy.Negotiate(upgrader, &http.Client{Transport: rt}, req, "echo.kubeopera.test")
	if err != nil {
		t.Fatalf("upgrade through the proxy: %v", err)
	}
	defer conn.Close()
	if proto != "echo.kubeopera.test" {
		t.Errorf("negotiated protocol %q", proto)
	}
	s, err := conn.CreateStream(http.Header{"X-Stream": {"data"}})
	if err != nil {
		t.Fatal(err)
	}
	const msg = "hello through the proxy"
	if _, err := io.WriteString(s, msg); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(s, got); err != nil {
		t.Fatalf("read the echo: %v", err)
	}
	if string(got) != msg {
		t.Errorf("echo %q, want %q", got, msg)
	}
	h := up.last()
	if h.Get("Authorization") != "Bearer "+upstreamToken {
		t.Errorf("upstream got Authorization %q, want KubeOpera's own credential", h.Get("Authorization"))
	}
	if got := h.Values("Impersonate-User"); len(got) != 1 || got[0] != "kubeopera:token:alice" {
		t.Errorf("upstream got Impersonate-User %q, want only kubeopera:token:alice", got)
	}
	if got := h.Values("Impersonate-Group"); strings.Join(got, ",") != k8sproxy.GroupAdmin {
		t.Errorf("upstream got Impersonate-Group %q, want %s", got, k8sproxy.GroupAdmin)
	}
	if got := h.Get("Impersonate-Extra-Scopes"); got != "" {
		t.Errorf("upstream got the caller's Impersonate-Extra-Scopes %q", got)
	}
}
