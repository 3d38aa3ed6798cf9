package api

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/server/k8sproxy"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// The proxy accepts the dashboard's session as the API does: the user's
// own name and role, the CSRF token on a change, and no longer once the
// session is signed out.
func TestProxyAuthTakesASessionAsTheAPIDoes(t *testing.T) {
	e := newEnv(t, envOpts{})
	ctx := context.Background()
	u, err := NewUser("dana", "dana@example.com", "a-long-enough-password-1", Viewer)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.st.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	cookie, now := randomToken(), time.Now().UTC().Truncate(time.Microsecond)
	sess := &store.Session{IDHash: HashToken(cookie), UserID: u.ID, CSRFToken: "csrf-1", CreatedAt: now, LastSeenAt: now,
		ExpiresAt: now.Add(time.Hour)}
	if err := e.st.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	auth := ProxyAuth{Store: e.st}
	request := func(method, csrf string) *http.Request {
		r := httptest.NewRequest(method, "/k8s/clusters/c1/api/v1/namespaces/default/configmaps", nil)
		r.AddCookie(&http.Cookie{Name: sessionCookie, Value: cookie})
		if csrf != "" {
			r.Header.Set(csrfHeader, csrf)
		}
		return r
	}
	for _, tc := range []struct {
		name, method, csrf string
		status             int
	}{
		{"a read needs no CSRF token", http.MethodGet, "", 0},
		{"a change without the CSRF token is refused", http.MethodPost, "", http.StatusForbidden},
		{"a change with a wrong CSRF token is refused", http.MethodPost, "csrf-2", http.StatusForbidden},
		{"a change with the session's CSRF token passes", http.MethodPost, "csrf-1", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, err := auth.Authenticate(ctx, request(tc.method, tc.csrf))
			var rf *k8sproxy.Refusal
			switch {
			case tc.status == 0 && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.status == 0 && (id.User != "dana" || id.Role != string(Viewer) || !id.Expires.Equal(sess.ExpiresAt)):
				t.Errorf("identity %+v, want dana, a viewer, until the session's expiry", id)
			case tc.status != 0 && (!errors.As(err, &rf) || rf.Status != tc.status):
				t.Errorf("got %v, want a %d refusal", err, tc.status)
			}
		})
	}
	id, err := auth.Authenticate(ctx, request(http.MethodGet, ""))
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := auth.Valid(ctx, id); !ok || err != nil {
		t.Fatalf("a live session: valid %v, %v", ok, err)
	}
	if err := e.st.DeleteSession(ctx, sess.IDHash); err != nil {
		t.Fatal(err)
	}
	if ok, err := auth.Valid(ctx, id); ok || err != nil {
		t.Errorf("a signed-out session: valid %v, %v; want false", ok, err)
	}
}
