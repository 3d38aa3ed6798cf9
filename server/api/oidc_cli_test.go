package api

import (
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/internal/testkit/testoidc"
	"github.com/ochestra-tech/kubeopera/server/oidc"
)

// cliLoopback is where a test's "CLI" listens; nothing needs to, since the
// browser below stops at the redirect there.
const cliLoopback = "http://127.0.0.1:5555/cli-callback"

const cliVerifier = "a-verifier-of-at-least-43-characters-0123456789abcdef"

// cliSignIn runs the browser's part of `kubeopera login --sso` through the
// real provider and returns the query the loopback redirect carries.
func (s *ssoEnv) cliSignIn(t *testing.T, redirect, verifier string) url.Values {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	host := strings.TrimPrefix(s.base, "http://")
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second, Transport: validating{t, host},
		CheckRedirect: func(req *http.Request, _ []*http.Request) error {
			if req.URL.Host != host && !strings.HasPrefix(s.idp.URL, req.URL.Scheme+"://"+req.URL.Host) {
				return http.ErrUseLastResponse // the CLI's loopback
			}
			return nil
		}}
	q := url.Values{"redirect_uri": {redirect}, "code_challenge": {oidc.Challenge(verifier)}, "state": {"state-of-the-cli-0123"}}
	resp, err := c.Get(s.base + oidc.CLILoginPath + "?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || err != nil || loc.Scheme+"://"+loc.Host+loc.Path != redirect {
		t.Fatalf("the CLI's sign-in ended with %d at %s, want a 303 to %s", resp.StatusCode, resp.Header.Get("Location"), redirect)
	}
	if loc.Query().Get("state") != "state-of-the-cli-0123" {
		t.Errorf("the loopback redirect carries state %q, want the CLI's", loc.Query().Get("state"))
	}
	return loc.Query()
}

func (s *ssoEnv) exchange(t *testing.T, code, verifier string) (int, []byte) {
	t.Helper()
	return s.do(http.MethodPost, oidc.CLITokenPath, "", cliTokenRequest{Code: code, CodeVerifier: verifier, TTLSeconds: 3600})
}

// The CLI's sign-in ends at its loopback with a code that, with the
// verifier, gives a login token of the user's role once: a replayed code,
// a wrong verifier and a disabled user are refused.
func TestCLISingleSignOnGivesALoginTokenForACodeOnce(t *testing.T) {
	s := newSSOEnv(t)
	got := s.cliSignIn(t, cliLoopback, cliVerifier)
	code := got.Get("code")
	if code == "" || got.Get("error") != "" {
		t.Fatalf("loopback redirect %v: want a code and no error", got)
	}
	if status, body := s.exchange(t, code, cliVerifier+"x"); status != 400 || !strings.Contains(string(body), "does not match") {
		t.Errorf("the code with another verifier: %d %s, want 400", status, body)
	}
	status, body := s.exchange(t, code, cliVerifier)
	var issued issuedToken
	if status != 201 || json.Unmarshal(body, &issued) != nil || issued.Token == "" || issued.Role != PlatformAdmin ||
		issued.ExpiresAt == nil || time.Until(*issued.ExpiresAt) > time.Hour {
		t.Fatalf("exchange: %d %s, want 201 with a platform-admin token of an hour", status, body)
	}
	if status, body := s.do(http.MethodGet, "/api/v1/session", issued.Token, nil); status != 200 || !strings.Contains(string(body), `ada`) || !strings.Contains(string(body), `"role":"platform-admin"`) {
		t.Errorf("the CLI's token: %d %s, want ada's session", status, body)
	}
	if status, body := s.exchange(t, code, cliVerifier); status != 400 || !strings.Contains(string(body), "used already") {
		t.Errorf("the code replayed: %d %s, want 400 saying it was used", status, body)
	}

	// A user disabled between the sign-in and the exchange gets no token
	// (a viewer now: the last platform admin cannot be disabled).
	s.idp.SetUser(testoidc.User{Subject: "u-ada", Username: "ada", Email: "ada@example.com", Groups: []string{"devs"}})
	code = s.cliSignIn(t, cliLoopback, cliVerifier).Get("code")
	u, err := s.st.UserByUsername(t.Context(), "ada")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.st.SetUserDisabled(t.Context(), u.ID, true); err != nil {
		t.Fatal(err)
	}
	if status, body := s.exchange(t, code, cliVerifier); status != 403 || !strings.Contains(string(body), "disabled") {
		t.Errorf("a disabled user's code: %d %s, want 403", status, body)
	}
}

// A sign-in the provider's answer fails ends at the loopback with the
// reason and no code.
func TestCLISingleSignOnReportsARefusalToTheLoopback(t *testing.T) {
	s := newSSOEnv(t)
	s.idp.SetUser(testoidc.User{Subject: "u-ada", Username: "ada", Email: "ada@example.com", Groups: []string{"contractors"}})
	got := s.cliSignIn(t, cliLoopback, cliVerifier)
	if got.Get("code") != "" || !strings.Contains(got.Get("error"), "none of your groups") {
		t.Errorf("loopback redirect %v: want the refusal's reason and no code", got)
	}
}

// Only a loopback address may receive a code: anything else is refused
// before the browser goes to the provider.
func TestCLISingleSignOnRefusesARedirectOffLoopback(t *testing.T) {
	s := newSSOEnv(t)
	for _, redirect := range []string{"http://kubeopera.example.com:8080/cb", "https://127.0.0.1:5555/cb", "http://localhost:5555/cb",
		"http://127.0.0.1/cb", "http://10.0.0.1:5555/cb", "http://user@127.0.0.1:5555/cb", "//127.0.0.1:5555/cb", ""} {
		q := url.Values{"redirect_uri": {redirect}, "code_challenge": {oidc.Challenge(cliVerifier)}, "state": {"state-of-the-cli-0123"}}
		status, body := s.do(http.MethodGet, oidc.CLILoginPath+"?"+q.Encode(), "", nil)
		if status != 400 || !strings.Contains(string(body), "redirect_uri") {
			t.Errorf("redirect_uri %q: %d %s, want 400 naming redirect_uri", redirect, status, body)
		}
	}
	if n := s.idp.AuthorizeCalls(); n != 0 {
		t.Errorf("the provider saw %d authorization requests, want none", n)
	}
	q := url.Values{"redirect_uri": {"http://[::1]:5555/cb"}, "code_challenge": {"plain"}, "state": {"short"}}
	if status, body := s.do(http.MethodGet, oidc.CLILoginPath+"?"+q.Encode(), "", nil); status != 400 ||
		!strings.Contains(string(body), "code_challenge") || !strings.Contains(string(body), "state") {
		t.Errorf("a plain challenge and a short state: %d %s, want 400 naming both", status, body)
	}
}

func TestCLISingleSignOnRoutesWithoutAProvider(t *testing.T) {
	e := newEnv(t, envOpts{})
	q := url.Values{"redirect_uri": {cliLoopback}, "code_challenge": {oidc.Challenge(cliVerifier)}, "state": {"state-of-the-cli-0123"}}
	if status, _ := e.do(http.MethodGet, oidc.CLILoginPath+"?"+q.Encode(), "", nil); status != 404 {
		t.Errorf("GET %s without single sign-on: %d, want 404", oidc.CLILoginPath, status)
	}
	if status, _ := e.do(http.MethodPost, oidc.CLITokenPath, "", cliTokenRequest{Code: "x", CodeVerifier: cliVerifier}); status != 400 {
		t.Errorf("POST %s without single sign-on: %d, want 400 (no code can be valid)", oidc.CLITokenPath, status)
	}
	down := newEnv(t, envOpts{sso: oidc.New(oidc.Config{Issuer: "http://127.0.0.1:9", ClientID: "k", ClientSecret: "s"})})
	if status, body := down.do(http.MethodGet, oidc.CLILoginPath+"?"+q.Encode(), "", nil); status != 502 {
		t.Errorf("GET %s with the provider down: %d %s, want 502", oidc.CLILoginPath, status, body)
	}
}
