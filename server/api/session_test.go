package api

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/server/access"
)

// sessionEnv is an API whose sessions run on a clock the test moves.
type sessionEnv struct {
	*env
	mu  sync.Mutex
	now time.Time
}

func newSessionEnv(t *testing.T, o SessionOptions) *sessionEnv {
	return newSessionEnvOn(t, o, false)
}

// newSessionEnvOn is newSessionEnv on PostgreSQL when postgres is set. A
// test that sets o.Now keeps its clock (time.Now for one that runs in real
// time); advance moves only the test's own clock.
func newSessionEnvOn(t *testing.T, o SessionOptions, postgres bool) *sessionEnv {
	e := &sessionEnv{env: newEnv(t, envOpts{postgres: postgres}), now: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	if o.Now == nil {
		o.Now = func() time.Time { e.mu.Lock(); defer e.mu.Unlock(); return e.now }
	}
	// Requests made by app.Test come from 0.0.0.0: the trusted proxy, so a
	// test names the client in X-Forwarded-For.
	e.app = New(Deps{Store: e.st, Keyring: e.keys, Providers: sharedHost(t), Sessions: o,
		Logger: slog.New(slog.NewJSONHandler(e.logs, nil)), TrustedProxies: []netip.Prefix{netip.MustParsePrefix("0.0.0.0/32")}})
	return e
}

func (e *sessionEnv) advance(d time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.now = e.now.Add(d)
}

func (e *sessionEnv) user(name string, role Role) {
	e.t.Helper()
	u, err := NewUser(name, name+"@example.com", "correct-horse-battery", role)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.st.CreateUser(context.Background(), u); err != nil {
		e.t.Fatal(err)
	}
}

// signIn returns the status, the session cookie and the CSRF token.
func (e *sessionEnv) signIn(name, password string, header ...string) (int, *http.Cookie, string) {
	e.t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/api/v1/session",
		strings.NewReader(`{"username":"`+name+`","password":"`+password+`"}`))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := e.app.Test(req, 30000)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == sessionCookie {
			cookie = c
		}
	}
	var body sessionResponse
	b, _ := io.ReadAll(resp.Body)
	validateAnswer(e.t, req, resp, b)
	if resp.StatusCode == http.StatusCreated {
		body = decode[sessionResponse](e.t, b)
	}
	return resp.StatusCode, cookie, body.CSRFToken
}

// withSession sends a request carrying the session cookie and, if not
// empty, the CSRF token.
func (e *sessionEnv) withSession(method, path string, cookie *http.Cookie, csrf, body string) (int, []byte) {
	e.t.Helper()
	var req *http.Request
	if body != "" {
		req = httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
	} else {
		req = httptest.NewRequest(method, path, nil)
	}
	req.AddCookie(cookie)
	if csrf != "" {
		req.Header.Set(csrfHeader, csrf)
	}
	return e.send(req)
}

func TestSignInSetsAStrictHttpOnlyCookieThatSignsRequests(t *testing.T) {
	e := newSessionEnv(t, SessionOptions{})
	e.user("ops-admin", PlatformAdmin)
	if code, cookie, _ := e.signIn("ops-admin", "wrong-password-here"); code != 401 || cookie != nil {
		t.Fatalf("wrong password: %d, cookie %v", code, cookie)
	}
	if code, _, _ := e.signIn("nobody-here", "correct-horse-battery"); code != 401 {
		t.Fatalf("unknown user: %d", code)
	}
	code, cookie, csrf := e.signIn("ops-admin", "correct-horse-battery")
	if code != 201 || cookie == nil || csrf == "" {
		t.Fatalf("sign-in: %d cookie %v csrf %q", code, cookie, csrf)
	}
	if !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode || cookie.Secure || cookie.Path != "/" {
		t.Errorf("cookie over plain HTTP: %+v; want HttpOnly, SameSite=Strict, not Secure, Path=/", cookie)
	}
	if _, tls, _ := e.signIn("ops-admin", "correct-horse-battery", "X-Forwarded-Proto", "https"); tls == nil || !tls.Secure {
		t.Errorf("cookie over TLS: %+v; want Secure", tls)
	}
	code, body := e.withSession(http.MethodGet, "/api/v1/session", cookie, "", "")
	me := decode[sessionResponse](t, body)
	if code != 200 || me.User.Username != "ops-admin" || me.User.Role != PlatformAdmin || me.CSRFToken != csrf {
		t.Errorf("GET /session: %d %s", code, body)
	}
	if code, body := e.withSession(http.MethodGet, "/api/v1/credentials", cookie, "", ""); code != 200 {
		t.Errorf("an admin-only read with the cookie: %d %s", code, body)
	}
	cred := `{"label":"ci","kind":"access_key","accessKeyId":"AKIAIOSFODNN7EXAMPLE","secretAccessKey":"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}`
	if code, body := e.withSession(http.MethodPost, "/api/v1/credentials", cookie, "", cred); code != 403 || !strings.Contains(string(body), csrfHeader) {
		t.Errorf("a write without the CSRF token: %d %s", code, body)
	}
	if code, body := e.withSession(http.MethodPost, "/api/v1/credentials", cookie, "forged", cred); code != 403 {
		t.Errorf("a write with a wrong CSRF token: %d %s", code, body)
	}
	if code, body := e.withSession(http.MethodPost, "/api/v1/credentials", cookie, csrf, cred); code != 201 {
		t.Errorf("a write with the CSRF token: %d %s", code, body)
	}
	// Bearer tokens keep working beside sessions.
	if code, body := e.do(http.MethodGet, "/api/v1/credentials", e.admin, nil); code != 200 || !strings.Contains(string(body), `"ci"`) {
		t.Errorf("bearer token: %d %s", code, body)
	}
	if code, body := e.withSession(http.MethodDelete, "/api/v1/session", cookie, csrf, ""); code != 204 {
		t.Fatalf("sign-out: %d %s", code, body)
	}
	if code, body := e.withSession(http.MethodGet, "/api/v1/clusters", cookie, "", ""); code != 401 || !strings.Contains(string(body), "signed out") {
		t.Errorf("the revoked cookie: %d %s", code, body)
	}
}

func TestSessionEndsWhenIdleOrAtItsAbsoluteExpiry(t *testing.T) {
	e := newSessionEnv(t, SessionOptions{Idle: 10 * time.Minute, Absolute: time.Hour})
	e.user("ops", Viewer)
	_, cookie, _ := e.signIn("ops", "correct-horse-battery")
	for range 6 {
		e.advance(9 * time.Minute)
		if code, body := e.withSession(http.MethodGet, "/api/v1/clusters", cookie, "", ""); code != 200 {
			t.Fatalf("a session in use: %d %s", code, body)
		}
	}
	e.advance(6 * time.Minute) // 60 minutes after sign-in
	if code, body := e.withSession(http.MethodGet, "/api/v1/clusters", cookie, "", ""); code != 401 || !strings.Contains(string(body), "expired") {
		t.Errorf("past the absolute expiry: %d %s", code, body)
	}
	_, cookie, _ = e.signIn("ops", "correct-horse-battery")
	e.advance(10 * time.Minute)
	if code, body := e.withSession(http.MethodGet, "/api/v1/clusters", cookie, "", ""); code != 401 || !strings.Contains(string(body), "expired") {
		t.Errorf("idle for the idle limit: %d %s", code, body)
	}
}

func TestViewerSessionCannotUseAdminRoutes(t *testing.T) {
	e := newSessionEnv(t, SessionOptions{})
	e.user("watcher", Viewer)
	_, cookie, csrf := e.signIn("watcher", "correct-horse-battery")
	if code, _ := e.withSession(http.MethodGet, "/api/v1/clusters", cookie, "", ""); code != 200 {
		t.Errorf("viewer reads clusters: %d", code)
	}
	if code, body := e.withSession(http.MethodGet, "/api/v1/users", cookie, csrf, ""); code != 403 || !strings.Contains(string(body), "platform-admin") {
		t.Errorf("viewer lists users: %d %s", code, body)
	}
	if code, body := e.withSession(http.MethodGet, "/api/v1/credentials", cookie, csrf, ""); code != 200 || string(body) != `{"items":[]}` {
		t.Errorf("a viewer administers no team, so its credentials list is empty: %d %s", code, body)
	}
}

func TestFailedSignInsAreThrottledPerAccountAndPerAddress(t *testing.T) {
	e := newSessionEnv(t, SessionOptions{PerAccount: 3, PerAddress: 5, Window: 15 * time.Minute})
	e.user("target", Viewer)
	e.user("other", Viewer)
	for i := range 3 {
		if code, _, _ := e.signIn("target", "wrong-password-here"); code != 401 {
			t.Fatalf("failure %d: %d", i+1, code)
		}
	}
	// The account is locked, even for the right password...
	if code, _, _ := e.signIn("target", "correct-horse-battery"); code != 429 {
		t.Errorf("locked account, right password: %d, want 429", code)
	}
	// ...while another account from the same address still signs in.
	if code, _, _ := e.signIn("other", "correct-horse-battery"); code != 201 {
		t.Errorf("another account: %d", code)
	}
	// One more failure on another account uses up the address's five:
	// the refused attempt above counted against the address too.
	for _, name := range []string{"nobody-at-all"} {
		if code, _, _ := e.signIn(name, "wrong-password-here"); code != 401 {
			t.Fatalf("failure for %s: %d", name, code)
		}
	}
	if code, _, _ := e.signIn("other", "correct-horse-battery"); code != 429 {
		t.Errorf("locked address: %d, want 429", code)
	}
	e.advance(15 * time.Minute)
	if code, _, _ := e.signIn("target", "correct-horse-battery"); code != 201 {
		t.Errorf("after the window: %d, want 201", code)
	}
	if logs := e.logs.String(); strings.Contains(logs, "correct-horse-battery") || strings.Contains(logs, "wrong-password-here") {
		t.Errorf("a password reached the log:\n%s", logs)
	}
}

func TestNewUserChecksItsFields(t *testing.T) {
	if _, err := NewUser("ab", "not-an-email", "short", Viewer); err == nil ||
		!strings.Contains(err.Error(), "email") || !strings.Contains(err.Error(), "username") || !strings.Contains(err.Error(), "password") {
		t.Errorf("NewUser with three bad fields: %v", err)
	}
	if _, err := NewUser("ops", "ops@example.com", "correct-horse-battery", Role("root")); err == nil {
		t.Error("NewUser accepted an unknown role")
	}
	u, err := NewUser("ops", "ops@example.com", "correct-horse-battery", Viewer)
	if err != nil || u.Role != access.Viewer || strings.Contains(u.PasswordHash, "correct-horse") {
		t.Errorf("NewUser = %+v, %v", u, err)
	}
}
