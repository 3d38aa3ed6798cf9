package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/internal/testkit/testoidc"
	"github.com/ochestra-tech/kubeopera/server/oidc"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// ssoEnv is a server whose single sign-on goes to a real OpenID Provider
// on loopback: members of "platform" are platform admins, of "devs"
// viewers.
type ssoEnv struct {
	*env
	idp  *testoidc.Provider
	base string // http://127.0.0.1:port of the server
}

func newSSOEnv(t *testing.T) *ssoEnv {
	t.Helper()
	idp := testoidc.New(t)
	sso := oidc.New(oidc.Config{Issuer: idp.URL, ClientID: "kubeopera", ClientSecret: "client-secret", DisplayName: "Test IdP",
		Mappings: []oidc.Mapping{{Group: "platform", Role: "platform-admin"}, {Group: "devs", Role: "viewer"},
			{Group: "team-a-operators", Role: "operator", Team: "team-a"}}})
	e := newEnv(t, envOpts{sso: sso})
	base := "http://" + e.listen(t)
	idp.AddClient(testoidc.Client{ID: "kubeopera", Secret: "client-secret", RedirectURIs: []string{base + oidc.CallbackPath}})
	idp.SetUser(testoidc.User{Subject: "u-ada", Username: "ada", Email: "ada@example.com", Groups: []string{"platform"}})
	idp.SignInAs("u-ada")
	return &ssoEnv{env: e, idp: idp, base: base}
}

// browser is a client with a cookie jar that follows redirects until it
// lands on a dashboard page of the server, and checks every answer of the
// server against the OpenAPI document.
func (s *ssoEnv) browser(t *testing.T) *http.Client {
	jar, _ := cookiejar.New(nil)
	host := strings.TrimPrefix(s.base, "http://")
	return &http.Client{Jar: jar, Timeout: 30 * time.Second, Transport: validating{t, host},
		CheckRedirect: func(req *http.Request, _ []*http.Request) error {
			if req.URL.Host == host && !strings.HasPrefix(req.URL.Path, "/api/") {
				return http.ErrUseLastResponse // a dashboard page: where the sign-in landed
			}
			return nil
		}}
}

type validating struct {
	t    *testing.T
	host string
}

func (v validating) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil || req.URL.Host != v.host {
		return resp, err
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	validateAnswer(v.t, req, resp, b)
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp, nil
}

// signIn starts single sign-on in c and returns where it landed: the
// dashboard path, and the reason when it landed on the sign-in page.
func (s *ssoEnv) signIn(t *testing.T, c *http.Client) (landed, reason string) {
	t.Helper()
	resp, err := c.Get(s.base + oidc.LoginPath + "?next=/clusters/multi")
	if err != nil {
		t.Fatalf("single sign-on: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("single sign-on ended with %d at %s, want a 303 to the dashboard", resp.StatusCode, resp.Request.URL)
	}
	loc, _ := url.Parse(resp.Header.Get("Location"))
	return loc.Path, loc.Query().Get("sso_error")
}

// whoami is GET /api/v1/session with c's cookies.
func (s *ssoEnv) whoami(t *testing.T, c *http.Client) (int, sessionResponse) {
	t.Helper()
	resp, err := c.Get(s.base + "/api/v1/session")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var sr sessionResponse
	_ = json.NewDecoder(resp.Body).Decode(&sr)
	return resp.StatusCode, sr
}

func TestSingleSignOnMakesTheUserAndStartsASession(t *testing.T) {
	s := newSSOEnv(t)
	c := s.browser(t)
	if landed, reason := s.signIn(t, c); landed != "/clusters/multi" || reason != "" {
		t.Fatalf("sign-in landed on %s (%q), want /clusters/multi", landed, reason)
	}
	code, sr := s.whoami(t, c)
	if code != 200 || sr.User.Username != "ada" || sr.User.Email != "ada@example.com" || sr.User.Role != PlatformAdmin || sr.CSRFToken == "" {
		t.Fatalf("session after single sign-on: %d %+v; want ada, a platform-admin, with a CSRF token", code, sr)
	}
	if s.idp.AuthorizeCalls() != 1 {
		t.Errorf("the provider accepted %d authorization requests, want 1 (it requires PKCE S256)", s.idp.AuthorizeCalls())
	}
	// A second sign-in finds the same user, not a new one.
	if landed, _ := s.signIn(t, s.browser(t)); landed != "/clusters/multi" {
		t.Fatalf("second sign-in landed on %s", landed)
	}
	u, err := s.st.UserByUsername(t.Context(), "ada")
	if err != nil || u.ID != sr.User.ID || u.PasswordHash != "" {
		t.Errorf("user after two sign-ins: %+v, %v; want the first sign-in's, without a password", u, err)
	}
}

// Every way the provider's answer can be wrong lands on the sign-in page
// with a reason, and no session.
func TestSingleSignOnRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		arrange    func(*testoidc.Provider)
	}{
		{"an ID token for another audience", "ID token was refused", func(p *testoidc.Provider) { p.SetAudience([]string{"another-app"}) }},
		{"an expired ID token", "token is expired", func(p *testoidc.Provider) { p.SetIDTokenLifetime(-time.Minute) }},
		{"a user in no mapped group", "none of your groups at Test IdP (contractors) gives a KubeOpera role", func(p *testoidc.Provider) {
			p.SetUser(testoidc.User{Subject: "u-ada", Username: "ada", Email: "ada@example.com", Groups: []string{"contractors"}})
		}},
		{"a token without groups", "the token names no groups", func(p *testoidc.Provider) {
			p.SetUser(testoidc.User{Subject: "u-ada", Username: "ada", Email: "ada@example.com"})
		}},
		{"groups in a claim the server does not read", "the token names no groups", func(p *testoidc.Provider) { p.SetGroupsClaim("roles") }},
		{"a user without an email", "sent no email address", func(p *testoidc.Provider) {
			p.SetUser(testoidc.User{Subject: "u-ada", Username: "ada", Groups: []string{"platform"}})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSSOEnv(t)
			tc.arrange(s.idp)
			c := s.browser(t)
			landed, reason := s.signIn(t, c)
			if landed != "/signin" || !strings.Contains(reason, tc.want) {
				t.Errorf("landed on %s with %q; want /signin with %q", landed, reason, tc.want)
			}
			if code, _ := s.whoami(t, c); code != 401 {
				t.Errorf("GET /session after a refused sign-in: %d, want 401", code)
			}
		})
	}
}

// A user disabled by a platform admin signs in through the provider
// again: refused with the reason, and no session.
func TestSingleSignOnRefusesADisabledUser(t *testing.T) {
	s := newSSOEnv(t)
	s.idp.SetUser(testoidc.User{Subject: "u-ada", Username: "ada", Email: "ada@example.com", Groups: []string{"devs"}})
	if landed, reason := s.signIn(t, s.browser(t)); landed != "/clusters/multi" {
		t.Fatalf("first sign-in landed on %s (%q)", landed, reason)
	}
	u, err := s.st.UserByUsername(t.Context(), "ada")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.st.SetUserDisabled(t.Context(), u.ID, true); err != nil {
		t.Fatal(err)
	}
	c := s.browser(t)
	landed, reason := s.signIn(t, c)
	if landed != "/signin" || !strings.Contains(reason, `user "ada" is disabled`) {
		t.Errorf("a disabled user's sign-in landed on %s with %q; want /signin saying they are disabled", landed, reason)
	}
	if code, _ := s.whoami(t, c); code != 401 {
		t.Errorf("GET /session after a disabled user's sign-in: %d, want 401", code)
	}
}

// captureCallback runs a sign-in up to the provider's redirect back to the
// server and returns that callback URL and the flow cookie, without
// following it.
func (s *ssoEnv) captureCallback(t *testing.T) (*url.URL, *http.Cookie) {
	t.Helper()
	c := s.browser(t)
	c.CheckRedirect = func(req *http.Request, _ []*http.Request) error {
		if req.URL.Path == oidc.CallbackPath {
			return http.ErrUseLastResponse
		}
		return nil
	}
	resp, err := c.Get(s.base + oidc.LoginPath)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cb, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || cb.Path != oidc.CallbackPath {
		t.Fatalf("the provider sent the browser to %q, want the callback", resp.Header.Get("Location"))
	}
	base, _ := url.Parse(s.base + oidc.CallbackPath)
	for _, ck := range c.Jar.Cookies(base) {
		if ck.Name == flowCookie {
			return cb, ck
		}
	}
	t.Fatal("login set no flow cookie")
	return nil, nil
}

// callback requests cb with the flow cookie and returns the sign-in
// page's reason ("" when it landed elsewhere) and the client.
func (s *ssoEnv) callback(t *testing.T, cb *url.URL, flow *http.Cookie) (string, *http.Client) {
	t.Helper()
	c := s.browser(t)
	base, _ := url.Parse(s.base + oidc.CallbackPath)
	c.Jar.SetCookies(base, []*http.Cookie{{Name: flow.Name, Value: flow.Value, Path: oidc.CallbackPath}})
	resp, err := c.Get(cb.String())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	return loc.Query().Get("sso_error"), c
}

func TestSingleSignOnRefusesABadState(t *testing.T) {
	s := newSSOEnv(t)
	cb, flow := s.captureCallback(t)
	q := cb.Query()
	q.Set("state", "forged-"+q.Get("state"))
	cb.RawQuery = q.Encode()
	reason, c := s.callback(t, cb, flow)
	if !strings.Contains(reason, "state mismatch") {
		t.Errorf("callback with another state: reason %q, want a state mismatch", reason)
	}
	if code, _ := s.whoami(t, c); code != 401 {
		t.Errorf("GET /session after a forged state: %d, want 401", code)
	}
}

func TestSingleSignOnRefusesAReplayedCode(t *testing.T) {
	s := newSSOEnv(t)
	cb, flow := s.captureCallback(t)
	if reason, _ := s.callback(t, cb, flow); reason != "" {
		t.Fatalf("first use of the code refused: %q", reason)
	}
	reason, c := s.callback(t, cb, flow)
	if !strings.Contains(reason, "refused the sign-in code") || !strings.Contains(reason, "invalid_grant") {
		t.Errorf("the same code again: reason %q, want the provider's invalid_grant", reason)
	}
	if code, _ := s.whoami(t, c); code != 401 {
		t.Errorf("GET /session after a replayed code: %d, want 401", code)
	}
}

func TestSingleSignOnWithoutAFlowCookieIsRefused(t *testing.T) {
	s := newSSOEnv(t)
	cb, flow := s.captureCallback(t)
	flow.Value = strings.Repeat("x", 10) + "." + flow.Value // tampered
	if reason, _ := s.callback(t, cb, flow); !strings.Contains(reason, "start it again") {
		t.Errorf("callback with a tampered flow cookie: reason %q, want to start again", reason)
	}
}

// A role dropped at the provider is dropped at the next sign-in, for the
// sessions already open too; losing every mapped group ends them.
func TestSingleSignOnRoleFollowsTheGroups(t *testing.T) {
	s := newSSOEnv(t)
	open := s.browser(t)
	if landed, reason := s.signIn(t, open); landed != "/clusters/multi" {
		t.Fatalf("sign-in as a platform admin: %s %q", landed, reason)
	}
	adminOnly := func(c *http.Client) int {
		resp, err := c.Get(s.base + "/api/v1/users")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := adminOnly(open); code != 200 {
		t.Fatalf("GET /users as a platform admin: %d", code)
	}

	s.idp.SetUser(testoidc.User{Subject: "u-ada", Username: "ada", Email: "ada@example.com", Groups: []string{"devs"}})
	if landed, _ := s.signIn(t, s.browser(t)); landed != "/clusters/multi" {
		t.Fatalf("sign-in as a viewer landed on %s", landed)
	}
	if code, sr := s.whoami(t, open); code != 200 || sr.User.Role != Viewer {
		t.Errorf("the session opened as an admin, after the groups changed: %d %s; want viewer", code, sr.User.Role)
	}
	if code := adminOnly(open); code != 403 {
		t.Errorf("GET /users in the session opened as an admin, now a viewer: %d, want 403", code)
	}

	s.idp.SetUser(testoidc.User{Subject: "u-ada", Username: "ada", Email: "ada@example.com", Groups: []string{"contractors"}})
	if landed, _ := s.signIn(t, s.browser(t)); landed != "/signin" {
		t.Fatalf("sign-in with no mapped group landed on %s, want /signin", landed)
	}
	if code, _ := s.whoami(t, open); code != 401 {
		t.Errorf("the open session after the user lost every mapped group: %d, want 401", code)
	}
}

// A team role from the groups holds while the groups give it: the open
// session of a member of team-a-operators sees only team-a's cluster, as
// its operator; after a sign-in whose groups make the user a global
// viewer instead, the same open session sees every cluster, and team-a's
// only as a viewer.
func TestSingleSignOnTeamRolesFollowTheGroups(t *testing.T) {
	s := newSSOEnv(t)
	ctx := context.Background()
	if _, err := s.st.CreateTeam(ctx, "team-a"); err != nil {
		t.Fatal(err)
	}
	a := &store.Cluster{Name: "a1", Team: "team-a", Provider: "local", Source: store.SourceProvisioned, Plugin: "local", Status: "Ready"}
	d := &store.Cluster{Name: "d1", Provider: "local", Source: store.SourceProvisioned, Plugin: "local", Status: "Ready"}
	for _, c := range []*store.Cluster{a, d} {
		if err := s.st.CreateCluster(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	s.idp.SetUser(testoidc.User{Subject: "u-ada", Username: "ada", Email: "ada@example.com", Groups: []string{"team-a-operators"}})
	open := s.browser(t)
	if landed, reason := s.signIn(t, open); landed != "/clusters/multi" {
		t.Fatalf("sign-in as team-a's operator: %s %q", landed, reason)
	}
	list := func() map[string]string {
		resp, err := open.Get(s.base + "/api/v1/clusters")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var l clusterList
		if err := json.NewDecoder(resp.Body).Decode(&l); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, c := range l.Items {
			out[c.Name] = string(c.Role)
		}
		return out
	}
	if got := list(); len(got) != 1 || got["a1"] != "operator" {
		t.Errorf("team-a's operator lists %v, want only a1 as operator", got)
	}
	if code, _ := s.whoami(t, open); code != 200 {
		t.Fatalf("whoami: %d", code)
	}
	s.idp.SetUser(testoidc.User{Subject: "u-ada", Username: "ada", Email: "ada@example.com", Groups: []string{"devs"}})
	if landed, _ := s.signIn(t, s.browser(t)); landed != "/clusters/multi" {
		t.Fatalf("sign-in as a global viewer landed on %s", landed)
	}
	if got := list(); len(got) != 2 || got["a1"] != "viewer" || got["d1"] != "viewer" {
		t.Errorf("the session opened as team-a's operator, after the groups changed, lists %v; want a1 and d1, both as viewer", got)
	}
}

func TestSignInMethods(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts envOpts
		want signInMethods
	}{
		{"passwords only", envOpts{}, signInMethods{Password: true}},
		{"single sign-on, passwords off", envOpts{passwordsOff: true, sso: oidc.New(oidc.Config{Issuer: "http://127.0.0.1:9", DisplayName: "Okta"})},
			signInMethods{SSO: &ssoMethod{DisplayName: "Okta", LoginURL: oidc.LoginPath}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.opts)
			code, body := e.do(http.MethodGet, "/api/v1/auth/methods", "", nil)
			got := decode[signInMethods](t, body)
			if code != 200 || got.Password != tc.want.Password || (got.SSO == nil) != (tc.want.SSO == nil) ||
				(got.SSO != nil && *got.SSO != *tc.want.SSO) {
				t.Errorf("GET /auth/methods = %d %s, want %+v", code, body, tc.want)
			}
		})
	}
}

func TestPasswordSignInCanBeTurnedOff(t *testing.T) {
	e := newEnv(t, envOpts{passwordsOff: true})
	for _, path := range []string{"/api/v1/session", "/api/v1/session/tokens"} {
		code, body := e.do(http.MethodPost, path, "", signInRequest{Username: "admin", Password: "a-long-enough-password"})
		if code != 403 || !strings.Contains(string(body), "password sign-in is turned off") {
			t.Errorf("POST %s with passwords off: %d %s, want 403 saying so", path, code, body)
		}
	}
}

func TestSingleSignOnRoutesWithoutAProvider(t *testing.T) {
	e := newEnv(t, envOpts{})
	for _, path := range []string{oidc.LoginPath, oidc.CallbackPath} {
		if code, body := e.do(http.MethodGet, path, "", nil); code != 404 || !strings.Contains(string(body), "--oidc-issuer-url") {
			t.Errorf("GET %s without single sign-on: %d %s, want 404 naming the setting", path, code, body)
		}
	}
	down := newEnv(t, envOpts{sso: oidc.New(oidc.Config{Issuer: "http://127.0.0.1:9", ClientID: "k", ClientSecret: "s"})})
	if code, body := down.do(http.MethodGet, oidc.LoginPath, "", nil); code != 502 || !strings.Contains(string(body), "cannot be reached") {
		t.Errorf("GET %s with the provider down: %d %s, want 502", oidc.LoginPath, code, body)
	}
}
