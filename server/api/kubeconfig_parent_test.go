package api

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ochestra-tech/kubeopera/server/fleet"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// A kubeconfig's token ends with the credential it was got with: after
// `kubeopera logout` (the login token revoked) or a dashboard sign-out, the
// proxy refuses the kubeconfigs downloaded with it, and finds the identity
// of a request already open with them no longer valid (its watch ends).
// Before, they kept working until they expired, up to 8 hours later.
func TestKubeconfigTokenEndsWithTheLoginOrSessionItCameFrom(t *testing.T) {
	e := newSessionEnv(t, SessionOptions{Now: time.Now})
	// The route needs only to know how the server reaches the cluster; it
	// never dials it. A self-registered cluster is reached as the server
	// itself is (Self), here an address nothing is asked of.
	e.app = New(Deps{Store: e.st, Keyring: e.keys, Providers: sharedHost(t), Sessions: SessionOptions{Now: time.Now},
		Logger: slog.New(slog.NewJSONHandler(e.logs, nil)), Fleet: fleet.Source{Store: e.st, Self: &rest.Config{Host: "https://127.0.0.1:1"}}})
	e.user("ada", Viewer)
	ctx := context.Background()
	if err := e.st.CreateCluster(ctx, &store.Cluster{ID: "c1", Name: "host", Team: store.DefaultTeam, Provider: "local",
		Source: store.SourceSelfRegistered}); err != nil {
		t.Fatal(err)
	}
	auth := ProxyAuth{Store: e.st}
	tokenOf := func(what string, code int, body []byte) string {
		t.Helper()
		mustStatus(t, what, code, body, 200)
		cfg, err := clientcmd.Load([]byte(decode[clusterKubeconfig](t, body).Kubeconfig))
		if err != nil {
			t.Fatal(err)
		}
		return cfg.AuthInfos[cfg.Contexts[cfg.CurrentContext].AuthInfo].Token
	}
	proxied := func(token string) *http.Request {
		r := httptest.NewRequest(http.MethodGet, "/k8s/clusters/c1/api/v1/namespaces", nil)
		r.Header.Set("Authorization", "Bearer "+token)
		return r
	}
	ends := func(what, token string, signOut func()) {
		t.Helper()
		id, err := auth.Authenticate(ctx, proxied(token), "c1")
		if err != nil {
			t.Fatalf("%s: the kubeconfig's token before the sign-out: %v", what, err)
		}
		signOut()
		if ok, err := auth.Valid(ctx, id); ok || err != nil {
			t.Errorf("%s: an open request's identity after the sign-out: valid %v, %v; want false", what, ok, err)
		}
		if _, err := auth.Authenticate(ctx, proxied(token), "c1"); err == nil {
			t.Errorf("%s: the kubeconfig's token still opens the proxy after the sign-out", what)
		}
	}

	login := e.loginToken("ada", testPassword)
	code, body := e.do(http.MethodGet, "/api/v1/clusters/c1/kubeconfig", login, nil)
	ends("kubeopera logout", tokenOf("kubeconfig with the login token", code, body), func() {
		code, body := e.do(http.MethodDelete, "/api/v1/session", login, nil)
		mustStatus(t, "logout", code, body, 204)
	})

	code, cookie, csrf := e.signIn("ada", testPassword)
	if code != http.StatusCreated {
		t.Fatalf("sign-in: %d", code)
	}
	code, body = e.withSession(http.MethodGet, "/api/v1/clusters/c1/kubeconfig", cookie, "", "")
	ends("dashboard sign-out", tokenOf("kubeconfig in the session", code, body), func() {
		code, body := e.withSession(http.MethodDelete, "/api/v1/session", cookie, csrf, "")
		mustStatus(t, "sign out", code, body, 204)
	})

	// A kubeconfig got with a token an administrator issued outright keeps
	// working while that token does: only its own parent ends it.
	other := e.loginToken("ada", testPassword)
	code, body = e.do(http.MethodGet, "/api/v1/clusters/c1/kubeconfig", other, nil)
	kept := tokenOf("kubeconfig with a second login", code, body)
	if _, err := auth.Authenticate(ctx, proxied(kept), "c1"); err != nil {
		t.Errorf("a kubeconfig got with a login that did not sign out: %v", err)
	}
}
