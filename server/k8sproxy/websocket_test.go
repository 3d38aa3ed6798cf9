package k8sproxy_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/websocket"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"

	"github.com/ochestra-tech/kubeopera/server/api"
	"github.com/ochestra-tech/kubeopera/server/k8sproxy"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// A WebSocket upgrade (kubectl's exec, attach and port-forward since
// Kubernetes 1.30 prefer it to SPDY) passes through the proxy both ways
// too, unbuffered: each message is echoed by an upstream that speaks the
// WebSocket protocol, and the upstream sees KubeOpera's credential and the
// caller's impersonation, never the caller's token.
func TestWebSocketUpgradeStreamsBytesBothWays(t *testing.T) {
	headers := make(chan http.Header, 1)
	up := httptest.NewTLSServer(websocket.Server{
		Handshake: func(_ *websocket.Config, r *http.Request) error { headers <- r.Header.Clone(); return nil },
		Handler:   func(ws *websocket.Conn) { _, _ = io.Copy(ws, ws) },
	})
	t.Cleanup(up.Close)
	cfg := &rest.Config{Host: up.URL, BearerToken: upstreamToken, TLSClientConfig: rest.TLSClientConfig{CAData: pemOf(up.Certificate().Raw)}}
	e := startProxy(t, clusters{"c1": {Name: "ws", Config: cfg}}, time.Second)
	tok, _ := e.token(t, "wendy", api.PlatformAdmin)

	wsURL := "ws" + strings.TrimPrefix(e.srv.URL, "http") + k8sproxy.PathPrefix + "c1/api/v1/namespaces/default/pods/web/exec?command=sh"
	c, err := websocket.NewConfig(wsURL, e.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	c.Header = http.Header{"Authorization": {"Bearer " + tok}}
	ws, err := websocket.DialConfig(c)
	if err != nil {
		t.Fatalf("WebSocket upgrade through the proxy: %v", err)
	}
	defer ws.Close()
	for _, msg := range []string{"first message", "second, after the first came back"} {
		if err := websocket.Message.Send(ws, msg); err != nil {
			t.Fatal(err)
		}
		_ = ws.SetReadDeadline(time.Now().Add(5 * time.Second))
		var got string
		if err := websocket.Message.Receive(ws, &got); err != nil {
			t.Fatalf("read the echo of %q: %v", msg, err)
		}
		if got != msg {
			t.Errorf("echo %q, want %q", got, msg)
		}
	}
	// The upgrade was a GET, but it is an exec: a change, audited as the
	// create the API server authorizes it as, once the stream ends.
	_ = ws.Close()
	var events []store.AuditEvent
	err = wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 5*time.Second, true, func(ctx context.Context) (bool, error) {
		events, err = e.st.ListAuditEvents(ctx, store.AuditFilter{Actor: "token:wendy"})
		return err == nil && len(events) > 0, err
	})
	if err != nil || len(events) != 1 || events[0].Method != "create" || !strings.Contains(events[0].Route, "pods/exec") {
		t.Errorf("audit of the WebSocket exec: %+v, %v; want one create of pods/exec", events, err)
	}
	seen := <-headers
	if seen.Get("Authorization") != "Bearer "+upstreamToken {
		t.Errorf("upstream got Authorization %q, want KubeOpera's own credential", seen.Get("Authorization"))
	}
	if got := seen.Values("Impersonate-User"); len(got) != 1 || got[0] != "kubeopera:token:wendy" {
		t.Errorf("upstream got Impersonate-User %q, want only kubeopera:token:wendy", got)
	}
}
